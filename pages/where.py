"""Where it works: acceptance by kind of text, prompt length and output position."""
import statistics
from dataclasses import replace

import pandas as pd
import streamlit as st

from specdec import defaults
from specdec.bench import machine, repriced, where
from specdec.bench.where import WhereSet
from specdec.engine.decoder import generate
from specdec.models.kernels import cpu_model
from specdec.prompts import Prompt, as_input, kinds_of, load_prompts
from specdec.records.provenance import Clock, clock_for
from specdec.settings import LENGTHS
from specdec.trace.survival import survival
from ui import (
    catalog,
    examples,
    jobs,
    payoff_view,
    picked_k_view,
    session,
    shell,
    sidebar,
    state,
    strip,
    tables,
    where_rare_view,
)
from ui.context_view import ON_THE_CARD
from ui.figures.where import kind_figure, per_position_by_kind_figure
from ui.i18n import _, choice
from ui.lessons import badges, shipped, store
from ui.lessons.bench_words import machine_short
from ui.lessons.fast import busy_note, spread_warning
from ui.lessons.fast_repriced import no_profile
from ui.lessons.where import (
    TRAVELS,
    group_rows,
    kind_caption,
    measured_caption,
    priced_caption,
    ranking_note,
    shipped_caption,
)
from ui.lessons.where_survival import survival_caption
from ui.measured import local, measured
from ui.round_view import chart

shell.page(__file__)
st.title(_("Where speculation works"))
st.caption(_("Drafts survive where the next tokens are predictable. An average hides this: "
             "measure it per kind of text."))
MAX_NEW = LENGTHS.where


BESIDES = ("prefill_steps", "base_prefill_steps", "round_overhead", "base_overhead")


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
        widths = {_(name): st.column_config.TextColumn(width=w) for name, w in examples.WIDTHS.items()}
        st.dataframe(pd.DataFrame(examples.rows(prompts)), hide_index=True, placeholder="—", key="where_set",
                     column_config=widths)
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


def results(pair, prompts) -> tuple[WhereSet | None, bool]:
    """The measured set (its per-prompt results and the busiest machine load seen), or None before a
    run; and whether it was measured on this machine (False: shipped with the app)."""
    kinds = kinds_of(prompts)
    chosen = st.multiselect(_("Kinds to run"), kinds, default=kinds, key=choice("where_kinds_sel"),
                            format_func=examples.namer(kinds))
    prompts = [p for p in prompts if p.kind in chosen]
    settings = replace(state.settings(), max_new_tokens=MAX_NEW, seed=0)
    as_chat = chat(pair)
    key = store.measurement("where", st.session_state.active_pair, settings, [p.key for p in prompts], as_chat,
                            state.ran())
    found = measured("where", key, lambda pr: where.run_set(pair, prompts, settings, pr, as_chat), record=WhereSet,
                    button=_("Run the set (k = {k}, T = {t})").format(k=settings.k, t=settings.temperature),
                    intro=_("Runs every prompt speculatively and with the target alone ({n} new tokens, "
                            "same seed), {r} times each, interleaved, for the speedup's spread. Results "
                            "are kept on this machine per pair and settings; change k or T to measure "
                            "again.").format(n=MAX_NEW, r=defaults.REPEATS))
    return found, local("where", key, WhereSet)


def kind_points(res: WhereSet, clock: Clock = Clock.WALL) -> list[where.KindPoint]:
    """Each kind's point, its kind as the page names it."""
    return [replace(p, kind=examples.kind_name(p.kind)) for p in where.by_kind(res.results, clock)]


def timing_notes(res: WhereSet, points: list, clock: Clock, shipped_from: str | None) -> None:
    """Repeats that disagree; on a busy machine, the CPU-time speedups and their wall-clock ones
    (or, for a result kept without CPU times, that it should be measured again); `shipped_from`:
    the CPU of a shipped result, the machine that was busy."""
    warning = spread_warning(points, lambda p: p.kind)
    if warning:
        st.warning(warning)
    if clock == Clock.CPU:
        wall = where.group_speedup(res.results, key=lambda r: r.prompt.kind)
        st.info(busy_note(res.load, [p.speedup for p in points], [statistics.median(g.speedups) for g in wall],
                          shipped_from))
    elif clock_for(res.load) == Clock.CPU:
        st.warning(_("The machine was busy (load {load:.1f} per core) and this result holds wall-clock "
                     "times only: measure it again for speedups on CPU time.").format(load=res.load))


def priced(pair, points: list, shipped_cpu: str, more) -> list | None:
    """A shipped set's kinds at this machine's prices, said in one sentence; None without this
    machine's profile (or a c) for the pair and drafter. `more`: the section's expander, for the answer box's line."""
    s, profile = state.settings(), machine.of(pair)
    c = machine.draft_c(profile, s.drafter, pair.draft_name)
    here = repriced.each(points, s.k, c, profile.v) if profile else []
    if not here:
        st.markdown(no_profile(cpu_model()))
        return None
    st.markdown(priced_caption(here, cpu_model()))
    st.caption(shipped_caption(points, shipped_cpu), help=_(TRAVELS))
    # whole runs measured here at these settings, beside the kinds' rounds-only predictions (review 48: "0.96× … to
    # 1.08×" at k = 1 read as a gain where whole runs here measured 0.99×)
    if (box := payoff_view.measured_line(pair, s, _("These kinds' figures count the rounds alone (whole runs also "
                                                    "read the prompt)"), above=False)) is not None:
        more.caption(box)
    by_kind = {r.point.kind: r.speedup for r in here}
    return [by_kind.get(p.kind) for p in points]


def per_kind(pair, res: WhereSet, mine: bool) -> None:
    """The kinds' headline, its figures and charts; how they were measured and how to read them behind one expander
    (issue 51: a section opens with one sentence and its figure)."""
    st.header(_("By kind of text"))
    s = state.settings()
    clock = res.clock
    points = kind_points(res, clock)
    st.markdown(kind_caption(points, examples.kind_name))
    figures = st.container()
    more = st.expander(_("How these were measured, and how to read them"))
    more.caption(_("At k = {k}, T = {t:g}, {n} new tokens a prompt (the sidebar's k and T).").format(
        k=s.k, t=s.temperature, n=MAX_NEW) + " " + _(ON_THE_CARD))
    more.caption(_("This ranks the sidebar's drafter. A lookup copies from the prompt instead of predicting, so it "
                   "ranks the kinds otherwise: Drafters compared, “Winner per kind of text”."))
    shipped_cpu = res.provenance.cpu or "?"
    alike = not mine and shipped.alike(shipped_cpu)          # a machine like this one's: as measured, not priced
    with figures:
        here = None if mine or alike else priced(pair, points, shipped_cpu, more)
        if mine or alike:
            st.markdown(measured_caption(points, shipped_cpu if alike else None, examples.kind_name))
            if (odd := ranking_note(points, examples.kind_name)) is not None:
                more.caption(odd)                             # the fastest kind is not the most accepted: why
            if (box := payoff_view.measured_line(pair, s, above=False)) is not None:
                more.caption(box)                             # the same setting on When it is fast's prompts
        kind_charts(points, here, shipped_cpu)
        timing_notes(res, points, clock, None if mine else shipped_cpu)
        picked_k_view.offer(pair, s, "where_picked_k")        # the comparison at the k that pays here
    found = survival([r.rounds for r in res.results])
    if found:
        more.caption(survival_caption(found))
    with st.expander(_("Every kind's numbers; short against long prompts; early against late tokens")):
        kind_tables(res, points, None if mine else shipped_cpu)


def kind_charts(points: list, here: list | None, shipped_cpu: str) -> None:
    """Acceptance and speedup by kind, and acceptance by draft position per kind, side by side."""
    names = (_("here, priced again ({cpu})").format(cpu=cpu_model()),
             _("measured on {cpu}, for comparison").format(cpu=machine_short(shipped_cpu)))
    c1, c2 = st.columns(2)
    with c1:
        chart(kind_figure(points, here, names), "where-kinds")
    with c2:
        if max(len(p.per_position) for p in points) > 1:
            chart(per_position_by_kind_figure(points), "where-perpos")
        else:                                           # k = 1: one position, no curve to read
            st.caption(_("At k = 1 every round drafts one token: there is no later draft position to compare "
                         "with the first. The per-position curves show at k of 2 and more."))


def kind_tables(res: WhereSet, points: list, shipped_cpu: str | None) -> None:
    """The per-kind table, its CSV, and the same set split by prompt length and output position
    (`shipped_cpu`: the CPU of a shipped set, whose speedups the table holds)."""
    if shipped_cpu is not None:
        st.caption(badges.shipped(shipped_cpu) + " " + _("Speedups: that machine's. Acceptance: the models' and "
                                                           "the text's, the same on any machine."))
    table = tables.frame(points, drop=("histogram",) + BESIDES)    # fits 1400 px (Step through shows a run's
                                                                   # histogram; the CSV holds what runs paid besides)
    table["per_position"] = ["·".join(f"{x:.2f}" for x in p.per_position) for p in points]     # no spaces: it fits
    tables.show(table, "where_kinds")
    jobs.csv_button(tables.frame(points, drop=("per_position", "histogram")), "acceptance-by-kind", "where_csv")
    st.subheader(_("Short vs long prompts"))        # one under the other: side by side they were cut
    tables.show(tables.frame(group_rows(where.group_metrics(res.results, where.length_bucket(res.results)))),
                "where_len")
    st.subheader(_("Early vs late output tokens"))
    tables.show(tables.frame(group_rows(where.position_split(res.results))), "where_pos")



def open_in_step(text: str) -> None:
    st.session_state.prompt = text
    st.session_state.start_now = True


def drill_down(pair, res: WhereSet, mine: bool) -> None:
    st.header(_("Drill down"))
    kinds = sorted({r.prompt.kind for r in res.results})
    kind = st.selectbox(_("Kind"), kinds, key=choice("where_kind"), format_func=examples.namer(kinds))
    ranked = sorted((r for r in res.results if r.prompt.kind == kind), key=lambda r: -(r.metrics.acceptance_rate or 0))
    tables.show(pd.DataFrame({"label": [r.prompt.label for r in ranked],
                              "acceptance_rate": [r.metrics.acceptance_rate for r in ranked],
                              "mean_acceptance_length": [r.metrics.mean_acceptance_length for r in ranked],
                              "speedup": [r.speedup_on(res.clock) for r in ranked]}), "where_ranked")
    if not mine:
        badge = badges.shipped(res.provenance.cpu, date=res.provenance.date)
        st.caption(badge + " " + (_("Speedups in this table were measured on a machine like this one: the same CPU "
                                    "model, on another day.") if shipped.alike(res.provenance.cpu) else _(
            "Speedups in this table were measured there, for comparison: that machine's prices, not this one's.")))
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
    measurement, mine = results(pair, prompts)
    if measurement:
        per_kind(pair, measurement, mine)
        where_rare_view.render(pair, measurement, mine)
        drill_down(pair, measurement, mine)
