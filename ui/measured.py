"""One way to show a measurement on a page: earlier result → button → job → keep → show.

The result of a successful job is kept (on disk per machine and weights, or in the
session for results that are not JSON); a failed or stopped job is never kept. Where this
machine has none, a result measured ahead and shipped with the app (ui/lessons/shipped.py) is
shown with where and when it was measured, and the button measures here instead.
"""
from __future__ import annotations

import json
from typing import Any, Callable

import streamlit as st

from specdec.records.provenance import Provenance
from ui import jobs
from ui.i18n import _
from ui.lessons import badges, result_cache, shipped
from ui.lessons.bench_words import machine_name


def _session_store() -> dict:
    return st.session_state.setdefault("_measured", {})


def _load(kind: str, key: dict, record, on_disk: bool):
    if on_disk:
        return result_cache.load(kind, key, record)
    return _session_store().get((kind, json.dumps(key, sort_keys=True, default=str)))


def _save(kind: str, key: dict, value, on_disk: bool) -> None:
    if on_disk:
        result_cache.save(kind, key, value)
    else:
        _session_store()[(kind, json.dumps(key, sort_keys=True, default=str))] = value


def measured(kind: str, key: dict, job: Callable[[Callable], Any], *, button: str, intro: str, record=None,
             on_disk: bool = True, on_fresh: Callable[[Any], None] | None = None) -> Any | None:
    """The kept result for (kind, key), or a fresh one when the button is clicked; None (and
    `intro` shown) while there is none. `job(progress)` computes it with a progress bar: on disk,
    a measurement record of type `record` (records/codec.py: it carries its provenance);
    `on_fresh(result)` runs once on a fresh result (to file its figures: ui/lessons/store.py).
    `key`: store.measurement(kind, ..., ran=state.ran()), how the target ran included."""
    result = _load(kind, key, record, on_disk)
    ahead = shipped.load(kind, key, record) if result is None and on_disk else None
    label = _("Measure on this machine") if ahead else _("Recompute") if result else button
    if st.button(label, key=f"{kind}_run", type="secondary" if result or ahead else "primary"):
        fresh = jobs.run_job(button, f"{kind}_job", job)
        if fresh is not None:
            _save(kind, key, fresh, on_disk)
            if on_fresh is not None:
                on_fresh(fresh)
            if on_disk and shipped.shipping():
                shipped.save(kind, key, fresh)
            st.rerun()              # drawn again from the kept result, under "Recompute"
    if ahead:
        result = ahead
        st.caption(ahead_label(ahead.provenance))
    if not result:
        st.write(intro)
    return result


def local(kind: str, key: dict, record) -> bool:
    """Is the result for (kind, key) this machine's own (kept on disk), not a shipped one?"""
    return result_cache.load(kind, key, record) is not None


def shipped_only(kind: str, key: dict, record):
    """The shipped record the page shows for (kind, key) when none is kept on this machine; else None."""
    return None if result_cache.load(kind, key, record) is not None else shipped.load(kind, key, record)


def ahead_label(where: Provenance) -> str:
    """Where and when a shipped result was measured, after its badge (ui/lessons/badges.py): on a
    CPU of this machine's model "a machine like this one", never "this machine" and never "not this
    machine"; the load it ran under where the record holds it."""
    text = _("Shipped: measured on {date} ({cores} cores, {threads} torch thread(s), {minutes:.1f} min").format(
        cores=where.cores or "?", threads=where.threads or "?", date=where.date or "?",
        minutes=(where.seconds or 0) / 60)
    if where.load is not None:
        text += _(", under load {load:.1f} per core").format(load=where.load)
    # another CPU model: another machine; this model, or its family only ("perhaps another one"): not said
    other = _("Another machine's numbers.") + " " if machine_name(where.cpu or "?") == where.cpu else ""
    return badges.shipped(where.cpu) + " " + text + "). " + other + _("“Measure on this machine” measures here.")
