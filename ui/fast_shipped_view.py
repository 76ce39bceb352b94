"""A shipped result the sidebar's settings would hide (issue 51, deliverable 6): When it is fast's
k sweep and draft sizes are shipped at one T and k; a learner whose sidebar asks for another still
sees the shipped result, labelled with its CPU and settings, beside the learner's own; and where
this machine measured a shipped result's setting itself, its own figure beside it (`here_too`)."""
from __future__ import annotations

import json
from dataclasses import replace

import streamlit as st

from specdec.records.provenance import Clock
from specdec.wording import times
from ui.figures import fast as lp
from ui.i18n import _
from ui.lessons import badges, shipped, store
from ui.lessons.bench_words import drafter_name, machine_name, machine_short
from ui.lessons.payoff_words import SOURCES, span
from ui.round_view import chart
from ui.safe import md

VARY = ("T", "k")          # the sidebar's settings a shipped key may differ in


def nearby(kind: str, key: dict, record, vary: tuple = VARY) -> tuple[dict, object] | None:
    """(key, record) of a shipped result of `kind` whose key differs from `key` only in `vary`;
    None where the key's own result is shipped (the page shows that one) or none is near."""
    if shipped.load(kind, key, record) is not None:
        return None
    mine = {n: v for n, v in json.loads(json.dumps(key, default=str)).items() if n not in vary}
    for theirs, found in shipped.all_of(kind, record):
        if {n: v for n, v in theirs.items() if n not in vary} == mine:
            return theirs, found
    return None


def _label(key: dict, found, settings) -> str:
    t, k = key.get("T", settings.temperature), key.get("k", settings.k)
    return _("For comparison, shipped with the app: measured on {cpu} at T = {t:g}{k} (your sidebar: T = "
             "{mine_t:g}, k = {mine_k}; not this machine).").format(
        cpu=machine_name(found.provenance.cpu or "?"), t=float(t), k=f", k = {k}" if "k" in key else "",
        mine_t=settings.temperature, mine_k=settings.k)


def ksweep(key: dict, record, settings) -> None:
    """The shipped k sweep at another T: its best k and a chart of it."""
    near = nearby("ksweep", key, record)
    if near is None:
        return
    theirs, found = near
    points = list(found.points)
    best = max(points, key=lambda p: p.speedup)
    alpha = sum(p.alpha for p in points) / len(points)
    with st.container(border=True):
        st.caption(_label(theirs, found, settings))
        st.markdown(_("There: best **{best:.2f}×** at k = {k}, α̂ = {alpha:.2f}, c = {c:.3f}.").format(
            best=best.speedup, k=best.k, alpha=alpha, c=points[0].c))
        chart(lp.theory_figure(round(alpha, 2), settings.k, points[0].c, points, k_max=8,
                               measured_on=machine_short(found.provenance.cpu or "?")), "fast-shipped-ksweep")


def tradeoff(key: dict, record, settings) -> None:
    """The shipped draft sizes at another T or k: the fastest draft and a chart of them."""
    near = nearby("tradeoff", key, record)
    if near is None:
        return
    theirs, found = near
    points = sorted(found.points, key=lambda p: p.params)
    best = max(points, key=lambda p: p.speedup)
    with st.container(border=True):
        st.caption(_label(theirs, found, settings))
        st.markdown(_("There: the fastest is {draft} at **{speedup:.2f}×**.").format(
            draft=drafter_name(best.draft.split("/", 1)[-1]), speedup=best.speedup))
        chart(lp.tradeoff_figure(points, "speedup", _("Speedup by draft size (shipped)")), "fast-shipped-tradeoff")


def here_too(points, key_of) -> None:
    """A shipped trade-off's drafts that this machine measured itself at the same setting and
    prompts (the k sweep, section 2): that figure, the one the box above states, beside the
    shipped one — never the shipped figure under this machine's name."""
    for p in points:
        k = key_of(p)
        found = [e for c in Clock if k is not None and (e := store.read(replace(k, clock=c))) is not None]
        if not found:
            continue
        newest = max(found, key=lambda e: e.at)
        f = newest.figure
        st.markdown(badges.here() + " " + _("{draft} at these settings: **{speedup}** the target alone "
                                            "({span}), measured by {section}.").format(
            draft=md(drafter_name(p.draft)), speedup=times(f.speedup), section=_(SOURCES.get(newest.source,
                                                                                              newest.source)),
            span=span(f.speedup_min or f.speedup, f.speedup_max or f.speedup)))    # not "0.69–0.69×" (review 37)
