"""Where it works: acceptance by kind of text, prompt length and output position."""
import json
import statistics
from dataclasses import replace

import pandas as pd
import streamlit as st

from specdec import defaults
from specdec.engine.decoder import generate
from specdec.prompts import Prompt, as_input, kinds_of, load_prompts
from specdec.records.provenance import Clock, clock_for
from specdec.settings import LENGTHS
from specdec.trace.schema import TraceError
from specdec.trace.survival import survival
from ui import catalog, examples, jobs, session, shell, sidebar, state, strip, tables
from ui.figures.lessons import kind_figure, per_position_by_kind_figure
from ui.i18n import _, choice
from ui.lessons import store, where
from ui.lessons.speed import clock_note, spread_warning
from ui.lessons.survival import survival_caption
from ui.measured import measured
from ui.round_view import chart

shell.page()
st.title(_("Where speculation works"))
st.caption(_("Drafts survive where the next tokens are predictable. An average hides this: "
             "measure it per kind of text."))
MAX_NEW = LENGTHS.where


def chat(pair) -> bool:
    return pair is not None and session.uses_chat(pair)


def prompt_set(pair) -> list[Prompt]:
    """The chat set for an instruct model, the raw-text set otherwise; plus the user's own."""
    bundled = load_prompts("chat" if chat(pair) else "text")
    kinds = kinds_of(bundled)
    prompts = bundled + [p for p in st.session_state.setdefault("user_prompts", []) if p.kind in kinds]
    with st.expander(_("The prompt set: {n} prompts in {kinds} kinds — add your own").format(
            n=len(prompts), kinds=len(kinds))):
        examples.english_note()
        st.dataframe(pd.DataFrame(examples.rows(prompts)), hide_index=True, placeholder="—", key="where_set")
        with st.form("where_add", clear_on_submit=True):
            text = st.text_area(_("Your prompt"), key="where_new_text", max_chars=catalog.prompt_chars())
            c1, c2 = st.columns(2)
            kind = c1.selectbox(_("Kind"), kinds, key=choice("where_new_kind"), format_func=examples.namer(kinds))
            label = c2.text_input(_("Short label"), key="where_new_label")
            if st.form_submit_button(_("Add to the set (kept for this session)")):
                if text.strip():
                    st.session_state.user_prompts.append(Prompt(kind, label or text[:20], text))
                    st.rerun()
                st.warning(_("Write a prompt first."))
    return prompts


def results(pair, prompts):
    """(per-prompt results, the busiest machine load seen) or None before a run."""
    kinds = kinds_of(prompts)
    chosen = st.multiselect(_("Kinds to run"), kinds, default=kinds, key=choice("where_kinds_sel"),
                            format_func=examples.namer(kinds))
    prompts = [p for p in prompts if p.kind in chosen]
    settings = replace(state.settings(), max_new_tokens=MAX_NEW, seed=0)
    as_chat = chat(pair)
    key = store.measurement("where", st.session_state.active_pair, settings, [p.key for p in prompts], as_chat,
                            state.ran())
    kept = measured("where", key,
                    lambda pr: where.to_json(*where.run_set(pair, prompts, settings, pr, as_chat)),
                    button=_("Run the set (k = {k}, T = {t})").format(k=settings.k, t=settings.temperature),
                    intro=_("Runs every prompt speculatively and autoregressively ({n} new tokens, "
                            "same seed), {r} times each, interleaved, for the speedup's spread. Results "
                            "are kept on this machine per pair and settings; change k or T to measure "
                            "again.").format(n=MAX_NEW, r=defaults.REPEATS))
    try:
        return decoded(key, kept) if kept else None
    except (TraceError, KeyError, TypeError, ValueError):
        st.warning(_("The kept result of this set could not be read; run the set again."))
        return None


def decoded(key: dict, kept: dict):
    """The kept JSON as results, decoded once per session and measurement (64 prompts: about a
    second); a measurement is told apart by its key and its timings."""
    tag = json.dumps([key, kept["load"], [r["spec_tokens_per_s"] for r in kept["results"]]],
                     sort_keys=True, default=str)
    memo = st.session_state.get("_where_decoded")
    if memo is None or memo[0] != tag:
        st.session_state["_where_decoded"] = memo = (tag, where.from_json(kept))
    return memo[1]


def kind_rows(res, clock: Clock = Clock.WALL) -> list[dict]:
    by_kind = where.group_metrics(res, key=lambda r: r.prompt.kind)
    speed = where.group_speedup(res, key=lambda r: r.prompt.kind, clock=clock)
    return [{"kind": examples.kind_name(k), "prompts": sum(r.prompt.kind == k for r in res),
             "acceptance rate": m.acceptance_rate, "mean acceptance length": m.mean_acceptance_length,
             "speedup": statistics.median(speed[k]), "speedup min": min(speed[k]),
             "speedup max": max(speed[k]), "per position": m.per_position, "histogram": m.histogram}
            for k, m in by_kind.items()]


def split_rows(groups: dict) -> list[dict]:
    return [{"group": g, "rounds": m.rounds, "acceptance rate": m.acceptance_rate,
             "mean acceptance length": m.mean_acceptance_length} for g, m in groups.items()]


def timing_notes(res, rows: list[dict], load: float, clock: Clock) -> None:
    """Repeats that disagree; on a busy machine, the CPU-time speedups and their wall-clock ones
    (or, for a result kept without CPU times, that it should be measured again)."""
    warning = spread_warning([{"speedup_min": r["speedup min"], "speedup_max": r["speedup max"]} for r in rows])
    if warning:
        st.warning(warning)
    if clock == Clock.CPU:
        wall = where.group_speedup(res, key=lambda r: r.prompt.kind)
        st.info(clock_note([{"clock": Clock.CPU, "load": load, "speedup": r["speedup"],
                             "speedup_wall": statistics.median(wall[k])} for r, k in zip(rows, wall)]))
    elif clock_for(load) == Clock.CPU:
        st.warning(_("The machine was busy (load {load:.1f} per core) and this result holds wall-clock "
                     "times only: measure it again for speedups on CPU time.").format(load=load))


def per_kind(res, load: float) -> None:
    st.header(_("By kind of text"))
    clock = where.clock_of(res, load)
    rows = kind_rows(res, clock)
    table = [{**r, "per position": " · ".join(f"{x:.2f}" for x in r["per position"]),
              "histogram": " ".join(map(str, r["histogram"]))} for r in rows]
    tables.show(pd.DataFrame(table), "where_kinds")
    timing_notes(res, rows, load, clock)
    c1, c2 = st.columns(2)
    with c1:
        chart(kind_figure(rows), "where-kinds")
    with c2:
        chart(per_position_by_kind_figure(rows), "where-perpos")
    st.caption(where.kind_caption(rows))
    found = survival([r.rounds for r in res])
    if found:
        st.caption(survival_caption(found))
    jobs.csv_button([{k: v for k, v in r.items() if k not in ("per position", "histogram")} for r in rows],
                    "acceptance-by-kind", "where_csv")
    c1, c2 = st.columns(2)
    c1.subheader(_("Short vs long prompts"))
    tables.show(pd.DataFrame(split_rows(where.group_metrics(res, where.length_bucket(res)))), "where_len", c1)
    c2.subheader(_("Early vs late output tokens"))
    tables.show(pd.DataFrame(split_rows(where.position_split(res))), "where_pos", c2)


def open_in_step(text: str) -> None:
    st.session_state.prompt = text
    st.session_state.start_now = True


def drill_down(pair, res, load: float) -> None:
    st.header(_("Drill down"))
    kinds = sorted({r.prompt.kind for r in res})
    kind = st.selectbox(_("Kind"), kinds, key=choice("where_kind"), format_func=examples.namer(kinds))
    ranked = sorted((r for r in res if r.prompt.kind == kind), key=lambda r: -(r.metrics.acceptance_rate or 0))
    tables.show(pd.DataFrame([{"label": r.prompt.label, "acceptance rate": r.metrics.acceptance_rate,
                               "mean acceptance length": r.metrics.mean_acceptance_length,
                               "speedup": r.speedup_on(where.clock_of(res, load))} for r in ranked]),
                "where_ranked")
    label = st.selectbox(_("Prompt"), [r.prompt.label for r in ranked], key=choice("where_prompt"))
    chosen = next(r for r in ranked if r.prompt.label == label)
    c1, c2 = st.columns(2)
    if c1.button(_("Open in Step through"), icon=":material/open_in_new:", key="where_open",
                 on_click=open_in_step, args=(chosen.prompt.prompt,)):
        st.switch_page("pages/step_through.py")
    if c2.button(_("Token view: where do drafts break?"), key="where_tokens"):
        run = generate(pair, as_input(chosen.prompt, chat(pair)),
                       replace(state.settings(), max_new_tokens=MAX_NEW, seed=0))
        st.html(strip.prob_strip_html(strip.prompt_texts(run.prompt_ids, run.label), run.rounds))
        st.caption(_("Shade = target probability of the emitted token; green underline = an accepted "
                     "draft, orange = a correction after a rejection, blue = a bonus token."))


pair = sidebar.active_pair()
prompts = prompt_set(pair)
if pair is None or pair.draft is None:
    st.info(_("Load a model pair with a draft model in the sidebar."))
else:
    measurement = results(pair, prompts)
    if measurement:
        res, load = measurement
        per_kind(res, load)
        drill_down(pair, res, load)
