"""Settings in st.session_state under stable keys: they survive page switches."""
from __future__ import annotations

import streamlit as st

from specdec.settings import Settings, options
from ui.catalog import CHOICES

# The settings the sidebar shows (Settings declares which, and their defaults).
SIDEBAR = tuple(name for name, (_, opt) in options().items() if opt.widget)
DEFAULTS = {
    "pair_label": CHOICES[0].label,
    "custom_target": "",
    "custom_draft": "",
    "precision": "auto",          # the target's (load_pair's precision), chosen under the pair
    "backend": "auto",            # what runs the target's chain passes (load_pair's backend)
    **{name: options()[name][0] for name in SIDEBAR},
    "prompt": "Write a Python class Connection that keeps a host and an optional port, "
              "with a method that returns them as 'host:port'.",
    "prompt_mode": "chat",        # chat (through the template, when the model has one) | raw
}


def init() -> None:
    """Fill missing keys with defaults. Streamlit drops the state of widgets that are not
    rendered, so we keep our own copies under `_keep_*` and restore them."""
    for key, value in DEFAULTS.items():
        if key not in st.session_state:
            st.session_state[key] = st.session_state.get(f"_keep_{key}", value)


def remember() -> None:
    for key in DEFAULTS:
        if key in st.session_state:
            st.session_state[f"_keep_{key}"] = st.session_state[key]


def settings() -> Settings:
    """The sidebar's settings; a widget may hand back 4.0 for 4, so each takes its default's type."""
    return Settings(**{name: type(DEFAULTS[name])(st.session_state[name]) for name in SIDEBAR})


def backend() -> str:
    """The target backend the sidebar asks for ("auto": the faster one on this machine)."""
    return str(st.session_state.get("backend", "auto"))


def precision() -> str:
    """The target precision the sidebar asks for ("auto": the machine's fastest one-token step)."""
    return str(st.session_state.get("precision", "auto"))


def measured_as() -> str:
    """How the target multiplied, for a figure's store key (ui/lessons/store.py): the precision,
    and the backend when it is not auto — a torch figure and an ONNX one are two figures."""
    return precision() if backend() == "auto" else f"{precision()}/{backend()}"
