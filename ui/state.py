"""Settings in st.session_state under stable keys: they survive page switches."""
from __future__ import annotations

import streamlit as st
import torch

from specdec.models.backend import BACKEND_AUTO
from specdec.models.precision import PRECISION_AUTO
from specdec.settings import Settings, options
from ui.catalog import CHOICES
from ui.lessons import store

# The settings the sidebar shows (Settings declares which, and their defaults).
SIDEBAR = tuple(name for name, (_, opt) in options().items() if opt.widget)
DEFAULTS = {
    "pair_label": CHOICES[0].label,
    "custom_target": "",
    "custom_draft": "",
    "precision": PRECISION_AUTO,  # the target's (load_pair's precision), chosen under the pair
    "backend": BACKEND_AUTO,          # what runs the target's chain passes (load_pair's backend)
    **{name: options()[name][0] for name in SIDEBAR},
    # a request the SmolLM2 pair drafts well (T 0.7, k 4, seed 0: acceptance rate 0.48, 2.67 tokens a
    # round, against 0.19 and 1.71 for the Connection class the lab opened with before): the first
    # rounds a learner steps through accept drafts as well as reject them
    "prompt": "Write a Python function is_even(n) that returns True when n is even.",
    "prompt_mode": "chat",        # chat (through the template, when the model has one) | raw
}


def init() -> None:
    """Fill missing keys with defaults. Streamlit drops the state of widgets that are not
    rendered, so we keep our own copies under `_keep_*` and restore them."""
    for key, value in DEFAULTS.items():
        if key not in st.session_state:
            st.session_state[key] = st.session_state.get(f"_keep_{key}", value)
        else:       # set by the script, not only by its widget: kept while a page without it shows
            st.session_state[key] = st.session_state[key]


SET_BY_BUTTON = "_set_by_button"      # (setting, value, its value before) while a lesson button's change holds


def set_by_button(name: str, value) -> None:
    """A lesson's button sets a sidebar setting (every page then reads it); the sidebar says so under its control
    while the value holds (review 48: "Show it at k = 1" moved the sidebar's k, and other pages changed unsaid)."""
    st.session_state[SET_BY_BUTTON] = (name, value, st.session_state.get(name))
    st.session_state[name] = value


def set_by_button_was(name: str):
    """The value `name` had before a lesson's button set it, while that setting holds (else None)."""
    held = st.session_state.get(SET_BY_BUTTON)
    if not held or held[0] != name or st.session_state.get(name) != held[1]:
        return None
    return held[2]


def remember() -> None:
    for key in DEFAULTS:
        if key in st.session_state:
            st.session_state[f"_keep_{key}"] = st.session_state[key]


def settings() -> Settings:
    """The sidebar's settings; a widget may hand back 4.0 for 4, so each takes its default's type."""
    return Settings(**{name: type(DEFAULTS[name])(st.session_state[name]) for name in SIDEBAR})


def backend() -> str:
    """The target backend the sidebar asks for ("auto": the faster one on this machine)."""
    return str(st.session_state.get("backend", BACKEND_AUTO))


def precision() -> str:
    """The target precision the sidebar asks for ("auto": the machine's fastest one-token step)."""
    return str(st.session_state.get("precision", PRECISION_AUTO))


def ran() -> store.Ran:
    """How the target runs now, part of every measurement's key (ui/lessons/store.py): the
    sidebar's precision and backend — a torch figure and an ONNX one are two figures — and
    torch's threads."""
    return store.Ran(precision(), backend(), torch.get_num_threads())
