"""The words of the figure store (ui/lessons/store.py): how a page names a clock and a prompt set, and
the line under a figure whose setting another section measured on other prompts."""
from __future__ import annotations

from typing import Callable

from specdec.records.provenance import Clock
from specdec.wording import _
from ui.lessons import store
from ui.lessons.bench_words import drafter_name, machine_name


def clock_name(clock: Clock) -> str:
    return _("CPU time") if clock == Clock.CPU else _("wall-clock")


def set_name(p: store.PromptSet, kind_name: Callable[[str], str] = str) -> str:
    """How a page names a prompt set (its id is fixed; the words are translated)."""
    n, t = p.size, p.new_tokens
    if p.name == "speed":
        return (_("{n} code and structured chats × {t} tokens (When it is fast)") if p.chat else
                _("{n} code and structured prompts × {t} tokens (When it is fast)")).format(n=n, t=t)
    group, _sep, kind = p.name.partition("/")
    if group == "drafters" and kind in ("", "all"):
        return (_("{n} chats of every kind × {t} tokens (Drafters compared)") if p.chat else
                _("{n} prompts of every kind × {t} tokens (Drafters compared)")).format(n=n, t=t)
    if group == "drafters" and n == 1:
        return (_("1 chat of the kind “{kind}” × {t} tokens (Drafters compared)") if p.chat else
                _("1 prompt of the kind “{kind}” × {t} tokens (Drafters compared)")).format(t=t, kind=kind_name(kind))
    if group == "drafters":
        return (_("{n} chats of the kind “{kind}” × {t} tokens (Drafters compared)") if p.chat else
                _("{n} prompts of the kind “{kind}” × {t} tokens (Drafters compared)")).format(
            n=n, t=t, kind=kind_name(kind))
    return (_("{n} chats × {t} tokens") if p.chat else _("{n} prompts × {t} tokens")).format(n=n, t=t)


def elsewhere_caption(points, key_of: Callable[[object], store.Key | None], source: str,
                      label: Callable[[object], str], kind_name: Callable[[str], str] = str,
                      shipped_from: str | None = None, priced: dict | None = None) -> str | None:
    """One line per point whose setting another section measured on other prompts: its newest
    figure there, and that the prompts are the difference (None when no point has one). A drafter's
    name that `label` gives ('n-gram lookup') is shown in the page's language. `shipped_from`: the
    CPU that measured `points` (shipped with the app; None: this machine), named, never called
    "here", with `priced` (label -> its speedup at this machine's prices) where it could be."""
    lines = []
    for point in points:
        k = key_of(point)
        for other, entry in store.elsewhere(k, source)[:1] if k is not None else []:
            lines.append(_elsewhere_line(point, k, other, entry.figure, label, kind_name, shipped_from,
                                         (priced or {}).get(label(point))))
    if not lines:
        return None
    head = (_("The same settings measured on other prompts (the prompts are the difference, so "
              "the figures differ):") if shipped_from is None else
            _("The same settings measured here on other prompts, beside this page's figures from {cpu}: both "
              "the prompts and the machine differ. Acceptance depends on the prompts; the speed also on the "
              "machine's prices.").format(cpu=machine_name(shipped_from)))
    return head + "\n\n" + "\n\n".join("- " + line for line in lines)


def _elsewhere_line(point, k: store.Key, other: store.Key, fig: store.Figure, label, kind_name,
                    shipped_from: str | None,
                    priced: float | None) -> str:
    """One drafter's figure measured here on other prompts, and this page's (`shipped_from`: its CPU)."""
    name = drafter_name(label(point))
    ours = dict(here=point.speedup or 0.0, clock_here=clock_name(k.clock), acc_here=point.acceptance_rate or 0.0,
                this=set_name(k.prompts, kind_name))
    theirs = dict(speedup=fig.speedup or 0.0, acc=fig.acceptance_rate or 0.0, clock=clock_name(other.clock),
                  other=set_name(other.prompts, kind_name))
    if shipped_from is None:
        return _("{name}: {speedup:.2f}× ({clock}) and acceptance rate {acc:.0%} on {other}; here "
                 "{here:.2f}× ({clock_here}) and {acc_here:.0%} on {this}.").format(name=name, **theirs, **ours)
    line = _("{name}: here {speedup:.2f}× ({clock}) and acceptance rate {acc:.0%} on {other}; on {cpu}, for "
             "comparison, {shipped:.2f}× ({clock_shipped}) and {acc_shipped:.0%} on {shipped_set}").format(
        name=name, cpu=machine_name(shipped_from), shipped=ours["here"], clock_shipped=ours["clock_here"],
        acc_shipped=ours["acc_here"], shipped_set=ours["this"], **theirs)
    return line + (_("; its tokens a round at this machine's prices: {priced:.2f}×.").format(priced=priced)
                   if priced is not None else ".")
