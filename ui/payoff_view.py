"""Does it pay here? The box that shows the one answer (ui/payoff_answer.py) for the active pair and a
page's settings: Home (for its race's settings), Step through, When it is fast and Drafters compared call
`render`, so each states the same figure for the same settings."""
from __future__ import annotations

from dataclasses import replace

import streamlit as st

from specdec import defaults
from specdec.bench import payoff, sweeps
from specdec.drafters.policies import PRICED
from specdec.models.kernels import cpu_model
from specdec.settings import LENGTHS
from specdec.wording import times
from ui import family, fast_regime_view, jobs, pair_card_view, session, state
from ui.figures.payoff import runs_figure
from ui.i18n import _
from ui.lessons import badges, fast, payoff_paid, payoff_words, payoff_working, store, store_words
from ui.lessons.bottom_line import best, bottom_line, k_words, restates
from ui.lessons.pair_card import Numbers
from ui.payoff_answer import answer, at_k, measured_at, runs_by_k
from ui.round_view import chart


def measured_line(pair, settings, mine: str = "", above: bool = True) -> str | None:
    """Under a section that ran other prompts: the box's measured figure for the sidebar's settings, with its
    badge and prompts, beside `mine` (the section's own figure of that setting, in words: "In this table, draft
    at k = 4: 0.70× on …"), so the two read as one setting on two texts (`above`: the page shows the box; None
    where nothing is measured at them)."""
    if pair is None:
        return None
    m = answer(pair, settings)[0].measured
    if m is None:
        return None
    where = store_words.set_name(family.speed_set(session.uses_chat(pair))) if m.source in ("box", "ksweep") else \
        _("{n} prompts").format(n=m.prompts)
    said = (_("The answer box above: **{speedup}** ({span}) on {prompts}.") if above else _(
        "“Does it pay here?” on the other pages: **{speedup}** ({span}) on {prompts}.")).format(
        speedup=times(m.speedup), span=payoff_words.span(m.low, m.high), prompts=where)
    if mine:
        said += " " + _("{mine}: other text, another figure.").format(mine=mine)
    return badges.of(m.cpu, m.date) + " " + said


def _measure(pair, settings, label: str | None = None) -> None:
    """The box's own run: the sidebar's settings against the target alone on When it is fast's
    prompts, repeats interleaved, filed as a k-sweep point is (so the box, section 2 and section 3
    read one figure for it). `label`: what its progress bar says (review 56: "Measuring these settings here" for a
    k = 1 beside the sidebar's k = 4)."""
    names = st.session_state.get("active_pair") or (pair.target_name, pair.draft_name)
    chat = session.uses_chat(pair)
    run = replace(settings, max_new_tokens=LENGTHS.speed)
    sweep = jobs.run_job(label or _("Measuring these settings here"), "payoff_job", lambda pr: sweeps.k_sweep(
        pair, family.speed_prompts(chat)[1], [settings.k], run, pr, defaults.REPEATS))
    if sweep is not None:
        store.file(sweep.points, fast.ksweep_figure(names, run, family.speed_set(chat), state.ran()), "box")
        st.rerun()


def _offer_k(pair, settings, k: int, where) -> None:
    """A button that measures a constant `k` (the k this machine's prices pick) here at the sidebar's other
    settings, where this machine has no figure for it yet: the setting predicted to pay, one click away."""
    at = replace(settings, k=k, policy="constant")
    if measured_at(pair, settings, k) is None and where.button(
            _("Measure k = {k} here (about a minute)").format(k=k), key="payoff_measure_k", icon=":material/timer:"):
        _measure(pair, at, _("Measuring k = {k} here").format(k=k))


def box_word(p: payoff.Payoff) -> tuple[str, float, str] | None:
    """The box's word, figure and badge for an answer: measured, else predicted (None without either)."""
    if p.measured is not None:
        figure, badge, low, high = p.measured.speedup, badges.of(p.measured.cpu, p.measured.date), p.measured.low, \
            p.measured.high
    elif p.predicted is not None:
        figure, badge = p.predicted, badges.predicted()
        low, high = p.likely or (p.predicted, p.predicted)
    else:
        return None
    return payoff_words.answer_word(figure, low, high, p.measured is None), figure, badge


def elsewhere_line(pair, settings) -> str | None:
    """Under Home's box, where its race sets other settings than the sidebar's: what the box says at the
    sidebar's settings on every other page, in one line (None without a figure)."""
    found = box_word(answer(pair, settings)[0])
    if found is None:
        return None
    word, figure, badge = found
    k = (_("k by this machine's prices, up to {k}") if settings.policy == PRICED else _("k = {k}")).format(k=settings.k)
    return _("At the sidebar's settings (T = {t:g}, {k}) the answer box on every other page says: **{answer}, {x}** "
             "{badge}.").format(t=settings.temperature, k=k, answer=word, x=times(figure), badge=badge)


def sidebar_verdict(pair, settings) -> str | None:
    """In the sidebar, on every page: the box's answer at the sidebar's settings in a few words, and the k this
    machine's prices pick where it is another (review 32: "a single page-wide verdict line would help")."""
    p, instead = answer(pair, settings)
    found = box_word(p)
    if found is None:
        return None
    word, figure, badge = found
    text = _("**At these settings:** {answer}, **{x}** {badge}").format(answer=word, x=times(figure), badge=badge)
    if instead is None:
        return text
    if runs := runs_by_k(pair, settings).get(instead.k):       # as In short weighs them: one word for one k
        return text + " · " + k_words(instead.k, runs)
    seen = at_k(pair, settings, instead.k)
    if seen is not None:
        low, high = seen[3] if len(seen) > 3 else (seen[0], seen[0])
        text += " · " + _("at k = {k}: {answer}, **{x}**").format(
            k=instead.k, answer=payoff_words.answer_word(seen[0], low, high), x=times(seen[0]))
    return text


def _use_priced() -> None:
    """The box's button: the sidebar's draft-length policy becomes the priced one (every page)."""
    state.set_by_button("policy", PRICED)


def render(pair, settings, race: tuple[tuple[float, ...], Numbers | None] | None = None,
           offer_run: bool = True, sidebar=None, full: bool = False) -> payoff.Payoff | None:
    """The box; nothing without a pair. `race`: (the speedups Home's races measured at these
    settings on one prompt, newest first; the newest race's pair_card.Numbers): one line under the verdict gives
    them (the verdict stays the prompt set's, review 46; a race's own why is Home's), or they head the box where
    nothing else answers. `offer_run`: a button that
    measures these settings here where nothing is measured (Home races instead). `sidebar`: the sidebar's
    settings where they are not the box's (Home's race): what every other page's box says at them, under the
    verdict (review 22: Home's "Yes" read as a contradiction of the other pages' "No"). `full`: every k's
    runs and their chart in the open (When it is fast, the speed lesson); elsewhere the verdict, its why and the
    buttons, the rest in one closed expander (reviews 48-50: the same full box on four pages, too much to read)."""
    if pair is None:
        return None
    p, instead = answer(pair, settings)
    with st.container(border=True, key="payoff_box"):
        _settings_caption(pair, settings, race is None and offer_run)
        runs, picked = runs_by_k(pair, settings), instead.k if instead is not None else None
        short = None if restates(runs, p.k if p.measured is not None else None) else \
            bottom_line(settings.temperature, runs, picked)
        seen = at_k(pair, settings, p.k) if p.picked and p.measured is None else None
        seen_instead = at_k(pair, settings, instead.k) if instead is not None else None
        verdict = payoff_words.headline(p, cpu_model(), () if race is None else race[0])
        said = short is not None and best(runs) == picked                 # In short gives the picked k's runs
        # the learner's own setting first, In short (every k at this T) after its why (review 50: "In short … k = 1:
        # 1.03×" above the sidebar's k = 4 and its 0.74×, the first figure read; review 33 had asked for one bottom
        # line, which In short still is, under the answer to the question asked)
        st.markdown(verdict + (payoff_words.instead(instead, seen_instead) if instead is not None and not said
                               else ""))
        other = payoff_words.comparisons(p, seen, instead, seen_instead) if race is None else ""
        answered = p.measured is not None or p.predicted is not None
        set_why = race is None or answered             # the set's why (a race's own: Home's expander, review 46)
        if full:
            if other:
                st.caption(other)
            if set_why:
                st.caption(payoff_words.why(p))
            _every_k(settings, short, runs, picked)
        elif set_why:
            st.caption(payoff_words.why(p))
        if set_why:
            _buttons(pair, settings, p, instead, offer_run)
        _races_and_sidebar(pair, settings, p, race if answered else None, sidebar)
        parts = payoff_working.working(p, cpu_model(), offer_run and race is None, instead, seen_instead)
        if full:
            _working(parts)
        else:
            _more(settings, short, runs, picked, other, parts)
        pair_card_view.box_button(pair, settings, p, *race if race is not None else (),
                                  offered=instead.k if instead is not None else None)
    return p


def _settings_caption(pair, settings, prompt_set: bool) -> None:
    """Which settings the box answers for, and on which prompt set where it measures one (`prompt_set`; Home races
    its own prompt)."""
    on = " · " + store_words.set_name(family.speed_set(session.uses_chat(pair))) if prompt_set else ""
    st.caption(payoff_words.settings_line(settings, pair.draft_name, pair.reads_features) + on)


def _races_and_sidebar(pair, settings, p: payoff.Payoff, race, sidebar) -> None:
    """Under the verdict and its why: Home's races at these settings (one line; None where the races head the box
    themselves, nothing else answering), then what every other page says at the sidebar's settings where the race
    ran others (review 40: the why under it read as explaining the sidebar's figure)."""
    if race is not None:
        st.markdown(payoff_words.race_line(race[0], race[1].rate if race[1] else None,
                                           p.measured.acceptance_rate if p.measured else None))
    if sidebar is not None and sidebar != settings and (line := elsewhere_line(pair, sidebar)):
        st.markdown(line)


def _runs_chart(settings, runs: dict, picked: int | None) -> None:
    """Every run at the settings' T, a mark per run by k, where there are two or more: the noise seen, not read
    as figures (reviews 35-38)."""
    if sum(map(len, runs.values())) > 1:
        chart(runs_figure(settings.temperature, runs, settings.k if settings.policy == "constant" else None, picked),
              key="payoff_runs")


def _every_k(settings, short: str | None, runs: dict, picked: int | None) -> None:
    """In short (every k's runs at this T, in one figure) and their chart, under it."""
    if short is not None:
        st.markdown(short)
    _runs_chart(settings, runs, picked)


def _more(settings, short: str | None, runs: dict, picked: int | None, other: str,
          parts: list[tuple[str, str]]) -> None:
    """Off When it is fast: every k at this T and the working, in one closed expander (that page shows the box
    whole)."""
    with st.expander(_("How these figures were worked out: every k at this temperature, and why other pages "
                       "may differ"),
                     icon=":material/calculate:"):
        _every_k(settings, short, runs, picked)
        if other:
            st.caption(other)
        for heading, text in parts:
            st.markdown(f"**{heading}.** {text}")


def _working(parts: list[tuple[str, str]]) -> None:
    """Where each figure of the box comes from, and why other sections differ: one expander, closed."""
    with st.expander(_("How these figures were worked out, and why other pages may differ"),
                     icon=":material/calculate:"):
        for heading, text in parts:
            st.markdown(f"**{heading}.** {text}")


def _buttons(pair, settings, p: payoff.Payoff, instead: payoff.Payoff | None, offer_run: bool) -> None:
    """The box's actions in one row: measure its settings here, measure the k the prices pick, draft k by
    them; under them, where the runs paid other prices than the profile, a way to measure it again."""
    row = st.container(horizontal=True)                  # only the buttons that show: no gap between them
    label = _("Measure it here (about a minute)") if p.measured is None or p.measured.cpu else _("Measure again")
    if offer_run and row.button(label, key="payoff_measure", icon=":material/timer:"):
        _measure(pair, settings)
    if instead is not None:
        if offer_run:
            _offer_k(pair, settings, instead.k, row)
        row.button(_("Draft k by this machine's prices"), key="payoff_priced", icon=":material/tune:",
                   on_click=_use_priced)
    if offer_run and (moved := payoff_paid.stale(p)):
        st.caption(moved)
        if st.button(_("Measure this machine's prices again (about 40 s)"), key="payoff_prices",
                     icon=":material/speed:"):
            fast_regime_view.measure_now(pair)


def card_button(pair, settings) -> None:
    """The sidebar's way to the pair card, on every page: the box's answer at the sidebar's settings first."""
    if pair is not None:
        pair_card_view.sidebar_button(pair, settings, lambda: answer(pair, settings))
