"""Leviathan et al. 2023, §3: what speculation should give, from α, k and c.

α = E[β], β = Σ_x min(p(x), q(x)); c = cost of a draft step / cost of a target step.
"""
from __future__ import annotations

from dataclasses import dataclass


def expected_tokens(alpha: float, k: int) -> float:
    """Eq. (1): expected tokens per round, (1 − α^(k+1)) / (1 − α)."""
    if alpha >= 1.0:
        return float(k + 1)
    return (1 - alpha ** (k + 1)) / (1 - alpha)


def expected_speedup(alpha: float, k: int, c: float) -> float:
    """Theorem 3.8: wall-time improvement (1 − α^(k+1)) / ((1 − α)(k·c + 1))."""
    return expected_tokens(alpha, k) / (k * c + 1)


def speedup_with_verify(alpha: float, k: int, c: float, v: float) -> float:
    """Theorem 3.8 with a measured verification cost: one (k+1)-token target pass costs v
    target steps instead of 1 (on a CPU it costs more; on an idle GPU about 1)."""
    return expected_tokens(alpha, k) / (k * c + v)


def verify_ceiling(k: int, c: float, v: float) -> float:
    """bound(v) / bound = (k·c + 1) / (k·c + v), whatever α: what the price of a (k+1)-token
    pass of v steps alone leaves of the Theorem 3.8 bound (the fraction an engine with no
    other overhead reaches when acceptances behave like the theorem's i.i.d. α)."""
    return (k * c + 1) / (k * c + v)


def drafted_per_round(rate: float | None, length: float | None) -> float | None:
    """D, drafts a round, from L = a·D + 1 (every round ends with one final token: a round cut short
    by the end of the text makes it a little larger); None when nothing was accepted."""
    return (length - 1) / rate if rate and length is not None else None


def best_k(alpha: float, c: float, k_max: int = 16) -> int:
    """The k in 1..k_max with the highest expected speedup."""
    return max(range(1, k_max + 1), key=lambda k: expected_speedup(alpha, k, c))


def tokens_from_profile(accepted: list[int], k: int) -> float:
    """Expected tokens per round at draft length `k`, read off the rounds of a run that drafted
    K ≥ k tokens a round: each round would have kept min(accepted, k) drafts plus the target's
    token. Unlike eq. (1) it does not assume that every position is accepted with the same α
    independently of the others (easy stretches accept long runs, hard ones none)."""
    if not accepted:
        return 1.0
    return 1.0 + sum(min(a, k) for a in accepted) / len(accepted)


@dataclass(frozen=True)
class Overheads:
    """What a run pays besides its rounds' passes and draft steps, in target steps (a one-token
    pass = 1). Theorem 3.8 counts neither: both pull a measured speedup toward 1."""
    prefill: float = 0.0      # reading the prompt (both models'), per generated token
    per_round: float = 0.0    # the engine's bookkeeping between passes, per round
    steps: float = 1.0        # an autoregressive run's one-token passes per generated token
                              # (below 1: its prompt's pass gave the first token)


def profile_speedup(accepted: list[int], k: int, c: float, v: float) -> float:
    """Theorem 3.8's price of a round (k draft steps at c, one pass at v) with the tokens a
    round keeps read off the measured acceptance profile instead of eq. (1)."""
    return tokens_from_profile(accepted, k) / (k * c + v)


def run_speedup(tokens: float, k: int, c: float, v: float,
                spec: Overheads = Overheads(), base: Overheads = Overheads()) -> float:
    """A whole run's speedup, Theorem 3.8's rounds (k draft steps at c, one pass at v, `tokens`
    kept a round) plus what each run pays besides (`spec`: the speculative run, `base`: the
    autoregressive one): (base.prefill + base.steps + base.per_round) /
    (spec.prefill + (k·c + v + spec.per_round) / tokens)."""
    return (base.prefill + base.steps + base.per_round) / (spec.prefill + (k * c + v + spec.per_round) / tokens)
