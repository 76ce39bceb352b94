"""Models load once per process (st.cache_resource) and are shared read-only."""
from __future__ import annotations

import streamlit as st
import torch

import specdec
from ui.catalog import allowed

torch.set_num_threads(max(1, min(2, torch.get_num_threads())))


@st.cache_resource(show_spinner=False, max_entries=4)
def _load(target: str, draft: str | None) -> specdec.Pair:
    return specdec.load_pair(target, draft)


def load(target: str, draft: str | None) -> specdec.Pair:
    """Load (or fetch from cache) a pair; raises specdec.LoadError with a clear message."""
    if not allowed(target, draft):
        raise specdec.LoadError("this deployment only loads the listed models (hosted mode)")
    with st.spinner(f"Loading {target} and {draft or 'no draft model'} …"):
        return _load(target, draft)
