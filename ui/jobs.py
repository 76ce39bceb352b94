"""Long computations: a progress bar and a Stop button (a click reruns, which stops the run)."""
from __future__ import annotations

from typing import Callable

import pandas as pd
import streamlit as st

from specdec.errors import InputError
from ui.i18n import _
from ui.server import gate


def run_job(label: str, key: str, fn: Callable):
    """Call fn(progress) with a live progress bar; returns its result."""
    stop = st.empty()
    stop.button(_("Stop"), key=f"{key}_stop", help=_("Stops the computation (partial results are dropped)."))
    bar = st.progress(0.0, label)

    def progress(done: int, total: int, text: str) -> None:
        bar.progress(min(1.0, done / max(1, total)), f"{label}: {text}")

    try:
        with gate.released():      # minutes of work must not hold up other sessions' pages
            result = fn(progress)
    except InputError as err:   # a model that will not load, a bad setting: say so, keep the page
        st.error(_("Could not finish: {why}").format(why=err))
        result = None
    bar.empty()
    stop.empty()
    return result


def csv_button(rows: list[dict], name: str, key: str) -> None:
    st.download_button(_("Download the numbers (CSV)"), pd.DataFrame(rows).to_csv(index=False),
                       f"{name}.csv", "text/csv", key=key)
