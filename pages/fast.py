"""When it is fast: Leviathan's theory, measured on this machine, and the draft-size trade-off."""
from dataclasses import replace

import streamlit as st

from specdec import defaults
from specdec.bench import machine, sweeps
from specdec.bench.points import Sweep, TempSweep
from specdec.defaults import K_SWEEP, TEMPERATURE_SWEEP
from specdec.records.provenance import Clock
from specdec.settings import LENGTHS
from specdec.wording import times
from ui import (
    family,
    fast_bench_view,
    fast_regime_view,
    fast_repriced_view,
    fast_shipped_view,
    fast_theory_view,
    jobs,
    loaders,
    many_view,
    pair_card_view,
    payoff_view,
    session,
    shell,
    sidebar,
    state,
    tables,
)
from ui.context_view import TWO_FIGURES
from ui.examples import kind_name
from ui.figures import fast as lp
from ui.i18n import _
from ui.lessons import badges, fast, store
from ui.lessons.acceptance_words import disagreement
from ui.lessons.bench_words import drafter_name, machine_short
from ui.lessons.fast_draft_size import at_prices, roles_caption
from ui.lessons.payoff_words import SOURCES
from ui.measured import local, shipped_only
from ui.measured import measured as measured_result
from ui.round_view import chart
from ui.safe import md

shell.page()

st.title(_("When speculation is fast"))
st.caption(_("Speed depends on three numbers: how often drafts are accepted (α), how many you "
             "draft (k), and how much a draft step costs relative to a target step (c)."))

MAX_NEW = LENGTHS.speed


def acceptance_note(named: list[tuple]) -> None:
    """(name, acceptance rate, tokens a round) in different orders: a computed sentence says why."""
    note = disagreement(named)
    if note:
        st.caption(note)


def warn(points, shipped_from: str | None = None) -> None:
    """Repeats that disagree; a busy machine's clock (`shipped_from`: the CPU of a shipped result)."""
    note = fast.spread_warning(points)
    if note:
        st.warning(note, icon=":material/warning:")
    if fast.clock_note(points):
        st.info(fast.clock_note(points, shipped_from))


def ksweep_key(names, settings, chat: bool) -> dict:
    texts, _inputs = family.speed_prompts(chat)
    return store.measurement("ksweep", names, settings, texts, chat, state.ran(), repeats=defaults.REPEATS)


def shipped_agree(points, key_of, names, settings, chat: bool, key: dict) -> list:
    """Shipped draft sizes and a shipped k sweep measured on the same machine the same day: a
    point of the same key shows the k sweep's figure, and says so."""
    mine = shipped_only("tradeoff", key, Sweep)
    sweep = shipped_only("ksweep", ksweep_key(names, settings, chat), Sweep)    # None: the k sweep is this machine's
    same = mine and sweep and all(getattr(mine.provenance, f) == getattr(sweep.provenance, f)
                                  for f in ("cpu", "date", "threads"))
    if not same:
        return points
    points, taken = store.agree_with(points, key_of, sweep.points,
                                     fast.ksweep_figure(names, settings, family.speed_set(chat), state.ran()))
    taken_caption([(p, "ksweep") for p in taken], "draft")
    return points


def taken_caption(taken: list, label: str) -> None:
    """Say which points show another section's newer measurement of the same key."""
    if taken:
        named = [getattr(p, label) for p, _s in taken]
        st.caption(_("{rows}: the newest measurement of the same setting and prompts, taken by {section} "
                     "— one quantity, one figure.").format(
            rows=", ".join(md(n) if isinstance(n, str) else f"k = {n}" for n in named),
            section=", ".join(sorted({SECTIONS.get(s, s) for _r, s in taken}))))


SECTIONS = {"ksweep": _("the k sweep (section 2)"), "tradeoff": _("Too weak vs too big (section 3)"),
            "drafters": _("Drafters compared")}


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
        intro=_("Runs speculative and autoregressive generation on {n} bundled prompts ({tokens} "
                "tokens each, T = {t}) for k = 1…8, and measures c.").format(
            n=len(texts), tokens=MAX_NEW, t=settings.temperature))
    fast_shipped_view.ksweep(key, Sweep, settings)
    if not sweep:
        return
    points, mine = list(sweep.points), local("ksweep", key, Sweep)
    if mine:
        points, taken = store.agree(points, key_of, "ksweep")
        taken_caption(taken, "k")
    scope = f"T = {settings.temperature:g}, " + store.set_name(family.speed_set(chat), kind_name)
    ksweep_lines(points, scope, None if mine else sweep.provenance.cpu, sweep.provenance.date)
    if mine:
        profile_c(points[0].c, pair, settings.drafter)
    here = [] if mine else fast_repriced_view.k_sweep(points, pair, settings.drafter)
    alpha = round(mean_alpha(points), 2)
    on = machine_short(sweep.provenance.cpu or "?")
    chart(lp.repriced_sweep_figure(alpha, settings.k, here, on, box_at_k(pair)) if here else
          lp.theory_figure(alpha, settings.k, points[0].c, points, k_max=8,
                           measured_on=None if mine else machine_short(sweep.provenance.cpu or "?")), "fast-measured")
    with st.expander(_("How it was measured: tokens a round, pass prices, and every number")):
        ksweep_method(points)


def box_at_k(pair):
    """The box's figure measured here for the sidebar's settings, where it drafts a constant k (a
    point of the k sweep's chart); None otherwise."""
    settings = state.settings()
    return payoff_view.answer(pair, settings)[0].measured if settings.policy == "constant" else None


def ksweep_method(points) -> None:
    """Section 2 behind its expander: the pass prices, tokens a round, why measured and theory
    differ, and the sweep's table (the columns that fit; the CSV holds all)."""
    costs = ", ".join(f"v({p.k + 1}) = {p.verify_cost:.2f}" for p in points)
    st.write(_("In these runs one target pass over k + 1 tokens cost v(k + 1) target steps: {costs}. "
               "The dashed grey line is the theorem with those prices.").format(costs=costs))
    chart(lp.tokens_figure(points), "fast-tokens")
    acceptance_note([(f"k = {p.k}", p.acceptance_rate, p.mean_acceptance_length) for p in points])
    below = sum(p.speedup < p.bound for p in points)
    st.caption(_("Measured speed sits below Theorem 3.8 at {below} of {n} k. The theorem prices the "
                 "verification pass at one target step; the dashed line uses the price v(k + 1) these "
                 "runs paid. What is left is what a run pays besides its rounds: reading the prompt "
                 "and the engine's bookkeeping between passes; tokens a round do not depend on "
                 "timing.").format(below=below, n=len(points)))
    if (profiled := fast.profile_caption(points)) is not None:
        st.caption(profiled)
    table = tables.frame(points)
    tables.show(table[[c for c in KSWEEP_COLUMNS if c in table]], "fast_rows")
    jobs.csv_button(table, "k-sweep", "fast_csv")


KSWEEP_COLUMNS = ("k", "alpha", "mean_acceptance_length", "speedup", "speedup_min", "speedup_max", "verify_cost",
                  "predicted_run")
TRADEOFF_COLUMNS = ("draft", "acceptance_rate", "mean_acceptance_length", "c", "speedup", "speedup_min",
                    "speedup_max")


def mean_alpha(points) -> float:
    return sum(p.alpha for p in points) / len(points)


def ksweep_lines(points, scope: str, shipped_from: str | None = None, date: str | None = None) -> None:
    """The sweep's headline numbers, what it ran (`scope`: T and the prompts) and its timing warnings
    (`shipped_from`, `date`: the CPU and day of a shipped sweep)."""
    best = max(points, key=lambda p: p.speedup)
    where = badges.of(shipped_from, date)
    line = (_("α̂ = **{alpha:.2f}** (mean β over every k), c = **{c:.3f}** (draft step / target one-token step), "
              "best measured speedup **{best:.2f}×** at k = {k} (median of {repeats} interleaved repeats")
            if shipped_from is None
            else _("α̂ = **{alpha:.2f}** (mean β over every k), best measured speedup **{best:.2f}×** at k = {k} "
                   "(median of {repeats} interleaved repeats"))      # a shipped sweep's c was that machine's
    spread = f", {best.speedup_min:.2f}–{times(best.speedup_max)}) · {scope}."
    settings = state.settings()
    section = SOURCES["ksweep"]                                 # a variable: the catalog holds the words
    card = pair_card_view.pointer(settings.temperature, settings.k, prompts=scope.split(", ", 1)[-1],
                                  **({"whose": badges.here()} if shipped_from is None else {"section": _(section)}))
    st.write(where + " " + line.format(alpha=mean_alpha(points), c=points[0].c, best=best.speedup, k=best.k,
                                        repeats=best.repeats) + spread)
    st.caption(card)
    warn(points, shipped_from)


def profile_c(runs_c: float, pair, drafter: str) -> None:
    """Where these runs' c is not the profile's (the machine's load moves timings), one line with both."""
    profiled = machine.of(pair)
    c = machine.draft_c(profiled, drafter, pair.draft_name)
    if c and abs(runs_c / c - 1) > 0.15:
        st.caption(_("c = {runs:.3f} in these runs; this machine's profile (measured at start) has c = {c:.3f}: "
                     "timings move with the machine's load, so each measurement states its own.").format(
            runs=runs_c, c=c))


def also_early(exits) -> str:
    if not exits:
        return ""
    if len(exits) == 1:
        return " " + _("Also the target's own first {layers} layers with its head (early exit): a draft nearly "
                       "as big as the target.").format(layers=exits[0])
    return " " + _("Also the target's own first {layers} layers with its head (early exit): a ladder of drafts "
                   "between the trained drafts and the target in size.").format(
        layers=", ".join(map(str, exits)))


def tradeoff(pair, names) -> None:
    st.header(_("3 · Too weak vs too big: every draft of the family"))
    settings = replace(state.settings(), max_new_tokens=MAX_NEW)
    k, t = settings.k, settings.temperature
    target, drafts = family.sizes(pair)
    guests = [d for d in drafts if d.split("/")[0] != target.split("/")[0]]
    if guests:
        st.caption(_("{drafts}: another tokenizer than {target}'s, so they draft across vocabularies (the "
                     "Across vocabularies page takes such a round apart).").format(
            drafts=", ".join(guests), target=target))
    chat = family.chats(target)
    texts, inputs = family.speed_prompts(chat)
    exits = family.too_big_exits(target)
    key = store.measurement("tradeoff", (target, None), settings, texts, chat, state.ran(), drafts=drafts,
                            repeats=defaults.REPEATS, **({"exits": list(exits)} if exits else {}))
    key_of = fast.tradeoff_figure(target, settings, family.speed_set(chat), state.ran())
    sweep = measured_result(
        "tradeoff", key,
        lambda pr: sweeps.draft_tradeoff(loaders.load, target, drafts, inputs, settings, pr, defaults.REPEATS, exits),
        record=Sweep, on_fresh=lambda fresh: store.file(fresh.points, key_of, "tradeoff"),
        button=_("Measure every draft"),
        intro=_("Same target, k = {k}, T = {t}: acceptance, cost ratio c and real speedup for each "
                "embedded draft and each drafter that runs no model. Computed once per machine and "
                "cached.").format(k=k, t=t)
        + also_early(exits))
    fast_shipped_view.tradeoff(key, Sweep, settings)
    if not sweep:
        return
    points, mine = sorted(sweep.points, key=lambda p: p.params), local("tradeoff", key, Sweep)
    if mine:
        points, taken = store.agree(points, key_of, "tradeoff")
        taken_caption(taken, "draft")
    else:
        points = shipped_agree(points, key_of, names, settings, chat, key)
    st.markdown(fast.tradeoff_caption(points, None if mine else sweep.provenance.cpu))
    if (note := fast.size_note(points)) is not None:
        st.caption(note)
    if not mine:
        fast_shipped_view.here_too(points, key_of)
    here = [] if mine else fast_repriced_view.drafts(points, pair)
    on = None if mine else machine_short(sweep.provenance.cpu or "?")
    busy = any(p.clock == Clock.CPU for p in points)
    c1, c2 = st.columns(2)
    with c1:
        chart(lp.tradeoff_figure(points, "acceptance_rate", _("Acceptance rate (accepted ÷ drafted) by draft size"),
                                 on, here), "fast-acc")
    with c2:
        chart(lp.tradeoff_figure(points, "speedup", _("Speedup by draft size") if here else
                                 _("Speedup (CPU time: the machine was busy)") if busy
                                 else _("Wall-clock speedup by draft size"), on, here), "fast-speed")
    st.caption(_(TWO_FIGURES))              # why the rates above sit below section 2's α̂
    warn(points, None if mine else sweep.provenance.cpu or "?")
    with st.expander(_("Which draft is too weak or too big, and every number")):
        tradeoff_method(points, key_of, chat, None if mine else sweep.provenance.cpu or "?", here)


def tradeoff_method(points, key_of, chat: bool, shipped_from: str | None = None, here=()) -> None:
    """Section 3 behind its expander: the drafts' roles, the same drafts on other prompts, the
    table (the columns that fit; the CSV holds all). `shipped_from`: the CPU of a shipped
    trade-off, whose c and speedups are named as that machine's; `here`: its drafts priced here."""
    priced = at_prices(here, points) if here else []                        # roles at this machine's prices
    sizes = roles_caption(priced or points, lambda d: md(drafter_name(d.split("/", 1)[-1])))
    if sizes:
        st.markdown(sizes if shipped_from is None else (
            badges.profile() + " " + _("Each draft's tokens a round at this machine's prices:") if priced
            else badges.shipped(shipped_from) + " " + _("That machine's c and speedups:")) + "\n\n" + sizes)
    acceptance_note([(md(drafter_name(p.draft.split("/", 1)[-1])), p.acceptance_rate, p.mean_acceptance_length)
                     for p in points])
    others = store.elsewhere_caption(points, key_of, "tradeoff", lambda p: p.draft, kind_name, shipped_from,
                                     {r.point.draft: r.speedup for r in here})
    st.caption(others or _("Drafters compared measures the same drafts on prompts of every kind ({tokens} "
                           "tokens each); this page on {this}: other prompts, so other figures.").format(
        tokens=LENGTHS.drafters, this=store.set_name(family.speed_set(chat), kind_name)))
    table = tables.frame([replace(p, draft=drafter_name(p.draft)) for p in points])     # n-gram lookup in Korean
    tables.show(table[[c for c in TRADEOFF_COLUMNS if c in table]], "fast_tradeoff_rows")
    jobs.csv_button(table, "draft-tradeoff", "fast_tradeoff_csv")


def temperatures(pair, names) -> None:
    st.header(_("4 · Temperature and acceptance"))
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
        st.caption(fast.temperature_caption(sweep.points))
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
        measured(pair, names)
    with tabs[1]:
        tradeoff(pair, names)
    with tabs[2]:
        temperatures(pair, names)
        many_prompts(pair)
    with tabs[3]:
        fast_regime_view.render(pair)


TABS = (_("1 · Theory"), _("2 · The k sweep"), _("3 · Draft size"), _("4 · Temperature"),
        _("5 · The machine's limits"), _("6 · The benchmark"))

pair = sidebar.active_pair()
names = st.session_state.get("active_pair")
payoff_view.render(pair, state.settings())
st.caption(_("Six sections, one a tab: the theory, then what this machine measured, then the benchmark."))
theory, *sections, bench = st.tabs(TABS, key="fast_tabs")
with theory:
    fast_theory_view.render(pair)
measured_tabs(pair, names, sections)
with bench:
    fast_bench_view.render()
