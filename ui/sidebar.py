"""The sidebar shared by every page: model pair, sampling settings, drafter, policy."""
from __future__ import annotations

import streamlit as st

import specdec
from specdec.drafters import DRAFTERS
from specdec.policies import POLICIES
from ui import catalog, loaders, state


def _requested() -> tuple[str, str | None] | None:
    choice = catalog.by_label(st.session_state.pair_label)
    if choice is not None:
        return choice.target, choice.draft
    target, draft = st.session_state.custom_target.strip(), st.session_state.custom_draft.strip()
    return (target, draft) if target and draft else None


def _pair_widgets() -> None:
    st.selectbox("Model pair (target ← draft)", catalog.labels(), key="pair_label",
                 help="The embedded family works offline; hub pairs need a connection or a "
                      "local Hugging Face cache.")
    if st.session_state.pair_label == catalog.CUSTOM:
        st.text_input("Target: hub id or local directory", key="custom_target",
                      placeholder="e.g. openai-community/gpt2-medium")
        st.text_input("Draft: hub id or local directory", key="custom_draft",
                      placeholder="e.g. distilbert/distilgpt2")
    if catalog.hosted():
        st.caption("Hosted mode: only the listed models can be loaded.")


def _sampling_widgets() -> None:
    st.slider("k (draft length)", 1, 12, key="k")
    st.slider("Temperature (0 = greedy)", 0.0, 2.0, step=0.05, key="temperature")
    st.slider("Top-p", 0.05, 1.0, step=0.05, key="top_p")
    st.number_input("Seed", min_value=0, max_value=2**31 - 1, step=1, key="seed")
    st.slider("Max new tokens", 4, 256, step=4, key="max_new_tokens")
    st.radio("Drafter", list(DRAFTERS), key="drafter",
             format_func=lambda name: DRAFTERS[name].label)
    if st.session_state.drafter == "early-exit":
        st.slider("Exit layer (target layers the draft keeps)", 1, 16, key="exit_layer")
    st.selectbox("Draft-length policy", list(POLICIES), key="policy",
                 help=" ".join(f"{name}: {p.help}." for name, p in POLICIES.items()))
    if st.session_state.policy == "confidence":
        st.slider("Confidence threshold", 0.0, 1.0, step=0.05, key="confidence")


def render() -> None:
    state.init()
    with st.sidebar:
        _pair_widgets()
        _sampling_widgets()
    state.remember()


def active_pair() -> specdec.Pair | None:
    """The pair to use: the requested one if it loads, else the last one that did."""
    requested, active = _requested(), st.session_state.get("active_pair")
    if requested is not None and requested != active:
        try:
            loaders.load(*requested)
            st.session_state.active_pair = active = requested
        except specdec.LoadError as err:
            kept = f" Still using {active[0]} ← {active[1] or 'no draft model'}." if active else ""
            st.sidebar.error(f"Could not load that pair: {loaders.describe(err)}.{kept}")
    if active is None:
        return None
    try:
        return loaders.load(*active)
    except specdec.LoadError as err:
        st.error(f"Could not load the models: {loaders.describe(err)}.")
        return None
