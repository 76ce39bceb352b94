"""The caption under the per-position curves: how drafts survived against the speed formula's
single α (the numbers: specdec/trace/survival.py)."""
from __future__ import annotations

from specdec.trace.survival import MIN_ROUNDS, Survival
from specdec.wording import _


def survival_caption(s: Survival) -> str:
    """What the positions show against one α, and how the previous round's end matters (a caption
    under the per-position curves, which show the share of rounds whose first i drafts survived)."""
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
    return text + "\n\n" + more.format(a=a / n_a, n_a=n_a, b=b / n_b, n_b=n_b)      # two paragraphs: three lines each
