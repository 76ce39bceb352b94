"""When it is fast, section 2: the k sweep measured on this machine (or shipped, re-priced here),
its headline, chart and method."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import streamlit as st

from specdec import defaults
from specdec.bench import machine, sweeps
from specdec.bench.points import Sweep
from specdec.defaults import K_SWEEP
from specdec.records.provenance import Clock
from specdec.wording import times
from ui import (
    family,
    fast_repriced_view,
    fast_shipped_view,
    jobs,
    pair_card_view,
    payoff_answer,
    session,
    state,
    tables,
)
from ui.examples import kind_name
from ui.fast_common_view import MAX_NEW, acceptance_note, ksweep_key, taken_caption, warn
from ui.figures import fast as lp
from ui.i18n import _
from ui.lessons import badges, fast, shipped, store, store_words
from ui.lessons.bench_words import machine_short
from ui.lessons.payoff_words import SOURCES, answer_word, span
from ui.measured import local
from ui.measured import measured as measured_result
from ui.picked_k_view import picked_k
from ui.round_view import chart

KSWEEP_COLUMNS = ("k", "alpha", "mean_acceptance_length", "speedup", "speedup_min", "speedup_max", "verify_cost",
                  "predicted_run")


def measured(pair, names) -> None:
    st.header(_("2 · The k sweep, measured"))
    settings = replace(state.settings(), max_new_tokens=MAX_NEW)
    chat = session.uses_chat(pair)
    texts, inputs = family.speed_prompts(chat)
    key = ksweep_key(names, settings, chat)
    key_of = fast.ksweep_figure(names, settings, family.speed_set(chat), state.ran())
    sweep = measured_result(
        "ksweep", key, lambda pr: sweeps.k_sweep(pair, inputs, list(K_SWEEP), settings, pr, defaults.REPEATS),
        record=Sweep, on_fresh=lambda fresh: store.file(fresh.points, key_of, "ksweep"),
        button=_("Measure k = 1 … 8 here"),
        intro=_("Runs speculative decoding and the target alone on {n} bundled prompts ({tokens} "
                "tokens each, T = {t}) for k = 1…8, and measures c.").format(
            n=len(texts), tokens=MAX_NEW, t=settings.temperature))
    fast_shipped_view.ksweep(key, Sweep, settings)
    if not sweep:
        return
    points, mine, taken = list(sweep.points), local("ksweep", key, Sweep), []
    alike = shipped.alike(sweep.provenance.cpu)             # its figures are this machine's kind's
    if mine or alike:                                       # a setting measured here since: its newer figure
        points, taken = store.agree(points, key_of, "ksweep", keep=bool(mine))
        taken_caption(taken, "k")
    scope = f"T = {settings.temperature:g}, " + store_words.set_name(family.speed_set(chat), kind_name)
    picked = picked_k(pair, state.settings()) or (settings.k if settings.policy == "constant" else None)
    whose = Whose({p.k for p, _s in taken}, picked)
    ksweep_lines(points, scope, None if mine else sweep.provenance.cpu, sweep.provenance.date, whose)
    if mine:
        profile_c(points[0].c, pair, settings.drafter)
    here = [] if mine or alike else fast_repriced_view.k_sweep(points, pair, settings.drafter)
    alpha = round(mean_alpha(points), 2)
    on = machine_short(sweep.provenance.cpu or "?")
    def figure(refined: bool):
        return lp.theory_figure(alpha, settings.k, points[0].c, points, k_max=8, eps=sweep_eps(points),
                                measured_on=None if mine else on, here_ks=frozenset(whose.here), refined=refined)
    chart(lp.repriced_sweep_figure(alpha, settings.k, here, on, box_at_k(pair)) if here else figure(False),
          "fast-measured")
    with st.expander(_("How it was measured: tokens a round, pass prices, and every number")):
        ksweep_method(points, figure(True))


def sweep_eps(points) -> float:
    """ε as these runs paid it (a pass of k + 1 tokens = 1 + k·ε steps, the mean over their k), so the chart's
    curve prices the verification pass as section 1 does (review 25: a free pass drew a gain at k = 4)."""
    paid = [(p.verify_cost - 1) / p.k for p in points if p.verify_cost and p.k]
    return max(0.0, sum(paid) / len(paid)) if paid else 0.0


def box_at_k(pair):
    """The box's figure measured here for the sidebar's settings, where it drafts a constant k (a
    point of the k sweep's chart); None otherwise."""
    settings = state.settings()
    return payoff_answer.answer(pair, settings)[0].measured if settings.policy == "constant" else None


def ksweep_method(points, refined) -> None:
    """Section 2 behind its expander: the pass prices, the chart with the lines that price a whole run as the
    sweep's runs paid it (`refined`; a shipped sweep's: its machine's), tokens a round, why measured and theory
    differ, and the sweep's table (the columns that fit; the CSV holds all)."""
    costs = ", ".join(f"v({p.k + 1}) = {p.verify_cost:.2f}" for p in points)
    st.write(_("In these runs one target pass over k + 1 tokens cost v(k + 1) target steps: {costs}.").format(
        costs=costs))
    st.caption(_("The sweep's runs with the lines that price a whole run: the dashed one is the theorem at those "
                 "pass prices; the others add what a run pays besides its rounds."))
    chart(refined, "fast-refined")
    chart(lp.tokens_figure(points), "fast-tokens")
    acceptance_note([(f"k = {p.k}", p.acceptance_rate, p.mean_acceptance_length) for p in points])
    st.caption(theorem_caption(points))
    if (profiled := fast.profile_caption(points)) is not None:
        st.caption(profiled)
    table = tables.frame(points)
    tables.show(table[[c for c in KSWEEP_COLUMNS if c in table]], "fast_rows")
    jobs.csv_button(table, "k-sweep", "fast_csv")


def theorem_caption(points) -> str:
    """Measured against Theorem 3.8 with a free pass (not drawn) and against the chart's dashed line (the pass as
    the runs paid it), each count computed (review 42: "below Theorem 3.8 at 8 of 8 k" under points drawn above
    the chart's solid line, which is neither)."""
    free = [p.bound for p in points]
    return _("Theorem 3.8 with a pass at one target step (not drawn: {lo:.2f}–{hi:.2f}× at these k): measured speed "
             "sits below it at {below} of {n} k. The dashed line prices the pass as these runs paid it, v(k + 1): "
             "measured sits below it at {paid} of {n} k. What is left is what a run pays besides its rounds: "
             "reading the prompt and the engine's bookkeeping between passes; tokens a round do not depend on "
             "timing.").format(lo=min(free), hi=max(free), below=sum(p.speedup < p.bound for p in points),
                               paid=sum(p.speedup < p.bound_with_verify for p in points), n=len(points))


def mean_alpha(points) -> float:
    return sum(p.alpha for p in points) / len(points)


@dataclass(frozen=True)
class Whose:
    """Which k of a shipped sweep show a newer run here (`here`), and the k this machine's prices pick."""
    here: set = field(default_factory=set)
    picked: int | None = None


def ksweep_lines(points, scope: str, shipped_from: str | None = None, date: str | None = None,
                 whose: Whose = Whose()) -> None:
    """The sweep's headline numbers, what it ran (`scope`: T and the prompts) and its timing warnings
    (`shipped_from`, `date`: the CPU and day of a shipped sweep; `whose`: the k measured here since, and the
    k the prices pick, set beside the best where it is another)."""
    best = max(points, key=lambda p: p.speedup)

    def badge(p) -> str:
        return badges.here() if p.k in whose.here else badges.of(shipped_from, date)
    # the badge beside the speedup it is for (review 55: "measured here α̂ = 0.51 (mean β over every k)" where two of
    # eight k ran here; α̂ is the models' and the text's, the same on any machine)
    line = (_("α̂ = **{alpha:.2f}** (mean β over every k), c = **{c:.3f}** (draft step / target one-token step), "
              "best measured speedup {badge} **{best:.2f}×** at k = {k} (median of {repeats} interleaved repeats")
            if shipped_from is None
            else _("α̂ = **{alpha:.2f}** (mean β over every k), best measured speedup {badge} **{best:.2f}×** at k = "
                   "{k} (median of {repeats} interleaved repeats"))      # a shipped sweep's c was that machine's
    # its word by the box's rule: a best within the spread of 1 is break-even, not a k that pays (review 29)
    word = answer_word(best.speedup, best.speedup_min, best.speedup_max)
    spread = f", {best.speedup_min:.2f}–{times(best.speedup_max)}): {word} · {scope}."
    settings = state.settings()
    section = SOURCES["ksweep"]                                 # a variable: the catalog holds the words
    here = shipped_from is None or settings.k in whose.here      # the chart's point at the sidebar's k: this machine's
    card = pair_card_view.pointer(settings.temperature, settings.k, prompts=scope.split(", ", 1)[-1],
                                  **({"whose": badges.here()} if here else {"section": _(section)}))
    st.write(line.format(alpha=mean_alpha(points), c=points[0].c, badge=badge(best), best=best.speedup, k=best.k,
                         repeats=best.repeats) + spread + picked_clause(points, best, whose.picked, badge))
    st.caption(card)
    busy = [p for p in points if p.clock == Clock.CPU]      # a busy run measured here says so as here's (review 32)
    warn(points, None if busy and all(p.k in whose.here for p in busy) else shipped_from)


def picked_clause(points, best, k: int | None, badge) -> str:
    """Where the prices pick another k than the sweep's best, that k's measured figure beside it and whether the
    two can be told apart (review 31: "best 1.03× at k = 2" beside the box's k = 1); '' otherwise."""
    at = next((p for p in points if p.k == k), None)
    if at is None or at.k == best.k:
        return ""
    overlap = at.speedup_max >= best.speedup_min
    head = _(" At k = {k}, the k this machine's prices pick: **{x}** ({span}) {badge}: ").format(
        k=at.k, x=times(at.speedup), span=span(at.speedup_min, at.speedup_max), badge=badge(at))
    tail = (_("the two ranges overlap, so these runs cannot tell k = {best} from k = {k}.") if overlap else
            _("k = {best} measured faster beyond the spread; the prices' pick is a prediction, these runs a "
              "measurement."))       # each part formatted alone: Korean particles agree in format (ui/korean.py)
    return head + tail.format(k=at.k, best=best.k)


def profile_c(runs_c: float, pair, drafter: str) -> None:
    """Where these runs' c is not the profile's (the machine's load moves timings), one line with both."""
    profiled = machine.of(pair)
    c = machine.draft_c(profiled, drafter, pair.draft_name)
    if c and abs(runs_c / c - 1) > 0.15:
        st.caption(_("c = {runs:.3f} in these runs; this machine's profile (measured at start) has c = {c:.3f}: "
                     "timings move with the machine's load, so each measurement states its own.").format(
            runs=runs_c, c=c))
