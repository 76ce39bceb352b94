"""Drafters compared: each embedded draft, n-gram lookup and the draft-length policies."""
from dataclasses import replace

import streamlit as st

from specdec import defaults
from specdec.bench import machine, repriced
from specdec.bench.compared import ALL, DrafterTable, compare, variants
from specdec.drafters.registry import DRAFTERS
from specdec.models.kernels import cpu_model
from specdec.prompts import round_robin
from specdec.records.provenance import Clock
from specdec.settings import LENGTHS
from ui import (
    best_drafter_view,
    family,
    jobs,
    loaders,
    many_view,
    payoff_view,
    picked_k_view,
    shell,
    sidebar,
    state,
    tables,
)
from ui.examples import kind_name
from ui.figures.bars import priced_bars
from ui.figures.drafters import drafters_figure
from ui.i18n import _
from ui.lessons import badges, shipped, store, store_words
from ui.lessons.acceptance_words import disagreement
from ui.lessons.bench_words import drafter_name, machine_short
from ui.lessons.drafters import (
    ALL_COLUMNS,
    beyond_caption,
    beyond_tokens,
    figure_key,
    ngram_caption,
    own_row,
    priced_here,
    priced_left_out,
    result_key,
    text_kinds,
    text_kinds_caption,
    winners,
)
from ui.lessons.fast import clock_note, spread_warning
from ui.lessons.fast_repriced import LOOKUPS, no_profile
from ui.lessons.price_table import pass_price_on
from ui.measured import local, measured
from ui.round_view import chart

shell.page(__file__)
PAIR = sidebar.active_pair()              # once: each call draws the sidebar's words about the target again
TARGET, DRAFTS, POLICY_DRAFT = family.of(PAIR)
CHAT = family.chats(TARGET)
st.title(_("Drafters compared"))
st.caption(_("Same prompts, same target ({target}): which drafter wins, and on which kind of text?")
           .format(target=TARGET))
payoff_view.render(PAIR, state.settings())

N = st.slider(_("Prompts (taken one of each kind in turn)"), 2, 32, defaults.DRAFTERS_PROMPTS, key="drafters_n")
PROMPTS = round_robin(family.prompt_set(CHAT), N)
MAX_NEW = LENGTHS.drafters


SETTINGS = replace(state.settings(), max_new_tokens=MAX_NEW, seed=0, policy="constant")   # policies: rows of their own
if state.settings().policy != "constant":
    st.caption(_("Every drafter below drafts a constant k = {k}, and the draft-length policies are rows of their "
                 "own; the sidebar's policy applies in the answer box above.").format(k=SETTINGS.k))
VARIANTS = variants(DRAFTS, POLICY_DRAFT, SETTINGS)


def measure():
    s = SETTINGS
    key = result_key(TARGET, DRAFTS, s, PROMPTS, CHAT, state.ran())
    table = measured(
        "drafters", key,
        lambda pr: compare(loaders.load, TARGET, VARIANTS, PROMPTS, s, pr, repeats=defaults.REPEATS, chat=CHAT),
        record=DrafterTable, on_fresh=lambda fresh: store.file(fresh.points, KEY_OF, "drafters"),
        button=_("Compare the drafters"),
        intro=_("{n} prompts, {tokens} new tokens, k = {k}, T = {t}; the policies use {draft} "
                "(confidence threshold {conf}); early exit keeps {layers} layers. Cached on disk per "
                "settings.").format(n=len(PROMPTS), tokens=MAX_NEW, k=s.k, t=s.temperature,
                                    draft=POLICY_DRAFT, conf=s.confidence, layers=s.exit_layer))
    if not table:
        return None, None
    points = list(table.points)
    if local("drafters", key, DrafterTable):
        points, _taken = store.agree(points, KEY_OF, "drafters")
        return points, None
    return points, table.provenance.cpu or "?"          # shipped: measured on that CPU


KEY_OF = figure_key(TARGET, SETTINGS, VARIANTS, PROMPTS, CHAT, state.ran())
points, ELSEWHERE = measure()          # ELSEWHERE: the CPU of a shipped result
PRICED_HERE = bool(ELSEWHERE) and not shipped.alike(ELSEWHERE)   # another CPU model's: its tokens priced here


def pass_price() -> float | None:
    """v(k + 1) on the machine that measured the comparison: this one's profile, or the k sweep
    shipped from the same CPU (None: neither has it)."""
    if not ELSEWHERE:
        found = machine.of(PAIR) if PAIR is not None else None
        return found.v.get(SETTINGS.k + 1) if found else None
    return pass_price_on(ELSEWHERE, TARGET, SETTINGS.k)


def pass_of(v: float | None):
    """The least a round of a compared drafter pays: v(k + 1) for one that drafts k every round
    (a draft model at a constant k), one pass for the rest (lookups draft only what they find)."""
    every_round = {x.label for x in VARIANTS if x.policy == "constant" and not DRAFTERS[x.drafter].finds}
    return lambda p: v if v is not None and p.drafter in every_round else 1.0


PASS_OF = pass_of(pass_price())


def priced(overall) -> list:
    """A shipped comparison's drafters at this machine's prices (tokens a round travel, prices do
    not), said in one sentence; [] without this machine's profile for the pair."""
    here = repriced.compared(overall, VARIANTS, SETTINGS.k, machine.of(PAIR) if PAIR is not None else None)
    if not here:
        st.markdown(no_profile(cpu_model()))
        return []
    done = {r.point.drafter for r in here}
    st.markdown(priced_here(here, cpu_model(), SETTINGS.k), help=_(LOOKUPS))
    st.caption(priced_left_out([p.drafter for p in overall if p.drafter not in done]))
    return here


def speed_chart(overall, here: list) -> None:
    """Speedups by drafter: this machine's prices beside a shipped comparison's, or the measured ones."""
    title = (_("Speedup (CPU time: the machine was busy)") if overall[0].clock == Clock.CPU
             else _("Wall-clock speedup")) + " · " + at_k()
    if not here:
        chart(drafters_figure(overall, "speedup", title), "drafters-speed")
        return
    by_label = {r.point.drafter: r.speedup for r in here}
    chart(priced_bars([drafter_name(p.drafter) for p in overall], [by_label.get(p.drafter) for p in overall],
                      [p.speedup for p in overall], _("here, priced again ({cpu})").format(cpu=cpu_model()),
                      _("measured on {cpu}, for comparison").format(cpu=machine_short(ELSEWHERE)),
                      _("Speedup by drafter")), "drafters-speed")


def at_k() -> str:
    """The charts' scope in their titles: the sidebar's k, on this page's prompts (the table's row of the k
    this machine's prices pick ran on the box's; review 28: a green bar beside another winner above)."""
    return _("k = {k} (the sidebar's), {n} prompts").format(k=SETTINGS.k, n=len(PROMPTS))


def shipped_caption() -> None:
    """Above a table of a shipped comparison: whose c and speedups it holds."""
    if ELSEWHERE:
        st.caption(badges.shipped(ELSEWHERE) + " " + _("That machine's c and speedups:"))


def overall_numbers(overall, here: list) -> None:
    """Every drafter's numbers over all prompts, and how they were measured (behind an expander)."""
    shipped_caption()
    table = tables.frame([replace(p, drafter=drafter_name(p.drafter)) for p in overall])
    tables.show(table[[c for c in ALL_COLUMNS if c in table]], "drafters_all")
    st.caption(_("speedup: median of {n} interleaved repeats, with their min and max; c: draft "
                 "step / target one-token step.").format(n=defaults.REPEATS))
    others = store_words.elsewhere_caption(overall, KEY_OF, "drafters", lambda p: p.drafter, kind_name, ELSEWHERE,
                                     {r.point.drafter: r.speedup for r in here})
    speed_set = store.PromptSet.of(family.speed_prompts(CHAT)[0], CHAT, LENGTHS.speed, "speed")
    st.caption(others or _("When it is fast measures these drafts on {other}; this page on {this}: other "
                           "prompts, so other figures.").format(
        other=store_words.set_name(speed_set, kind_name),
        this=store_words.set_name(store.PromptSet.of([p.prompt for p in PROMPTS], CHAT, MAX_NEW, "drafters/all"),
                            kind_name)))
    note = disagreement([(drafter_name(p.drafter), p.acceptance_rate, p.mean_acceptance_length) for p in overall])
    if note:
        st.caption(note)


if points:
    best_drafter_view.render(PAIR, state.settings(), N, table=True)
    picked_k_view.offer(PAIR, state.settings(), "drafters_picked_k")        # the comparison at the k that pays here
    overall = [p for p in points if p.kind == ALL]
    here_set = store_words.set_name(store.PromptSet.of([p.prompt for p in PROMPTS], CHAT, MAX_NEW, "drafters/all"),
                              kind_name)
    repriced_rows = repriced.compared(overall, VARIANTS, SETTINGS.k, machine.of(PAIR)) if PRICED_HERE else []
    mine = own_row(overall, PAIR.draft_name, SETTINGS.k, here_set, repriced_rows)
    if (box := payoff_view.measured_line(PAIR, state.settings(), mine)) is not None:
        st.caption(box)                                 # the box's figure is on other prompts: said once, here
    fastest = max(overall, key=lambda p: p.speedup)
    HERE = []
    if PRICED_HERE:                 # measured here or on a machine like this one: the sentence above names the fastest
        with st.expander(_("How the table's figures were priced")):
            HERE = priced(overall)
            st.caption(badges.of(ELSEWHERE) + " " + _(
                "For comparison, as measured there at that day's prices: the fastest over every prompt was "
                "{drafter} at {speedup:.2f}× ({lo:.2f}–{hi:.2f}×), acceptance rate {acc}. The table ranks at this "
                "machine's prices, which price no draft-length policy.").format(
                drafter=drafter_name(fastest.drafter), speedup=fastest.speedup, lo=fastest.speedup_min,
                hi=fastest.speedup_max,
                acc="—" if fastest.acceptance_rate is None else f"{fastest.acceptance_rate:.0%}"))
    c1, c2 = st.columns(2)
    with c1:
        speed_chart(overall, HERE)
    with c2:
        chart(drafters_figure(overall, "acceptance_rate", _("Acceptance rate") + " · " + at_k()), "drafters-acc")
    note = spread_warning(overall, lambda p: drafter_name(p.drafter))
    if note:
        st.warning(note, icon=":material/warning:")
    if clock_note(overall):
        st.info(clock_note(overall, ELSEWHERE))
    with st.expander(_("Every drafter's numbers, and how they were measured")):
        overall_numbers(overall, HERE)
    st.subheader(_("Winner per kind of text"))
    if PRICED_HERE:
        st.caption(badges.shipped(ELSEWHERE) + " " + _("tokens a round and measured speedups") + " · "
                   + badges.predicted() + " " + _("speedup priced here"))
    elif ELSEWHERE:
        st.caption(badges.shipped(ELSEWHERE) + " " + _("tokens a round and measured speedups"))
    if len(PROMPTS) < 2 * len({p.kind for p in PROMPTS}):
        st.caption(_("Each kind has {n} prompt(s) here at most: the winners per kind below are a hint, not a "
                     "ranking (Where it works measures whole sets per kind).").format(
            n=max(sum(p.kind == k for p in PROMPTS) for k in {p.kind for p in PROMPTS})))
    kinds = sorted({p.kind for p in points} - {ALL})
    alike = bool(ELSEWHERE) and not PRICED_HERE                  # a machine like this one's: shown as measured
    profile = machine.of(PAIR) if PAIR is not None and not alike else None
    beyond = beyond_tokens(points, pass_of=PASS_OF)
    rows = winners(points, kinds, lambda ps: repriced.compared(ps, VARIANTS, SETTINGS.k, profile), beyond)
    odd = {(p.kind, p.drafter) for p in beyond}      # marked in the table too
    shorter = text_kinds(points)                     # kinds whose figures are mostly the text written: †

    def shown(r: dict) -> dict:
        """A row as the table shows it: a speedup its rounds cannot give is left out, marked ⚠; so is the speedup
        of a kind whose target-alone runs wrote far shorter text, marked †."""
        flagged = (r["kind"], r["drafter"]) in odd
        best = r["speedup_here"] if r["speedup_here"] is not None else r["speedup"]
        slowest = " · " + (_("none pays here") if r["speedup_here"] is not None
                           else _("least slow: none pays")) if best < 1 else ""       # the target alone wins that kind
        return {**r, "drafter": drafter_name(r["drafter"]) + (" ⚠" if flagged else "") + slowest,
                "kind": kind_name(r["kind"]) + (" †" if r["kind"] in shorter else ""),
                "speedup": None if flagged or r["kind"] in shorter else r["speedup"]}
    table = tables.frame([shown(r) for r in rows])
    tables.show(table, "drafters_winners")
    if any(r["speedup_here"] is not None for r in rows):
        st.caption(_("Each kind's winner at this machine's prices (every drafter but the draft-length policies; a "
                     "lookup at the pass of what it drafted), from its tokens a round; the speedup beside it as "
                     "measured ({where}).").format(
            where=machine_short(ELSEWHERE) if ELSEWHERE else _("here")))
    flagged = {"⚠": any((r["kind"], r["drafter"]) in odd for r in rows), "†": any(r["kind"] in shorter for r in rows)}
    marks = {mark: said for mark, said in (         # the marks the table shows (review 58: ⚠ named, none shown)
        ("⚠", beyond_caption(points, kind_name, SETTINGS.temperature, PASS_OF, profile is not None)),
        ("†", text_kinds_caption(points, kind_name, profile is not None))) if said is not None and flagged[mark]}
    if marks:                                        # caveats behind an expander (issue 51: fewer words in view)
        with st.expander(_("Why rows are marked {marks}").format(marks=_(" or ").join(marks)), icon=":material/help:"):
            for said in marks.values():
                st.caption(said)
    if (said := ngram_caption(points, kind_name, lambda ps: repriced.compared(ps, VARIANTS, SETTINGS.k, profile),
                              PAIR.draft_name.split("/", 1)[-1] if PAIR.draft_name else None)) is not None:
        st.caption(said)
    jobs.csv_button(tables.frame(points), "drafters-compared", "drafters_csv")

if PAIR is not None:
    st.divider()
    st.header(_("Try it on many prompts"))
    st.caption(_("The table above pools its prompts. One drafter against another on prompts of one kind, prompt by "
                 "prompt, with the spread over prompts (the sidebar's pair, k and T):"))
    many_view.render(PAIR, knob="drafter", key="drafters_many")
