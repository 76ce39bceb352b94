"""A result shipped from another machine, priced again with this machine's profile (issue 51,
deliverable 1).

Tokens a round travel between machines: they depend on the models and the text. Prices do not:
a draft step's cost c and a pass's cost v(M) belong to the machine. So a shipped point's speed
here is predicted from its own tokens a round L and this machine's prices,

    L / (k·c + v(k + 1))           (Leviathan et al. 2023, Theorem 3.8 with the measured pass)

for the rounds; where the point recorded what its runs paid besides them (the k sweep's points:
reading the prompt and the bookkeeping, in that machine's steps), for the whole run with those
(theory.run_speedup), as "Does it pay here?" prices its own (payoff.py): one convention for the
figures a learner compares. A lookup (n-gram, suffix match) drafts only what it finds, d tokens a round
with d from 0 to k, and runs no model (c = 0): its round is priced at v(d̄ + 1), d̄ its drafts a
round on average, v read between the two measured widths around d̄ + 1.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from specdec.bench import machine
from specdec.bench.points import Point
from specdec.drafters.registry import DRAFTERS
from specdec.trace.theory import Overheads, drafted_per_round, run_speedup


@dataclass(frozen=True)
class Repriced:
    """One shipped point at this machine's prices."""
    point: Point          # as shipped (its tokens a round, and the speedup it had there): a sweep's
                          # Point, a compared drafter or a kind of text
    c: float              # this machine's
    v: float              # v(k + 1), this machine's (a lookup: v(d̄ + 1))
    k: float | None = None  # drafts a round (None: the sweep Point's own k; a lookup: d̄, its mean)
    found: bool = False   # a lookup, which drafts only what it finds: k is d̄, a mean

    @property
    def drafts(self) -> float:
        return self.point.k if self.k is None else self.k

    @property
    def round_steps(self) -> float:
        return self.drafts * self.c + self.v

    @property
    def over(self) -> tuple[Overheads, Overheads] | None:
        """What the point's runs paid besides their rounds (None: not recorded, rounds only)."""
        return overheads(self.point)

    @property
    def rounds_speedup(self) -> float:
        """Predicted here for the rounds alone (Theorem 3.8 with the measured pass): what the drafting itself buys,
        without what the point's runs paid besides."""
        return self.point.mean_acceptance_length / self.round_steps

    @property
    def speedup(self) -> float:
        """Predicted here: the whole run where the point recorded what its runs paid besides
        their rounds, else the rounds alone."""
        return run_speedup(self.point.mean_acceptance_length, 0, 0.0, self.round_steps, *(self.over or ()))


def overheads(p) -> tuple[Overheads, Overheads] | None:
    """What a point's (or a filed figure's) speculative and plain runs paid besides their rounds, in
    their steps: reading the prompt and the bookkeeping (None where it was not recorded: only the k
    sweep and the box's own runs record it). A record that pooled them over its prompts carries them
    whole as `over` (ui/typical.Typical, from where.pooled_besides)."""
    if getattr(p, "prefill_steps", None) is None or getattr(p, "base_prefill_steps", None) is None:
        pooled = getattr(p, "over", None)
        return pooled if isinstance(pooled, tuple) and len(pooled) == 2 else None
    return Overheads(p.prefill_steps, p.round_overhead or 0.0), Overheads(p.base_prefill_steps, p.base_overhead or 0.0)


def one(p, c: float | None, widths: dict[int, float], k: int | None = None) -> Repriced | None:
    """`p` at c and the pass prices `widths` (M -> v(M)), drafting k a round (None: p.k); None
    where either price is not measured, or p kept no tokens a round (nothing drafted)."""
    k = p.k if k is None else k
    unpriced = c is None or k + 1 not in widths or p.mean_acceptance_length is None
    return None if unpriced else Repriced(p, c, widths[k + 1], k)


def pass_at(widths: dict[int, float], m: float) -> float | None:
    """v(m) at a mean width m: straight between the measured widths around it (None: beyond them)."""
    lo, hi = math.floor(m), math.ceil(m)
    if lo not in widths or hi not in widths:
        return None
    return widths[lo] + (m - lo) * (widths[hi] - widths[lo])


def lookup(p, widths: dict[int, float]) -> Repriced | None:
    """A lookup's point at this machine's pass prices: c = 0 (it runs no model), the pass of its
    mean d̄ + 1 tokens (d̄ as counted, or from L = a·d̄ + 1 in a record from before the count);
    None where d̄ is unknown (nothing accepted in an older record) or v(d̄ + 1) is not measured."""
    d = p.drafted_per_round if getattr(p, "drafted_per_round", None) is not None else \
        drafted_per_round(p.acceptance_rate, p.mean_acceptance_length)
    v = None if d is None or p.mean_acceptance_length is None else pass_at(widths, d + 1)
    return None if v is None else Repriced(p, 0.0, v, d, found=True)


def k_sweep(points, c: float | None, widths: dict[int, float]) -> list[Repriced]:
    """A k sweep (one draft, one c) at this machine's prices: the points it can price, in order."""
    return [r for p in points if (r := one(p, c, widths)) is not None]


def drafts(points, profile: machine.Profile | None) -> list[Repriced]:
    """A draft-size trade-off at this machine's prices, each draft at its own c from `profile`, a
    lookup (n-gram, suffix match) at the pass of what it drafted (`lookup`); left out: drafts the
    profile has no c for."""
    if profile is None:
        return []
    return [r for p in points if (r := _priced(p, p.drafter or "model", p.draft, profile)) is not None]


def _priced(p, drafter: str, draft: str | None, profile: machine.Profile, k: int | None = None) -> Repriced | None:
    """One drafter's point at `profile`'s prices: a lookup at its mean drafts, any other at k."""
    if DRAFTERS[drafter].finds:
        return lookup(p, profile.v)
    return one(p, machine.draft_c(profile, drafter, draft), profile.v, k)


def each(points, k: int, c: float | None, widths: dict[int, float]) -> list[Repriced]:
    """Points measured at one k with one drafter (Where it works' kinds of text) at this machine's
    prices; [] without a c or a v(k + 1) here."""
    return [r for p in points if (r := one(p, c, widths, k)) is not None]


def compared(points, variants, k: int, profile: machine.Profile | None) -> list[Repriced]:
    """Drafters compared's drafters (`variants`: their labels' drafter and draft) at this machine's
    prices, each at its own c, a lookup (n-gram, suffix match) at the pass of what it drafted.
    Left out: a drafter the profile has no c for, and a draft-length policy, whose rounds run
    draft steps it does not keep (a round's price needs how many it ran)."""
    if profile is None:
        return []
    by_label = {v.label: v for v in variants}
    chains = [(p, by_label[p.drafter]) for p in points
              if p.drafter in by_label and by_label[p.drafter].policy == "constant"]
    return [r for p, v in chains if (r := _priced(p, v.drafter, v.draft, profile, k)) is not None]
