"""The sidebar shared by every page: model pair, sampling settings, drafter, policy."""
from __future__ import annotations

import streamlit as st

import specdec
from specdec.drafters.registry import DRAFTERS
from specdec.drafters.policies import POLICIES
from ui import catalog, i18n, loaders, state
from ui.i18n import N_, _

# specdec/ names its drafters and policies in English (it never imports the app); these marks
# put those names into the catalog (tests/test_i18n.py checks that none is missing).
ENGINE_TEXTS = (N_("constant"), N_("heuristic"), N_("confidence"), N_("draft model"), N_("tree of draft-model drafts"), N_("tree of n-gram matches"),
                N_("n-gram lookup"), N_("early exit (the target's first layers)"), N_("always k"),
                N_("+2 after a round that accepted every draft, −1 otherwise"),
                N_("stop drafting after a token the draft gives less than the threshold"))


def shown_as(names: dict[str, str]):
    """A format_func from a mapping made while the page runs (in the session's language);
    options not in it are shown as they are."""
    return lambda option: names.get(option, option)


def _requested() -> tuple[str, str | None] | None:
    choice = catalog.by_label(st.session_state.pair_label)
    if choice is not None:
        return choice.target, choice.draft
    target, draft = st.session_state.custom_target.strip(), st.session_state.custom_draft.strip()
    return (target, draft) if target and draft else None


def _pair_widgets() -> None:
    names = {c.label: _(c.short) for c in catalog.CHOICES} | {catalog.CUSTOM: _(catalog.CUSTOM)}
    st.selectbox(_("Model pair (target ← draft)"), catalog.labels(), key="pair_label",
                 format_func=shown_as(names),
                 help=_("The embedded models work offline; hub pairs need a connection or a "
                        "local Hugging Face cache."))
    choice = catalog.by_label(st.session_state.pair_label)
    if choice is not None:           # the full names, which the narrow box cannot show
        st.caption(_("Target **{target}**, draft **{draft}** · {where}").format(
            target=choice.target, draft=choice.draft or _("none (n-gram lookup or early exit)"),
            where=_("embedded, offline") if choice.embedded else _("from the hub, needs a connection")))
    if st.session_state.pair_label == catalog.CUSTOM:
        st.text_input(_("Target: hub id or local directory"), key="custom_target",
                      placeholder=_("e.g. openai-community/gpt2-medium"))
        st.text_input(_("Draft: hub id or local directory"), key="custom_draft",
                      placeholder=_("e.g. distilbert/distilgpt2"))
    if catalog.hosted():
        st.caption(_("Hosted mode: only the listed models can be loaded."))


def _sampling_widgets() -> None:
    st.slider(_("k (draft length)"), 1, 12, key="k")
    st.slider(_("Temperature (0 = greedy)"), 0.0, 2.0, step=0.05, key="temperature")
    st.slider(_("Top-p"), 0.05, 1.0, step=0.05, key="top_p")
    st.number_input(_("Seed"), min_value=0, max_value=2**31 - 1, step=1, key="seed")
    st.slider(_("Max new tokens"), 4, 256, step=4, key="max_new_tokens")
    st.radio(_("Drafter"), list(DRAFTERS), key="drafter",
             format_func=shown_as({name: _(d.label) for name, d in DRAFTERS.items()}))
    if st.session_state.drafter == "early-exit":
        st.slider(_("Exit layer (target layers the draft keeps)"), 1, 16, key="exit_layer")
    st.selectbox(_("Draft-length policy"), list(POLICIES), key="policy",
                 format_func=shown_as({name: _(name) for name in POLICIES}),
                 help=" ".join(f"{name}: {_(p.help)}." for name, p in POLICIES.items()))
    if st.session_state.policy == "confidence":
        st.slider(_("Confidence threshold"), 0.0, 1.0, step=0.05, key="confidence")


def render() -> None:
    state.init()
    i18n.switch()
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
            kept = _(" Still using {target} ← {draft}.").format(
                target=active[0], draft=active[1] or _("no draft model")) if active else ""
            st.sidebar.error(_("Could not load that pair: {why}.").format(why=loaders.describe(err))
                             + kept)
    if active is None:
        return None
    try:
        return loaders.load(*active)
    except specdec.LoadError as err:
        st.error(_("Could not load the models: {why}.").format(why=loaders.describe(err)))
        return None
