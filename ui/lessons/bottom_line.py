"""In short: one sentence of what every run of a pair at one temperature measured on this machine (or one of
its CPU model), across k — the k where speculation does best here, by the box's rule, and the next best
(review 33: "nowhere does one sentence give the bottom line, such as 'here, at best break-even, at k = 1'")."""
from __future__ import annotations

import statistics
from typing import NamedTuple

from specdec.wording import _, times
from ui.lessons.payoff_words import SMALL, answer_word


class Run(NamedTuple):
    """One run's speedup over a whole prompt set, its range over those prompts, and whether this machine ran it
    (else one like it, shipped)."""
    speedup: float
    low: float
    high: float
    here: bool = True


def ranked(runs: dict[int, list[Run]]) -> list[int]:
    """The ks with runs, the best first: by their runs' median speedup."""
    return sorted((k for k, rs in runs.items() if rs), key=lambda k: -statistics.median(r.speedup for r in runs[k]))


def restates(runs: dict[int, list[Run]], k: int | None) -> bool:
    """Whether In short would only repeat the verdict: its best k is the verdict's measured `k` and has one run
    (the verdict's figure), so the box says it once (review 34: "many figures for one setting")."""
    order = ranked(runs)
    return bool(order) and order[0] == k and len(runs[k]) == 1


def word(runs: list[Run]) -> str:
    """A k's runs by the box's rule: their median speedup and the range of all of them."""
    return answer_word(statistics.median(r.speedup for r in runs), min(r.low for r in runs),
                       max(r.high for r in runs), runs=len(runs))


def k_words(k: int, runs: list[Run]) -> str:
    """One k's runs in a few words, as In short weighs them: 'at k = 1: A little, under 10% (2 runs, 1.08× and
    1.01×)' (the sidebar's line: review 37 read its newest run's word beside In short's pooled one)."""
    return _("at k = {k}: {answer} ({runs})").format(k=k, answer=word(runs), runs=_runs(runs))


def bottom_line(t: float, runs: dict[int, list[Run]], picked: int | None = None) -> str | None:
    """`runs`: k -> the runs measured at T = `t` (oldest first); the best k is the one whose runs' median is
    highest, its word the box's rule on that median and the range of all its runs, each run's figure named (review
    34: a pooled "1.04×" beside the box's newest "1.00×" read as a second answer); where it is `picked`, the k this
    machine's prices pick, it says so (the verdict then leaves that k to it) (None without any run)."""
    order = ranked(runs)
    if not order:
        return None
    best = runs[order[0]]
    lo, hi = min(r.low for r in best), max(r.high for r in best)
    at = (_("k = {k}, the k this machine's prices pick") if order[0] == picked else _("k = {k}")).format(k=order[0])
    where = _("on this machine") if any(r.here for rs in runs.values() for r in rs) else _(
        "on a machine like this one")                     # shipped runs alone: not "this machine" (review 36)
    figures = dict(k=at, lo=lo, hi=times(hi), t=t, runs=_runs(best), where=where)
    said = word(best)
    if hi < 1:
        text = _("**In short**, at T = {t:g} {where}: no k pays; the best, {k}: {runs} ({lo:.2f}–{hi} "
                 "over the prompts).").format(**figures)
    elif said not in (_("Yes"), _("A little, under {pct:.0%}").format(pct=SMALL)):   # break-even: no gain shown
        text = _("**In short**, at T = {t:g} {where}: no k pays clearly; the nearest, {k}: {runs} ({lo:.2f}–{hi} "
                 "over the prompts).").format(**figures)                   # review 38: "the best is k = 1 …
    else:                                                                  # break-even" read as a win
        said = _("it pays") if said == _("Yes") else said[:1].lower() + said[1:]
        text = _("**In short**, at T = {t:g} {where} the best is {k}: {word} ({runs}; {lo:.2f}–{hi} over "
                 "the prompts).").format(word=said, **figures)          # the answer first (review 35: dense)
    if len(order) > 1:
        text += " " + _("Next: k = {k}, {x}.").format(k=order[1], x=times(statistics.median(
            r.speedup for r in runs[order[1]])))
    return text


def _runs(runs: list[Run]) -> str:
    """A k's runs in words: "one run, 1.08×", or each run's figure, newest last ("2 runs, 1.08× and 1.00×"), each
    named by where it ran where some ran here and some on a machine like this one (review 36: "which to believe?")."""
    if len(runs) == 1:
        return _("one run, {x}").format(x=times(runs[0].speedup))
    mixed = len({r.here for r in runs}) > 1
    xs = [(_("{x} here") if r.here else _("{x} on a machine like this one")).format(x=times(r.speedup)) if mixed
          else times(r.speedup) for r in runs]
    return _("{n} runs, {xs}").format(n=len(runs), xs=_("{first} and {last}").format(first=", ".join(xs[:-1]),
                                                                                      last=xs[-1]))
