"""What a round costs on this machine, in target steps: the prices a draft-length policy weighs.

A chain round of k drafts costs k·c + v(k + 1) target steps — c a draft step over a target step,
v(M) a pass of M tokens over a one-token step — and keeps on average (1 − α^(k+1)) / (1 − α)
tokens (Leviathan et al. 2023, Theorem 3.8 with the measured pass). specdec/bench/machine.py
measures c and v on the machine at hand and hands them to a pair (`Pair.prices`); the engine
never measures them itself, so a run's k never depends on a timing taken during that run.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, eq=False)        # eq=False: hashable by identity, so a Pair holding one still hashes
class Prices:
    c: float                 # a draft step / a target step (0 for a drafter that runs no model)
    v: dict[int, float]      # M -> a pass of M tokens / a one-token step, for the M measured
    where: str = ""          # the profile they came from (CPU | backend | threads)

    def round_price(self, k: int) -> float:
        """A chain round of k drafts, in target steps."""
        return k * self.c + self.v[k + 1]

    @property
    def longest(self) -> int:
        """The longest chain whose pass was measured."""
        return max(self.v) - 1


def tokens_a_round(alpha: float, k: int) -> float:
    """Expected tokens a round of k drafts keeps when each is accepted with probability α."""
    return float(k + 1) if alpha >= 1.0 else (1.0 - alpha ** (k + 1)) / (1.0 - alpha)


def best_k(prices: Prices, alpha: float, k_max: int) -> int:
    """The k in 1..k_max (and measured) that buys the most tokens per target step."""
    ks = [k for k in range(1, max(1, min(k_max, prices.longest)) + 1) if k + 1 in prices.v] or [1]
    return max(ks, key=lambda k: tokens_a_round(alpha, k) / prices.round_price(k) if k + 1 in prices.v else 0.0)
