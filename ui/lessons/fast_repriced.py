"""The words of When it is fast's re-priced sweeps (specdec/bench/repriced.py): a sweep shipped
from another machine, its tokens a round at this machine's prices."""
from __future__ import annotations

from specdec.bench.repriced import Repriced
from specdec.wording import N_, _
from ui.lessons import badges
from ui.lessons.bench_words import cpu_name, drafter_name

TRAVEL = N_("Tokens a round travel between machines (they depend on the models and the text); prices do not "
          "(they are the machine's).")

LOOKUPS = N_("A lookup (n-gram, suffix match) runs no model (c = 0) and drafts only what it finds, d tokens a "
             "round with d from 0 to k: its rounds are priced at v(d̄ + 1), a pass over the tokens it drafted a "
             "round on average plus one.")


def no_profile(cpu: str) -> str:
    return _("This machine ({cpu}) has no profile for this pair yet, so the shipped figures cannot be priced "
             "again here; the lab measures one in the background after it starts.").format(cpu=cpu_name(cpu))


def priced_again(here: list[Repriced], cpu: str) -> str:
    """The lead of a re-priced sentence: whole runs where every point recorded what its runs paid
    besides their rounds (the prefill, the bookkeeping: repriced.overheads), else rounds only."""
    if all(r.over for r in here):
        return _("**Here ({cpu}), priced again, whole runs**").format(cpu=cpu_name(cpu))
    return _("**Here ({cpu}), priced again, rounds only**").format(cpu=cpu_name(cpu))


def k_sweep(here: list[Repriced], cpu: str) -> str:
    """One sentence: what the shipped sweep's tokens a round predict here, at k = 1 and at its best k
    (what travels between machines goes in its help: `TRAVEL`)."""
    first, best = here[0], max(here, key=lambda r: r.speedup)
    said = _("**Here ({cpu}), priced again, whole runs:** the same tokens a round at this machine's c = {c:.3f} and "
             "v(k + 1), with the prefill and bookkeeping as that sweep's runs paid them, predict "
             "**{first:.2f}×** at k = {k1}") if first.over else _(
        "**Here ({cpu}), priced again, rounds only:** the same tokens a round at this machine's c = {c:.3f} and "
        "v(k + 1) predict **{first:.2f}×** at k = {k1}")
    text = badges.predicted() + " " + said.format(cpu=cpu_name(cpu), c=first.c, first=first.speedup, k1=first.point.k)
    text += _(", its best.") if best is first else _(" and at best **{best:.2f}×** at k = {kb}.").format(
        best=best.speedup, kb=best.point.k)
    return text


def item(name: str, r: Repriced) -> str:
    """One drafter priced here: its speedup and its price (c for a model; for a lookup, the tokens
    it drafted a round, whose pass it paid)."""
    if r.found:
        return _("{drafter} {speedup:.2f}× ({d:.1f} drafted a round)").format(
            drafter=drafter_name(name), speedup=r.speedup, d=r.drafts)
    return _("{drafter} {speedup:.2f}× (c = {c:.2f})").format(drafter=drafter_name(name), speedup=r.speedup, c=r.c)


def drafts(here: list[Repriced], cpu: str) -> str:
    """One sentence: each draft's predicted speedup here, the fastest first (what travels, and how
    a lookup is priced, go in its help: `TRAVEL`, `LOOKUPS`)."""
    ranked = sorted(here, key=lambda r: -r.speedup)
    each = ", ".join(item(r.point.draft.split("/", 1)[-1], r) for r in ranked)
    return badges.predicted() + " " + _("{lead} at k = {k} with each draft's c on this machine: {each}.").format(
        lead=priced_again(here, cpu), k=ranked[0].point.k, each=each)
