"""“Try it on many prompts” (issue 40): the sidebar's setting against one other — a temperature,
a k or a drafter the learner picks — on N bundled prompts of one kind, in one click; the two
averages with their spread, the learner's own run marked, and a sentence computed from it."""
from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from specdec.bench import many
from specdec.defaults import K_CHOICES, TEMPERATURE_COMPARE
from specdec.drafters.registry import DRAFTERS, chain_for
from specdec.models.backend import Backend
from specdec.prompts import as_input, kinds_of
from specdec.records.provenance import Clock
from ui import family, session, state, tables
from ui.examples import kind_name, namer
from ui.figures.many import many_figure
from ui.i18n import N_, _, choice
from ui.lessons import store
from ui.lessons.many_words import against_alone, agrees, backend_note, sentence
from ui.measured import measured
from ui.round_view import chart

KNOBS = {"temperature": N_("temperature"), "k": N_("k (draft length)"), "drafter": N_("drafter")}


def _other(knob: str, s, pair, key: str):
    """The compared value's widget; its default is the far side of the lesson's example."""
    if knob == "temperature":
        return st.select_slider(_("Compare with T ="), list(TEMPERATURE_COMPARE),
                                value=0.3 if s.temperature > 0.75 else 1.2, key=f"{key}_t")
    if knob == "k":
        return st.select_slider(_("Compare with k ="), list(K_CHOICES), value=2 if s.k >= 5 else 8,
                                key=f"{key}_k")
    choices = [n for n, d in DRAFTERS.items() if n != s.drafter and (pair.draft is not None or not d.needs_draft_model)]
    names = {n: _(DRAFTERS[n].label) for n in choices}          # fixed now, in this run's language
    cheap = chain_for(has_draft=False).name                     # n-gram lookup: every pair runs it
    return st.selectbox(_("Compare with the drafter"), choices, format_func=names.get, key=choice(f"{key}_d"),
                        index=choices.index(cheap) if cheap in choices else 0)


def _name(knob: str, value) -> str:
    if knob == "temperature":
        return f"T = {value:g}"
    return f"k = {value}" if knob == "k" else _(DRAFTERS[value].label)


def learner_run() -> many.PromptRun | None:
    """The Step-through run of the sidebar's current pair, prompt and settings, in the four metrics."""
    dec = session.decoder()
    run = st.session_state.get(session.RUN)
    if dec is None or not dec.history or run["signature"] != session.signature():
        return None
    from specdec.trace.metrics import summarize
    m = summarize(dec.history, dec.prefill)
    return many.mine(m, m.wall_ms / 1000)


def render(pair, kind: str | None = None, knob: str = "temperature", key: str = "many") -> None:
    """`kind`: the prompts' default kind (the learner's example's, else code)."""
    s, chat = state.settings(), session.uses_chat(pair)
    prompts = family.prompt_set(chat)
    kinds = kinds_of(prompts)
    c1, c2, c3, c4 = st.columns(4)
    knob = c1.radio(_("Compare"), list(KNOBS), index=list(KNOBS).index(knob), key=f"{key}_knob",
                    format_func={n: _(label) for n, label in KNOBS.items()}.get, horizontal=True)
    with c2:
        other = _other(knob, s, pair, key)
    kind = kind if kind in kinds else "code" if "code" in kinds else kinds[0]
    kind = c3.selectbox(_("Prompts of the kind"), kinds, index=kinds.index(kind), format_func=namer(kinds),
                        key=choice(f"{key}_kind"))
    chosen = [p for p in prompts if p.kind == kind]
    n = c4.slider(_("How many prompts"), 1, len(chosen), min(8, len(chosen)), key=f"{key}_n")
    if other is None or other == getattr(s, knob):
        st.caption(_("Choose a value other than the sidebar's to compare."))
        return
    mine_name, other_name = _name(knob, getattr(s, knob)), _name(knob, other)
    arms = [many.Arm(mine_name, pair, s), many.Arm(other_name, pair, replace(s, **{knob: other}))]
    inputs = [as_input(p, chat) for p in chosen[:n]]
    result = measured(
        "many", store.measurement("many", (pair.target_name, pair.draft_name), s, chat=chat, ran=state.ran(),
                                  knob=knob, other=other, kind=kind, n=n),
        lambda pr: many.compare(arms, inputs, pr, seed=s.seed), on_disk=False,
        button=_("Try it on many prompts"),
        intro=_("Runs the target alone, {a} and {b} on {n} {kind} prompts ({tokens} new tokens each): the same "
                "prompts and seeds for all three, one after the other prompt by prompt.").format(
            a=mine_name, b=other_name, n=n, kind=kind_name(kind), tokens=s.max_new_tokens))
    if result:
        show(result, knob, getattr(s, knob), other, kind_name(kind), learner_run(), key, pair.passes.name)


def show(result: many.Comparison, knob: str, a, b, kind: str, mine: many.PromptRun | None, key: str = "many",
         backend: str = Backend.TORCH) -> None:
    if mine and result.clock == Clock.CPU:
        mine = replace(mine, tokens_per_s=None)     # the run's own time is wall-clock, the boxes CPU time
    chart(many_figure(result, mine), f"{key}-fig")
    numeric = knob != "drafter"
    if (alone := against_alone(result)) is not None:
        st.markdown(alone)
    st.write(sentence(result, knob, a if numeric else 0, b if numeric else 0, kind, mine))
    if knob == "temperature" and backend == Backend.ONNX and agrees(result, knob, a, b) is False:
        from specdec.bench.agreement import shipped
        found = shipped()
        st.caption(backend_note("ONNX Runtime", found.agreement if found else None))
    if result.clock == Clock.CPU:
        st.caption(_("The machine was busy (load {load:.1f} per core): tokens/s is on the CPU time the runs "
                     "needed.").format(load=result.provenance.load or 0.0))
    rows = [{_("setting"): stats.arm, **{m: stats.of(m).median if stats.of(m) else None for m in many.METRICS}}
            for stats in many.summary(result)]
    tables.show(pd.DataFrame(rows), f"{key}_rows")
    st.caption(_("Each cell: the median over the prompts, the line inside each box of the chart."))
