"""Every price of the active draft that the lab shows, in one list (issue 51): c, a draft step
over a target step, and v(k + 1), a pass of k + 1 tokens over a target step, from

    this machine's profile    measured at start; every prediction on every page uses this line
    measurements filed here   each run paid its own prices (timings move with the machine's load)
    shipped results           paid another machine's (or a machine like this one's)

each row with its badge (badges.py), so a learner who meets c = 0.14 on one page and 0.18 on
another finds both here and sees whose each is.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from specdec.bench.compared import ALL, DrafterTable
from specdec.bench.points import Sweep
from specdec.wording import _
from ui.lessons import badges, shipped, store
from ui.lessons.payoff_words import SOURCES


@dataclass(frozen=True)
class PriceRow:
    whose: str              # a badge
    what: str               # which measurement, in words
    c: float | None         # draft step / target step
    v: float | None         # a pass of k + 1 tokens / a target step (None: not measured at that width)


def rows(profile, target: str, draft: str, k: int, temperature: float) -> list[PriceRow]:
    """The profile's row first (None: not measured yet), then this machine's measurements, newest
    first, then the shipped ones at the sidebar's k and T."""
    first = [] if profile is None else [PriceRow(badges.profile(), _("measured at start ({when})").format(
        when=profile.measured_at), profile.c.get(draft), profile.v.get(k + 1))]
    return first + filed(target, draft, k) + shipped_rows(target, draft, k, temperature)


def filed(target: str, draft: str, k: int) -> list[PriceRow]:
    """This machine's measurements of the draft, the newest of each section, with the v(k + 1) its runs
    paid where it drafted a constant k (other ks pass other widths; a policy mixes them)."""
    newest: dict[str, tuple] = {}
    for key, entry in store.filed_of(target, draft):
        if entry.figure.c is not None and entry.source not in newest:
            newest[entry.source] = (key, entry)
    return [PriceRow(badges.here(), _("{section} at {k}").format(section=_(SOURCES.get(source, source)),
                                                                k=_k_words(key))
                     + time.strftime(" (%H:%M)", time.localtime(e.at)),
                     e.figure.c, e.figure.verify_cost if (key.k, key.policy) == (k, "constant") else None)
            for source, (key, e) in newest.items()]


def _k_words(key: store.Key) -> str:
    """'k = 1', or 'k by a policy, up to 4': the draft length a filed figure ran (a c paid at k = 1 is dearer
    a step than at k = 4: every draft step of a round of one reads the tokens the last round emitted)."""
    if key.policy == "constant":
        return _("k = {k}").format(k=key.k)
    return _("k by its policy, up to {k}").format(k=key.k)


def shipped_rows(target: str, draft: str, k: int, temperature: float) -> list[PriceRow]:
    """The shipped k sweep (c and v(k + 1) at k), draft sizes and drafter comparison of this draft at the
    sidebar's T (and k, where the result fixes one): the ones those pages show, each as the page picks it (this CPU
    model's before another's), the newest of each (review 45: the sidebar credited a k sweep at T = 0 from
    another CPU to a page that showed T = 0.7's)."""
    out = []
    for key, sweep in shipped.all_of("ksweep", Sweep):
        at_k = [p for p in sweep.points if p.k == k]
        if key.get("pair") == [target, draft] and _same(key.get("T"), temperature) and at_k:
            out.append(_row(sweep, "ksweep", at_k[0].c, at_k[0].verify_cost))
    for key, sweep in shipped.all_of("tradeoff", Sweep):
        mine = [p for p in sweep.points if p.draft == draft]
        if key.get("target") == target and key.get("k") == k and _same(key.get("T"), temperature) and mine:
            out.append(_row(sweep, "tradeoff", mine[0].c, None))     # its points price no pass (v = 1 there)
    for key, table in shipped.all_of("drafters", DrafterTable):
        mine = [p for p in table.points if p.kind == ALL and p.drafter == draft.split("/", 1)[-1]]
        ran = key.get("settings") or {}
        if key.get("target") == target and ran.get("k") == k and _same(ran.get("temperature"), temperature) \
                and mine:
            out.append(_row(table, "drafters", mine[0].c, None))
    return _newest_of_each(out)


def _same(t: float | None, temperature: float) -> bool:
    """A result's T is the sidebar's (a slider's float may carry a last-digit error)."""
    return t is not None and abs(t - temperature) < 1e-6


def pass_price_on(cpu: str, target: str, k: int) -> float | None:
    """v(k + 1) as the machine `cpu` paid it in the newest k sweep shipped from it for this target
    (a pass's price is the target's; None: none was): what a shipped comparison's rounds paid at
    least, on that machine."""
    found = [(sweep.provenance.date or "", p.verify_cost) for key, sweep in shipped.all_of("ksweep", Sweep)
             if (key.get("pair") or [None])[0] == target and sweep.provenance.cpu == cpu
             for p in sweep.points if p.k == k]
    return max(found)[1] if found else None


def _newest_of_each(found: list[tuple[str, tuple[bool, str], PriceRow]]) -> list[PriceRow]:
    """One shipped row per section: this CPU model's before another's, then the newest (an older file kept for
    another key says no more)."""
    newest: dict[str, tuple[tuple[bool, str], PriceRow]] = {}
    for source, rank, row in found:
        if source not in newest or rank > newest[source][0]:
            newest[source] = (rank, row)
    return [row for _rank, row in newest.values()]


def _row(result, source: str, c: float | None, v: float | None) -> tuple[str, tuple[bool, str], PriceRow]:
    """(section, (this CPU model's, date), its row): the CPU as recorded (the sidebar is narrow)."""
    when, cpu = result.provenance.date or "?", result.provenance.cpu
    return source, (shipped.alike(cpu), when), PriceRow(badges.shipped(cpu, short=True),
                                                          _(SOURCES[source]) + f" ({when})", c, v)


def markdown(found: list[PriceRow], k: int) -> str:
    """The rows as a Markdown list, one line a row, so the sidebar's narrow column wraps them
    (a table's columns were cut there); a price a row does not have is left out."""
    def prices(r: PriceRow) -> str:
        said = [f"c = {r.c:.3f}"] if r.c is not None else []
        said += [f"v({k + 1}) = {r.v:.2f}"] if r.v is not None else []
        return ", ".join(said) or "—"
    return "\n".join(f"- {r.whose} {r.what}: **{prices(r)}**" for r in found)
