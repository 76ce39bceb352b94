"""The words of When it is fast's re-priced sweeps (specdec/bench/repriced.py): a sweep shipped
from another machine, its tokens a round at this machine's prices."""
from __future__ import annotations

from specdec.bench.repriced import Repriced
from specdec.wording import N_, _
from ui.lessons import badges
from ui.lessons.bench_words import cpu_name, drafter_name

TRAVEL = N_("Tokens a round travel between machines (they depend on the models and the text); prices do not "
          "(they are the machine's).")


def no_profile(cpu: str) -> str:
    return _("This machine ({cpu}) has no profile for this pair yet, so the shipped figures cannot be priced "
             "again here; the lab measures one in the background after it starts.").format(cpu=cpu_name(cpu))


def k_sweep(here: list[Repriced], cpu: str) -> str:
    """One sentence: what the shipped sweep's tokens a round predict here, at k = 1 and at its best k."""
    first, best = here[0], max(here, key=lambda r: r.speedup)
    text = badges.predicted() + " " + _(
        "**Here ({cpu}), priced again:** the same tokens a round at this machine's c = {c:.3f} and v(k + 1) "
             "predict **{first:.2f}×** at k = {k1}").format(cpu=cpu_name(cpu), c=first.c, first=first.speedup,
                                                          k1=first.point.k)
    text += _(", its best.") if best is first else _(" and at best **{best:.2f}×** at k = {kb}.").format(
        best=best.speedup, kb=best.point.k)
    return text + " " + _(TRAVEL)


def drafts(here: list[Repriced], cpu: str) -> str:
    """One sentence: each draft's predicted speedup here, the fastest first."""
    ranked = sorted(here, key=lambda r: -r.speedup)
    each = ", ".join(_("{draft} {speedup:.2f}× (c = {c:.2f})").format(
        draft=drafter_name(r.point.draft.split("/", 1)[-1]), speedup=r.speedup, c=r.c) for r in ranked)
    return badges.predicted() + " " + _(
        "**Here ({cpu}), priced again** at k = {k} with each draft's c on this machine: {each}.").format(
        cpu=cpu_name(cpu), k=ranked[0].point.k, each=each) + " " + _(TRAVEL)
