"""Long computations: a progress bar and a Stop button (a click reruns, which stops the run)."""
from __future__ import annotations

from typing import Callable

import pandas as pd
import streamlit as st

from specdec.errors import InputError
from ui.i18n import _
from ui.server import gate

RUNNING = "_job_running"          # session key: the job under way (its label, progress, page) until it ends
LEFT = "_job_left"                # a job stopped by leaving its page: said again when the learner comes back
PAGE = "_page_now"                # the page this run draws (its file's name), set first by shell.page


def run_job(label: str, key: str, fn: Callable):
    """Call fn(progress) with a live progress bar; returns its result. A click or a page switch stops it
    (Streamlit ends the run at its next progress update): the next page run says so (`stopped_note`)."""
    stop = st.empty()
    stop.button(_("Stop"), key=f"{key}_stop", help=_("Stops the computation (partial results are dropped)."))
    bar = st.progress(0.0, label)
    running = st.session_state[RUNNING] = {"label": label, "done": 0, "total": 0,
                                           "page": page_now()}

    def progress(done: int, total: int, text: str) -> None:
        bar.progress(min(1.0, done / max(1, total)), f"{label}: {text}")    # a stop is raised here: before the count
        running.update(done=done, total=total)                              # moves past what the page showed

    try:
        with gate.released():      # minutes of work must not hold up other sessions' pages
            result = fn(progress)
    except InputError as err:   # a model that will not load, a bad setting: say so, keep the page
        st.error(_("Could not finish: {why}").format(why=err))
        result = None
    except Exception:           # a fault, not a click: the page reports it, not "you left"
        st.session_state.pop(RUNNING, None)
        raise
    st.session_state.pop(RUNNING, None)           # it ended: nothing to report (Streamlit's stop of a run on a click
                                                  # is a BaseException: it passes and leaves the record)
    bar.empty()
    stop.empty()
    return result


def stopped_note() -> str | None:
    """On the run after a job was stopped by a click or by leaving its page: what stopped and how far it had
    come (review 42: a measurement left mid-way was dropped without a word); said on the page the learner went
    to, and again on the job's own page when they come back (review 45: the box there showed nothing of it);
    None where there is nothing to say."""
    here = page_now()
    job = st.session_state.pop(RUNNING, None)
    if job is None:
        left = st.session_state.get(LEFT)
        if left is None or left.get("page") != here:
            return None
        job = st.session_state.pop(LEFT)
    elif job.get("page") not in (None, here):
        st.session_state[LEFT] = dict(job)             # a page switch: its own page says it again, as said here
                                                       # (review 46: "1 of 6 steps" there, "2 of 6" back here)
    where = _(" after {done} of {total} steps").format(**job) if job["total"] else ""
    return _("“{label}” stopped{where}, because you clicked or left its page; its partial results were dropped. "
             "Press its button again to run it.").format(label=job["label"], where=where)


def page_now() -> str | None:
    """Which page this run draws (None before any page said so)."""
    return st.session_state.get(PAGE)


def csv_button(rows: list[dict], name: str, key: str) -> None:
    st.download_button(_("Download the numbers (CSV)"), pd.DataFrame(rows).to_csv(index=False),
                       f"{name}.csv", "text/csv", key=key)
