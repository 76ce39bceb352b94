"""The acceptance rule of speculative sampling, as pure tensor math (no models).

Leviathan et al. 2023, Algorithm 1 (p = target, q = draft):
accept draft token d with probability min(1, p(d) / q(d)); at the first rejection
sample from the residual norm(max(0, p - q)); after k acceptances sample a bonus
token from p_{k+1}. The emitted token then has exactly distribution p.
A point-mass drafter (n-gram) has q = one-hot(d): acceptance is p(d) and the
residual is p with d removed.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import torch

from specdec.rules.sampling import argmax, sample, uniform

RESIDUAL_EPS = 1e-12   # below this total mass the residual is numerically empty


class FinalKind(StrEnum):
    """Where the token the target adds at the end of a round comes from."""
    CORRECTION = "correction"       # the residual at the first rejection
    BONUS = "bonus"                 # p_{k+1}, after every draft was accepted
    TARGET = "target"               # p itself: the round drafted nothing (k = 0)


def accept_probability(p_d: float, q_d: float) -> float:
    """min(1, p(d) / q(d)); q(d) > 0 whenever d was drafted from q."""
    return 1.0 if p_d >= q_d else p_d / q_d


def beta(p: torch.Tensor, q: torch.Tensor) -> float:
    """β = Σ_x min(p(x), q(x)) = 1 − total variation; the chance a draft is accepted."""
    return float(torch.minimum(p, q).sum().item())


def residual(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """norm(max(0, p − q)); falls back to p when the residual is numerically empty."""
    r = (p - q).clamp(min=0)                                   # (V,)
    total = float(r.sum().item())
    return p if total <= RESIDUAL_EPS else r / total


@dataclass(frozen=True)
class Verdict:
    n_accepted: int
    draws: tuple[float, ...]        # u_i for each examined position (len = n_accepted + rejected)
    ratios: tuple[float, ...]       # min(1, p/q) for every drafted position
    token: int                      # correction or bonus
    kind: FinalKind                 # CORRECTION or BONUS
    source: torch.Tensor            # (V,) the distribution `token` was drawn from


def verify_sampled(drafts: list[int], draft_probs: torch.Tensor, target_probs: torch.Tensor,
                   generator: torch.Generator) -> Verdict:
    """drafts (k,), draft_probs (k, V), target_probs (k+1, V) -> Verdict."""
    k = len(drafts)
    p_d = target_probs[torch.arange(k), drafts].tolist()      # (k,)
    q_d = draft_probs[torch.arange(k), drafts].tolist()       # (k,)
    ratios = tuple(accept_probability(p, q) for p, q in zip(p_d, q_d))
    draws: list[float] = []
    for i in range(k):
        draws.append(uniform(generator))
        if draws[-1] > ratios[i]:                               # rejected at i
            source = residual(target_probs[i], draft_probs[i])
            return Verdict(i, tuple(draws), ratios, sample(source, generator), FinalKind.CORRECTION, source)
    source = target_probs[k]
    return Verdict(k, tuple(draws), ratios, sample(source, generator), FinalKind.BONUS, source)


def verify_greedy(drafts: list[int], target_probs: torch.Tensor) -> Verdict:
    """Greedy mode: accept while d_i == argmax p_i, then emit argmax p_n (or the bonus argmax)."""
    k = len(drafts)
    best = argmax(target_probs).tolist()                       # (k+1,)
    ratios = tuple(1.0 if best[i] == d else 0.0 for i, d in enumerate(drafts))
    n = next((i for i in range(k) if best[i] != drafts[i]), k)
    kind = FinalKind.BONUS if n == k else FinalKind.CORRECTION
    return Verdict(n, (), ratios, best[n], kind, target_probs[n])
