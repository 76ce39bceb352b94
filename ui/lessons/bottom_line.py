"""In short: one sentence of what every run of a pair at one temperature measured on this machine (or one of
its CPU model), across k: the k where speculation does best here, by the box's rule, in one figure; each run is a
mark on ui/figures/payoff.py's chart under it (review 33: "nowhere does one sentence give the bottom line, such
as 'here, at best break-even, at k = 1'")."""
from __future__ import annotations

import statistics
from typing import NamedTuple

from specdec.wording import _, times
from ui.lessons import badges
from ui.lessons.payoff_words import EVEN, SMALL, answer_word


class Run(NamedTuple):
    """One run over a whole prompt set: its speedup (the median of its repeats), the range of its repeats, whether
    this machine ran it (else one like it, shipped), and how many repeats it took."""
    speedup: float
    low: float
    high: float
    here: bool = True
    repeats: int = 1


def counted(runs: list[Run]) -> list[Run]:
    """The runs a k's figure weighs: this machine's where it has any, else those shipped from a machine like it (a
    figure from another machine is no headline beside this one's: review 39 read a median of "1.08× there" and
    "1.02× here" as "a little" beside the verdict's "break-even, 1.02×")."""
    return [r for r in runs if r.here] or runs


def median(runs: list[Run]) -> float:
    return statistics.median(r.speedup for r in counted(runs))


def ranked(runs: dict[int, list[Run]]) -> list[int]:
    """The ks with runs, the best first: by their counted runs' median speedup."""
    return sorted((k for k, rs in runs.items() if rs), key=lambda k: -median(runs[k]))


def best(runs: dict[int, list[Run]]) -> int | None:
    """In short's k: the highest median, where a k this machine ran is within EVEN of it that one (review 40: a
    shipped k = 2 at 1.03× named "the nearest" over k = 1's 1.02× measured here, both break-even)."""
    order = ranked(runs)
    if not order:
        return None
    near = [k for k in order if median(runs[k]) >= median(runs[order[0]]) - EVEN]
    return next((k for k in near if counted(runs[k])[0].here), order[0])


def restates(runs: dict[int, list[Run]], k: int | None) -> bool:
    """Whether In short would only repeat the verdict: its best k is the verdict's measured `k` and counts one run
    (the verdict's figure), so the box says it once (review 34: "many figures for one setting")."""
    top = best(runs)
    return top is not None and top == k and len(counted(runs[k])) == 1


def word(runs: list[Run]) -> str:
    """A k's counted runs by the box's rule: their median speedup and the range of all their repeats."""
    mine = counted(runs)
    return answer_word(median(mine), min(r.low for r in mine), max(r.high for r in mine), runs=len(mine))


def k_words(k: int, runs: list[Run]) -> str:
    """One k's runs in a few words, as In short weighs them, with whose they are: 'at k = 1: A little, under 10%,
    1.05× [measured here] (median of 2 runs)' (the sidebar's line: review 37 read its newest run's word beside In
    short's pooled one; review 58: a shipped figure without a badge beside the verdict's "measured here")."""
    whose = badges.here() if counted(runs)[0].here else badges.like_this_legend()
    return _("at k = {k}: {answer}, {x} {badge} ({runs})").format(k=k, answer=word(runs), x=times(median(runs)),
                                                                  badge=whose, runs=_runs(runs))


def bottom_line(t: float, runs: dict[int, list[Run]], picked: int | None = None) -> str | None:
    """`runs`: k -> the runs measured at T = `t` (oldest first); the best k is `best`'s, its word the box's rule on
    its counted runs' median and the range of all their repeats, stated as one figure, the
    median (reviews 35-38: too many figures for one setting; each run is a mark on `runs_figure` under it, so a
    pooled figure is not read as a second answer: review 34); where it is `picked`, the k this machine's prices
    pick, it says so (the verdict then leaves that k to it) (None without any run)."""
    top = best(runs)
    if top is None:
        return None
    mine = counted(runs[top])
    at = (_("k = {k}, the k this machine's prices pick") if top == picked else _("k = {k}")).format(k=top)
    where = _("on this machine") if mine[0].here else _("on a machine like this one")   # not "this machine" for
                                                                                        # shipped runs (review 36)
    figures = dict(k=at, t=t, x=times(median(mine)), runs=_runs(mine), where=where)
    said = word(mine)
    if max(r.high for r in mine) < 1:
        return _("**In short**, at T = {t:g} {where}: no k pays; the best, {k}: {x} ({runs}).").format(**figures)
    if said not in (_("Yes"), _("A little, under {pct:.0%}").format(pct=SMALL)):     # break-even: no gain shown
        return _("**In short**, at T = {t:g} {where}: no k pays clearly; the nearest, {k}: {x} ({runs}).").format(
            **figures)                                   # review 38: "the best is k = 1 … break-even" read as a win
    said = _("it pays") if said == _("Yes") else said[:1].lower() + said[1:]
    return _("**In short**, at T = {t:g} {where} the best is {k}: {word}, {x} ({runs}).").format(word=said, **figures)


def _runs(runs: list[Run]) -> str:
    """How many runs a k's figure stands for: "one run of 3 repeats", "median of 3 runs" (each run is a mark on the
    chart; review 39 read "one run" as one timing)."""
    mine = counted(runs)
    if len(mine) > 1:
        return _("median of {n} runs").format(n=len(mine))
    return _("one run of {n} repeats").format(n=mine[0].repeats) if mine[0].repeats > 1 else _("one run")
