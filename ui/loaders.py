"""Models load once per process (st.cache_resource) and are shared read-only."""
from __future__ import annotations

import gc

import streamlit as st
import torch

import specdec
from specdec.models.backend import BACKEND_AUTO
from specdec.models.precision import PRECISION_AUTO
from specdec.settings import THREADS
from specdec.wording import N_
from ui.catalog import allowed, hosted

# Batch-1 decoding of small models: one intra-op thread is as fast as two and does not
# collapse when other sessions or processes use the cores (measured: 25 ms vs 1.5 s a round).
torch.set_num_threads(THREADS)


# Every call passes all four arguments: Streamlit keys an entry by the arguments as passed, not by their
# defaults, so a preload that left `backend` to its default had loaded a pair no page ever found (the first
# visit loaded the default pair a second time, and the server held two).
@st.cache_resource(show_spinner=False, max_entries=4)
def _load(target: str, draft: str | None, precision: str, backend: str) -> specdec.Pair:
    pair = specdec.load_pair(target, draft, precision=precision, backend=backend)
    gc.collect()
    gc.freeze()     # the models live as long as the server: later collections skip their objects
    return pair


def load(target: str, draft: str | None) -> specdec.Pair:
    """Load (or fetch from cache) a pair, its target in the session's precision and backend (the sidebar's);
    raises specdec.LoadError with a clear message."""
    if not allowed(target, draft):
        raise specdec.LoadError(N_("this deployment only loads the listed models (hosted mode)"))
    from ui.i18n import _
    with st.spinner(_("Loading {target} and {draft} …").format(target=target,
                                                               draft=draft or _("no draft model"))):
        return _load(target, draft, st.session_state.get("precision", PRECISION_AUTO),
                     st.session_state.get("backend", BACKEND_AUTO))


def preload() -> None:
    """Load the default pair into the cache the pages read (ui/server/serve.py calls this while the
    server starts, so a first visit does not wait for it); a pair that fails to load is left
    for the page to report."""
    from ui.catalog import CHOICES
    try:
        _load(CHOICES[0].target, CHOICES[0].draft, PRECISION_AUTO, BACKEND_AUTO)
    except specdec.LoadError:
        pass


def cached(target: str, draft: str | None) -> specdec.Pair | None:
    """The pair preload() loaded (None when it failed to load)."""
    try:
        return _load(target, draft, PRECISION_AUTO, BACKEND_AUTO)
    except specdec.LoadError:
        return None


def describe(err: specdec.LoadError) -> str:
    """The message, with its fix unless hosted (hosted users cannot download or pass paths)."""
    from ui.i18n import _
    worded = getattr(err, "worded", None)
    if worded is None:
        return str(err).rstrip(".")
    return (worded(_, with_fix=not hosted()) if isinstance(err, specdec.LoadError) else worded(_)).rstrip(".")
