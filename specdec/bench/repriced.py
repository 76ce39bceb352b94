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


@dataclass(frozen=True)
class Repriced:
    """One shipped point at this machine's prices."""
    point: Point          # as shipped (its k, draft, tokens a round, and the speedup it had there)
    c: float              # this machine's
    v: float              # v(k + 1), this machine's

    @property
    def round_steps(self) -> float:
        return self.point.k * self.c + self.v

    @property
    def speedup(self) -> float:
        """Predicted here."""
        return self.point.mean_acceptance_length / self.round_steps


def one(p: Point, c: float | None, widths: dict[int, float]) -> Repriced | None:
    """`p` at c and the pass prices `widths` (M -> v(M)); None where either is not measured."""
    return None if c is None or p.k + 1 not in widths else Repriced(p, c, widths[p.k + 1])


def k_sweep(points, c: float | None, widths: dict[int, float]) -> list[Repriced]:
    """A k sweep (one draft, one c) at this machine's prices: the points it can price, in order."""
    return [r for p in points if (r := one(p, c, widths)) is not None]


def drafts(points, profile: machine.Profile | None) -> list[Repriced]:
    """A draft-size trade-off at this machine's prices, each draft at its own c from `profile`
    (0 for a drafter that runs no model); drafts the profile has no c for are left out."""
    if profile is None:
        return []
    return [r for p in points
            if (r := one(p, machine.draft_c(profile, p.drafter or "model", p.draft), profile.v)) is not None]
