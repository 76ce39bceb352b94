"""A result shipped from another machine, priced again with this machine's profile (issue 51,
deliverable 1).

Tokens a round travel between machines: they depend on the models and the text. Prices do not:
a draft step's cost c and a pass's cost v(M) belong to the machine. So a shipped point's speed
here is predicted from its own tokens a round L and this machine's prices,

    L / (k·c + v(k + 1))           (Leviathan et al. 2023, Theorem 3.8 with the measured pass)

rounds only: what a run pays besides them (the prompt, bookkeeping) is the machine's too and is
not carried over.
"""
from __future__ import annotations

from dataclasses import dataclass

from specdec.bench import machine
from specdec.bench.points import Point
from specdec.drafters.registry import DRAFTERS


@dataclass(frozen=True)
class Repriced:
    """One shipped point at this machine's prices."""
    point: Point          # as shipped (its tokens a round, and the speedup it had there): a sweep's
                          # Point, a compared drafter or a kind of text
    c: float              # this machine's
    v: float              # v(k + 1), this machine's
    k: int = 0            # drafts a round (a sweep's Point carries its own; 0: read it there)

    @property
    def drafts(self) -> int:
        return self.k or self.point.k

    @property
    def round_steps(self) -> float:
        return self.drafts * self.c + self.v

    @property
    def speedup(self) -> float:
        """Predicted here."""
        return self.point.mean_acceptance_length / self.round_steps


def one(p, c: float | None, widths: dict[int, float], k: int | None = None) -> Repriced | None:
    """`p` at c and the pass prices `widths` (M -> v(M)), drafting k a round (None: p.k); None
    where either price is not measured, or p kept no tokens a round (nothing drafted)."""
    k = p.k if k is None else k
    unpriced = c is None or k + 1 not in widths or p.mean_acceptance_length is None
    return None if unpriced else Repriced(p, c, widths[k + 1], k)


def k_sweep(points, c: float | None, widths: dict[int, float]) -> list[Repriced]:
    """A k sweep (one draft, one c) at this machine's prices: the points it can price, in order."""
    return [r for p in points if (r := one(p, c, widths)) is not None]


def drafts(points, profile: machine.Profile | None) -> list[Repriced]:
    """A draft-size trade-off at this machine's prices, each draft at its own c from `profile`;
    left out: drafts the profile has no c for, and lookups (n-gram, suffix match), which draft
    only what they find (a round's price needs how many it drafted)."""
    if profile is None:
        return []
    return [r for p in points if not (p.drafter and DRAFTERS[p.drafter].finds)
            and (r := one(p, machine.draft_c(profile, p.drafter or "model", p.draft), profile.v)) is not None]


def each(points, k: int, c: float | None, widths: dict[int, float]) -> list[Repriced]:
    """Points measured at one k with one drafter (Where it works' kinds of text) at this machine's
    prices; [] without a c or a v(k + 1) here."""
    return [r for p in points if (r := one(p, c, widths, k)) is not None]


def compared(points, variants, k: int, profile: machine.Profile | None) -> list[Repriced]:
    """Drafters compared's drafters (`variants`: their labels' drafter and draft) at this machine's
    prices, each at its own c. Left out: a drafter the profile has no c for, a draft-length
    policy and a lookup (n-gram, suffix match), whose rounds draft fewer than k (a round's price
    needs how many it drafted)."""
    if profile is None:
        return []
    by_label = {v.label: v for v in variants}
    chains = [(p, by_label[p.drafter]) for p in points
              if p.drafter in by_label and by_label[p.drafter].policy == "constant"
              and not DRAFTERS[by_label[p.drafter].drafter].finds]
    return [r for p, v in chains
            if (r := one(p, machine.draft_c(profile, v.drafter, v.draft), profile.v, k)) is not None]
