"""How a run of drafts survives, position by position, against the theorem's single α.

Eq. (1) of Leviathan et al. takes every draft to survive its check with one chance α,
independently of the others. Measured chains need not: a round starts right after the
previous round's rejection (or its bonus token), so its first draft often stands where the
draft just went wrong, while a draft further along follows drafts that were right. The
numbers here are computed from the rounds of a measurement, chain rounds only.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from specdec.trace.rounds import Round

MIN_ROUNDS = 20      # a share from fewer rounds is not reported


@dataclass(frozen=True)
class Survival:
    first: float                       # P(d_1 accepted)
    later: tuple[float, ...]           # P(d_i accepted | d_1..d_{i-1} accepted), i = 2, 3, ...
    after_rejection: tuple[int, int]   # (first drafts accepted, rounds) after a round with a rejection
    after_full: tuple[int, int]        # the same after a round that kept every draft


def _chain(rounds: Sequence[Round]) -> list[Round]:
    return [r for r in rounds if r.tree is None]


def conditional(rounds: Sequence[Round]) -> list[float]:
    """Per position i (0-based): of the rounds that drafted it with d_1..d_i accepted, the share
    that accepted it too; positions reached by fewer than MIN_ROUNDS rounds end the list."""
    out = []
    for i in range(max((r.drafted for r in rounds), default=0)):
        reached = [r for r in rounds if r.drafted > i and r.n_accepted >= i]
        if len(reached) < MIN_ROUNDS:
            break
        out.append(sum(r.n_accepted > i for r in reached) / len(reached))
    return out


def after_previous(runs: Sequence[Sequence[Round]]) -> tuple[tuple[int, int], tuple[int, int]]:
    """First drafts accepted / rounds, split by how the run's previous round ended."""
    rejected, full = [0, 0], [0, 0]
    for rounds in runs:
        for before, now in zip(rounds, rounds[1:]):
            if before.drafted and now.drafted and before.tree is None and now.tree is None:
                side = full if before.n_accepted == before.drafted else rejected
                side[0] += now.n_accepted > 0
                side[1] += 1
    return tuple(rejected), tuple(full)


def survival(runs: Sequence[Sequence[Round]]) -> Survival | None:
    """`runs`: each measured run's rounds in order. None when no later position has enough rounds."""
    shares = conditional([r for rounds in runs for r in _chain(rounds)])
    if len(shares) < 2:
        return None
    rejected, full = after_previous(runs)
    return Survival(shares[0], tuple(shares[1:]), rejected, full)
