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

from specdec.trace.run import Round

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


def survival_caption(s: Survival) -> str:
    """What the positions show against one α, and how the previous round's end matters (a caption
    under the per-position curves, which show the share of rounds whose first i drafts survived)."""
    from specdec.wording import _
    lo, hi = min(s.later), max(s.later)
    if lo > s.first + 0.05:
        text = _("Taken one check at a time, the first draft of a round survived {first:.0%} of "
                 "the time and a draft after accepted ones {lo:.0%}–{hi:.0%}: not the one α at "
                 "every position that the speed formula (When it is fast) assumes.")
    elif hi < s.first - 0.05:
        text = _("Taken one check at a time, the first draft of a round survived {first:.0%} of "
                 "the time and a draft after accepted ones only {lo:.0%}–{hi:.0%}: not the one α "
                 "at every position that the speed formula (When it is fast) assumes.")
    else:
        text = _("Taken one check at a time, drafts survived about equally often at every "
                 "position ({first:.0%} first, {lo:.0%}–{hi:.0%} further on), as the speed "
                 "formula's one α (When it is fast) assumes.")
    text = _("The curves fall because a draft is accepted only if every draft before it in its "
             "round was accepted.") + " " + text.format(first=s.first, lo=lo, hi=hi)
    (a, n_a), (b, n_b) = s.after_rejection, s.after_full
    if min(n_a, n_b) < MIN_ROUNDS:
        return text
    cluster = b / n_b > a / n_a + 0.05
    more = (_("Rejections cluster: after a round that ended in a rejection, the next first draft "
              "survived {a:.0%} of the time ({n_a} rounds); after a round that kept every draft, "
              "{b:.0%} ({n_b} rounds).") if cluster else
            _("After a round that ended in a rejection, the next first draft survived {a:.0%} of "
              "the time ({n_a} rounds); after a round that kept every draft, {b:.0%} ({n_b} rounds)."))
    return text + " " + more.format(a=a / n_a, n_a=n_a, b=b / n_b, n_b=n_b)
