"""In short: one sentence of what every run of a pair at one temperature measured on this machine (or one of
its CPU model), across k — the k where speculation does best here, by the box's rule, and the next best
(review 33: "nowhere does one sentence give the bottom line, such as 'here, at best break-even, at k = 1'")."""
from __future__ import annotations

import statistics
from typing import NamedTuple

from specdec.wording import _, times
from ui.lessons.payoff_words import answer_word


class Run(NamedTuple):
    """One run's speedup over a whole prompt set, and its range over those prompts."""
    speedup: float
    low: float
    high: float


def bottom_line(t: float, runs: dict[int, list[Run]]) -> str | None:
    """`runs`: k -> the runs measured at T = `t`; the best k is the one whose runs' median is highest, its word
    the box's rule on that median and the range of all its runs (None without any run)."""
    runs = {k: rs for k, rs in runs.items() if rs}
    if not runs:
        return None
    order = sorted(runs, key=lambda k: -statistics.median(r.speedup for r in runs[k]))
    best = runs[order[0]]
    x, lo, hi = statistics.median(r.speedup for r in best), min(r.low for r in best), max(r.high for r in best)
    n = sum(len(rs) for rs in runs.values())
    figures = dict(k=order[0], x=times(x), lo=lo, hi=times(hi), m=len(best), n=n, t=t)
    if hi < 1:
        text = _("**In short**, at T = {t:g} on this machine: no k pays; the best, k = {k}, {x} ({lo:.2f}–{hi}; "
                 "{m} of {n} runs).").format(**figures)
    else:
        word = answer_word(x, lo, hi)
        word = _("it pays") if word == _("Yes") else word[:1].lower() + word[1:]
        text = _("**In short**, at T = {t:g} on this machine: at best {word}, at k = {k}: {x} ({lo:.2f}–{hi}; {m} "
                 "of {n} runs).").format(word=word, **figures)
    if len(order) > 1:
        text += " " + _("Next: k = {k}, {x}.").format(k=order[1], x=times(statistics.median(
            r.speedup for r in runs[order[1]])))
    return text
