"""Settings in st.session_state under stable keys: they survive page switches."""
from __future__ import annotations

import streamlit as st

from specdec.settings import Settings
from ui.catalog import CHOICES

DEFAULTS = {
    "pair_label": CHOICES[0].label,
    "custom_target": "",
    "custom_draft": "",
    "k": 4,
    "temperature": 0.7,
    "top_p": 1.0,
    "seed": 0,
    "max_new_tokens": 48,
    "drafter": "model",
    "policy": "constant",
    "confidence": 0.3,
    "exit_layer": 4,
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
    s = st.session_state
    return Settings(k=int(s.k), temperature=float(s.temperature), top_p=float(s.top_p),
                    seed=int(s.seed), max_new_tokens=int(s.max_new_tokens), drafter=s.drafter,
                    policy=s.policy, confidence=float(s.confidence), exit_layer=int(s.exit_layer))
