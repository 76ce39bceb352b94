"""Draft-length policies: how many tokens the drafter proposes each round.

- constant:   always k.
- heuristic:  transformers' schedule: k += 2 after a round that accepted every draft,
              else k -= 1, never below 1.
- confidence: up to k, but stop drafting after a token whose draft probability
              q(d) is below a threshold (the draft "knows" it is guessing).
- priced:     each round the k in 1..k that buys the most tokens per target step at this
              machine's prices (models/prices.py) and the acceptance the run has seen so far.
Every choice depends only on the draft's own tokens or on earlier rounds, so output stays exact.
To add one: subclass `Constant` and add it to `POLICIES`; the engine, the CLI and the
sidebar read that table.
"""
from __future__ import annotations

from dataclasses import dataclass

from specdec.defaults import CONFIDENCE, K_MAX
from specdec.errors import InputError
from specdec.models.prices import Prices, best_k
from specdec.wording import N_


class Constant:
    def __init__(self, k: int, threshold: float = CONFIDENCE, prices: Prices | None = None):
        self.k, self.threshold, self.prices = k, threshold, prices

    def next_k(self) -> int:
        return self.k

    def keep_drafting(self, q_token: float) -> bool:
        return True

    def update(self, drafted: int, accepted: int) -> None:
        pass


Policy = Constant     # the interface every policy keeps


class Heuristic(Constant):
    def update(self, drafted: int, accepted: int) -> None:
        if drafted == 0:
            return
        self.k = min(K_MAX, self.k + 2) if accepted == drafted else max(1, self.k - 1)


class Confidence(Constant):
    def keep_drafting(self, q_token: float) -> bool:
        return q_token >= self.threshold


PRICED = N_("priced")  # the policy that reads a pair's prices (the app attaches them for it)
PRIOR = (2.0, 4.0)    # (accepted, tried): α starts at 0.5, worth four drafts, until the run's rounds speak


class Priced(Constant):
    """k from this machine's prices (none measured: k, constant) and α estimated from the run's own
    rounds: accepted drafts over drafts tried (a round that rejects tried one more than it kept)."""

    def __init__(self, k: int, threshold: float = CONFIDENCE, prices: Prices | None = None):
        super().__init__(k, threshold, prices)
        self.k_max, (self.accepted, self.tried) = k, PRIOR
        self.k = self._choose()

    @property
    def alpha(self) -> float:
        return self.accepted / self.tried

    def _choose(self) -> int:
        return self.k_max if self.prices is None or self.k_max < 1 else best_k(self.prices, self.alpha, self.k_max)

    def update(self, drafted: int, accepted: int) -> None:
        if drafted == 0:
            return
        self.accepted += accepted
        self.tried += accepted + (accepted < drafted)
        self.k = self._choose()


@dataclass(frozen=True)
class PolicyKind:
    cls: type
    help: str                 # one line for the CLI and the app


# Names and help are marked for the app's catalog here, where they are defined (N_).
POLICIES: dict[str, PolicyKind] = {
    N_("constant"): PolicyKind(Constant, N_("always k")),
    N_("heuristic"): PolicyKind(Heuristic, N_("+2 after a round that accepted every draft, −1 otherwise")),
    N_("confidence"): PolicyKind(Confidence, N_("stop drafting after a token the draft gives less than the threshold")),
    PRICED: PolicyKind(Priced, N_("each round the k this machine's measured prices and the acceptance so far "
                                        "favour, up to k")),
}


def make_policy(name: str, k: int, threshold: float = CONFIDENCE, prices: Prices | None = None) -> Policy:
    if name not in POLICIES:
        raise InputError(f"unknown draft-length policy {name!r}; choose one of {', '.join(POLICIES)}")
    return POLICIES[name].cls(k, threshold, prices)
