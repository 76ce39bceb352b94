"""Draft-length policies: how many tokens the drafter proposes each round.

- constant:   always k.
- heuristic:  transformers' schedule: k += 2 after a round that accepted every draft,
              else k -= 1, never below 1.
- confidence: up to k, but stop drafting after a token whose draft probability
              q(d) is below a threshold (the draft "knows" it is guessing).
The stop decision depends only on the draft's own tokens, so output stays exact.
"""
from __future__ import annotations

from specdec.sampling import InputError

K_MAX = 32   # the heuristic never grows past this


class Constant:
    name = "constant"

    def __init__(self, k: int):
        self.k = k

    def next_k(self) -> int:
        return self.k

    def keep_drafting(self, q_token: float) -> bool:
        return True

    def update(self, drafted: int, accepted: int) -> None:
        pass


class Heuristic(Constant):
    name = "heuristic"

    def update(self, drafted: int, accepted: int) -> None:
        if drafted == 0:
            return
        self.k = min(K_MAX, self.k + 2) if accepted == drafted else max(1, self.k - 1)


class Confidence(Constant):
    name = "confidence"

    def __init__(self, k: int, threshold: float):
        super().__init__(k)
        self.threshold = threshold

    def keep_drafting(self, q_token: float) -> bool:
        return q_token >= self.threshold


POLICIES = ("constant", "heuristic", "confidence")


def make_policy(name: str, k: int, threshold: float = 0.3) -> Constant:
    if name == "constant":
        return Constant(k)
    if name == "heuristic":
        return Heuristic(k)
    if name == "confidence":
        return Confidence(k, threshold)
    raise InputError(f"unknown draft-length policy {name!r}; choose one of {', '.join(POLICIES)}")
