"""When it is fast: Leviathan's theory, measured on this machine (the k sweep, draft size,
temperature, the machine's limits), and the benchmark; each section in its own view module."""
from dataclasses import replace

import streamlit as st

from specdec.bench import sweeps
from specdec.bench.points import TempSweep
from specdec.defaults import TEMPERATURE_SWEEP
from ui import (
    family,
    fast_bench_view,
    fast_draft_size_view,
    fast_ksweep_view,
    fast_regime_view,
    fast_theory_view,
    jobs,
    many_view,
    payoff_view,
    session,
    shell,
    sidebar,
    state,
    tables,
)
from ui.examples import kind_name
from ui.fast_common_view import MAX_NEW, acceptance_note
from ui.figures import fast as lp
from ui.i18n import _
from ui.lessons import fast, store, store_words
from ui.measured import measured as measured_result
from ui.round_view import chart

shell.page(__file__)

st.title(_("When speculation is fast"))
st.caption(_("Speed depends on three numbers: how often drafts are accepted (α), how many you "
             "draft (k), and how much a draft step costs relative to a target step (c)."))


def temperatures(pair, names) -> None:
    st.header(_("4 · Temperature and acceptance"))
    st.write(_("A draft token survives with chance β = Σ min(p, q), the overlap of the two distributions. At T = 0 "
               "that is 1 where the two models' top tokens agree and 0 where they differ; a higher T spreads both "
               "over more tokens, and where the draft's next choices are not the target's, the overlap shrinks "
               "(at a very high T both turn flat and it grows back toward 1)."))      # review 32: one line of why
    temps = list(TEMPERATURE_SWEEP)
    settings = replace(state.settings(), max_new_tokens=MAX_NEW)
    chat = session.uses_chat(pair)
    texts, inputs = family.speed_prompts(chat)
    key = store.measurement("temps", names, settings, texts, chat, state.ran())
    sweep = measured_result(
        "temps", key, lambda pr: sweeps.temperature_sweep(pair, inputs, temps, settings, pr), record=TempSweep,
        button=_("Sweep the temperature"),
        intro=_("Measures acceptance at T = {temps} with k = {k}, on the code and structured prompts of "
                "section 2.").format(
            temps=", ".join(map(str, temps)), k=settings.k))
    if sweep:
        chart(lp.temperature_figure(sweep.points), "fast-temps")
        on = store_words.set_name(family.speed_set(chat), kind_name) + f", k = {settings.k}"   # review 33: which k
        st.caption(fast.temperature_caption(sweep.points, on))
        acceptance_note([(f"T = {p.temperature:g}", p.acceptance_rate, p.mean_acceptance_length)
                         for p in sweep.points])
        jobs.csv_button(tables.frame(sweep.points), "temperature-sweep", "fast_temps_csv")


def many_prompts(pair) -> None:
    st.subheader(_("Try it on many prompts"))
    st.caption(_("The sweeps above pool their prompts. To see one change of k, T or the drafter as a learner "
                 "would make it, prompt by prompt: the sidebar's setting against another, on many prompts of "
                 "one kind, with the spread over prompts."))
    many_view.render(pair, knob="k", key="fast_many")


def measured_tabs(pair, names, tabs) -> None:
    """Sections 2–5, each in its tab; without a pair with a draft, each says how to get one."""
    if pair is None or pair.draft is None:
        for tab in tabs:
            tab.info(_("Load a model pair in the sidebar to measure."))
        return
    with tabs[0]:
        fast_ksweep_view.measured(pair, names)
    with tabs[1]:
        fast_draft_size_view.tradeoff(pair, names)
    with tabs[2]:
        temperatures(pair, names)
        many_prompts(pair)
    with tabs[3]:
        fast_regime_view.render(pair)


TABS = (_("1 · Theory"), _("2 · The k sweep"), _("3 · Draft size"), _("4 · Temperature"),
        _("5 · The machine's limits"), _("6 · The benchmark"))

pair = sidebar.active_pair()
names = st.session_state.get("active_pair")
payoff_view.render(pair, state.settings(), full=True)
st.caption(_("Six sections, one a tab: the theory, then what this machine measured, then the benchmark."))
theory, *sections, bench = st.tabs(TABS, key="fast_tabs")
with theory:
    fast_theory_view.render(pair)
measured_tabs(pair, names, sections)
with bench:
    fast_bench_view.render(pair)
