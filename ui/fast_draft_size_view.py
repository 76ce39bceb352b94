"""When it is fast, section 3: too weak vs too big — every draft of the family against the same
target, measured here (or shipped, priced here), with each draft's role."""
from __future__ import annotations

from dataclasses import replace

import streamlit as st

from specdec import defaults
from specdec.bench import sweeps
from specdec.bench.points import Sweep
from specdec.records.provenance import Clock
from specdec.settings import LENGTHS
from ui import best_drafter_view, family, fast_repriced_view, fast_shipped_view, jobs, loaders, state, tables
from ui.context_view import TWO_FIGURES
from ui.examples import kind_name
from ui.fast_common_view import MAX_NEW, acceptance_note, shipped_agree, taken_caption, warn
from ui.figures import fast as lp
from ui.i18n import _
from ui.lessons import badges, fast, shipped, store, store_words
from ui.lessons.bench_words import drafter_name, machine_short
from ui.lessons.fast_draft_size import at_prices, exits_note, result_key, roles_caption, whose
from ui.measured import local
from ui.measured import measured as measured_result
from ui.round_view import chart
from ui.safe import md

TRADEOFF_COLUMNS = ("draft", "acceptance_rate", "mean_acceptance_length", "c", "speedup", "speedup_min",
                    "speedup_max")


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
    key = result_key(target, drafts, settings, texts, chat, state.ran(), exits)
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
    points, mine, taken = sorted(sweep.points, key=lambda p: p.params), local("tradeoff", key, Sweep), []
    if mine:
        points, taken = store.agree(points, key_of, "tradeoff")
        taken_caption(taken, "draft")
    else:
        points, swept = shipped_agree(points, key_of, names, settings, chat, key)
        if shipped.alike(sweep.provenance.cpu):             # a setting measured here since: its newer figure
            points, taken = store.agree(points, key_of, "tradeoff", keep=False)
        here_now = {p.draft for p, _s in taken}             # one caption a draft: its newest source (review 34)
        taken_caption([(p, s) for p, s in swept if p.draft not in here_now] + taken, "draft")
    best_drafter_view.render(pair, state.settings())
    st.markdown(fast.tradeoff_caption(points, None if mine else sweep.provenance.cpu))
    if (note := fast.size_note(points)) is not None:
        st.caption(note)
    if not mine and not shipped.alike(sweep.provenance.cpu):      # alike: the bars took this machine's figures
        fast_shipped_view.here_too(points, key_of)
    here = [] if mine or shipped.alike(sweep.provenance.cpu) else fast_repriced_view.drafts(points, pair)
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
    if (exits_said := exits_note(points, state.settings().exit_layer)) is not None:
        st.caption(exits_said)
    here_since = {p.draft for p, _s in taken}                # a busy run measured here says so as here's (review 33)
    busy_here = busy and all(p.draft in here_since for p in points if p.clock == Clock.CPU)
    warn(points, None if mine or busy_here else sweep.provenance.cpu or "?",
         lambda p: md(drafter_name(p.draft.split("/", 1)[-1])))
    with st.expander(_("Which draft is too weak or too big, and every number")):
        tradeoff_method(points, key_of, chat, None if mine else sweep.provenance.cpu or "?", here, here_since)


def roles_text(points, shipped_from: str | None, here=(), since=frozenset()) -> str | None:
    """The drafts' roles (too weak, right, too big) with whose figures they are (tradeoff_method's arguments)."""
    priced = at_prices(here, points) if here else []                        # roles at this machine's prices
    mine = {r.point.draft for r in here} if priced else None

    def name(d: str) -> str:
        return md(drafter_name(d.split("/", 1)[-1])) + (" " + badges.here() if d in since and shipped_from
                                                        else whose(d, mine, shipped_from))
    sizes = roles_caption(priced or points, name)
    if sizes is None or shipped_from is None:
        return sizes
    return _sizes_head(shipped_from, bool(priced), bool(since)) + "\n\n" + sizes


def _sizes_head(shipped_from: str, priced: bool, since: bool) -> str:
    """Whose figures a shipped trade-off's roles give: this machine's prices, or that machine's c and speedups
    (`since`: some drafts show a run measured here since, marked)."""
    if priced:
        return badges.profile() + " " + _("Each draft's tokens a round at this machine's prices:")
    said = _("That machine's c and speedups; a draft marked {badge} shows this machine's run since:").format(
        badge=badges.here()) if since else _("That machine's c and speedups:")
    return badges.shipped(shipped_from) + " " + said


def tradeoff_method(points, key_of, chat: bool, shipped_from: str | None = None, here=(), since=frozenset()) -> None:
    """Section 3 behind its expander: the drafts' roles, the same drafts on other prompts, the
    table (the columns that fit; the CSV holds all). `shipped_from`: the CPU of a shipped
    trade-off, whose c and speedups are named as that machine's; `here`: its drafts priced here; `since`: the
    drafts whose figures are runs measured here since (review 57: "That machine's … draft 0.70×", this machine's)."""
    if (said := roles_text(points, shipped_from, here, since)) is not None:
        st.markdown(said)
    acceptance_note([(md(drafter_name(p.draft.split("/", 1)[-1])), p.acceptance_rate, p.mean_acceptance_length)
                     for p in points])
    others = store_words.elsewhere_caption(points, key_of, "tradeoff", lambda p: p.draft, kind_name, shipped_from,
                                     {r.point.draft: r.speedup for r in here})
    st.caption(others or _("Drafters compared measures the same drafts on prompts of every kind ({tokens} "
                           "tokens each); this page on {this}: other prompts, so other figures.").format(
        tokens=LENGTHS.drafters, this=store_words.set_name(family.speed_set(chat), kind_name)))
    table = tables.frame([replace(p, draft=drafter_name(p.draft)) for p in points])     # n-gram lookup in Korean
    tables.show(table[[c for c in TRADEOFF_COLUMNS if c in table]], "fast_tradeoff_rows")
    jobs.csv_button(table, "draft-tradeoff", "fast_tradeoff_csv")
