"""The pair card (ui/lessons/pair_card.py) in a dialog: a button in the box (Home, Step through,
When it is fast, Drafters compared) and one in the sidebar (every page) open it. Two tabs over
the same numbered rows: what each figure measured (acceptance and prices), and why its speedup is
not the box's (speed_table.py)."""
from __future__ import annotations

from typing import Callable

import streamlit as st

from specdec.bench import machine
from specdec.bench.payoff import Payoff
from ui import family, session, state, typical
from ui.i18n import _
from ui.lessons import fast, other_rows, pair_card, payoff_words, speed_table, store

SHOWN = "_pair_card_rows"      # the card's rows as the box numbered them in this run


def rows(pair, settings, p: Payoff, races: tuple[float, ...] = (),
         numbers: pair_card.Numbers | None = None, offered: int | None = None) -> list[speed_table.SpeedRow]:
    """Every figure of the pair the lab shows, the box's answer `p` first (speed_table.rows); on
    Home, its `races` at these settings before it (`numbers`: the newest race's); `offered`: the k the
    box offers instead (the shipped k sweep's figure there is a row too)."""
    names = st.session_state.get("active_pair") or (pair.target_name, pair.draft_name)
    asked = speed_table.Asked(names[0], names[1], settings, family.speed_set(session.uses_chat(pair)), state.ran(),
                              picked=p.k if settings.policy != "constant" else None, offered=offered)
    where = typical.typical(tuple(names), settings.k, settings.temperature, None, store.drafter_id(settings))
    profile = machine.of(pair)
    bench, mine = fast.read_bench(None)[0], fast.BENCH_FILE.exists()
    return (other_rows.race_rows(asked, races, numbers) + speed_table.rows(asked, p, profile)
            + other_rows.where_rows(asked, where, profile) + other_rows.server_rows(asked, profile)
            + other_rows.tree_rows(asked, profile)
            + other_rows.bench_rows(asked, bench, mine, profile))


def box_button(pair, settings, p: Payoff, races: tuple[float, ...] = (),
               numbers: pair_card.Numbers | None = None, offered: int | None = None) -> None:
    """In the box: the pair card's button, named as the sidebar's (a count read as a figure that moved from page to
    page: review 35), opening the card at its settings (`races`:
    Home's, at these settings, and `numbers`: the newest race's; `offered`: the k the box offers instead)."""
    found = rows(pair, settings, p, races, numbers, offered)
    st.session_state[SHOWN] = found                 # for the sections below the box (`pointer`)
    if st.button(_("Pair card: this pair's figures, side by side"), key="pair_card_box",
                 icon=":material/table_chart:"):
        _open(pair, settings, found, p.k)


def pointer(temperature: float, k: int, **which) -> str:
    """Where a section's figure at T and k stands on the card the box above it numbered in this run
    ('the pair card, row 11'; `which`: pair_card.row_of's section, whose and prompts), else the card
    without a number."""
    found = st.session_state.get(SHOWN) or []
    n = pair_card.row_of(found, temperature, k, **which)
    if not n:
        return _("every figure of this pair: the pair card (the answer box's button)")
    said = _("T = {t:g}, k = {k} on the pair card (the answer box's button): row {n}").format(t=temperature, k=k, n=n)
    return said if found[n - 1].same else said + " " + _("(its switch “Show every figure”)")


def sidebar_button(pair, settings, answer: Callable[[], tuple[Payoff, Payoff | None]]) -> None:
    """In the sidebar, on every page: the card at the sidebar's settings (`answer`: the box's answer and
    the k it offers instead, computed only when the button is pressed): the same rows as the box's card."""
    if st.sidebar.button(_("Pair card: this pair's figures, side by side"), key="pair_card_sidebar",
                         icon=":material/table_chart:"):
        p, instead = answer()
        _open(pair, settings, rows(pair, settings, p, offered=instead.k if instead is not None else None), p.k)


def _open(pair, settings, found: list[speed_table.SpeedRow], k: int) -> None:
    """`k`: the k the answer drafts (a policy's pick), whose v(k + 1) row 0 shows."""
    title = _("Pair card: {target} ← {draft}").format(target=pair.target_name, draft=pair.draft_name or "—")
    st.dialog(title, width="large")(_card)(pair, settings, found, k)


def _card(pair, settings, found: list[speed_table.SpeedRow], k: int) -> None:
    profile = _profile(pair, k)
    rows = _("Row 1 answers for these settings (the answer box's figure, on the pages that show the answer box).")
    if profile is not None:
        rows = _("Row 0: this machine's prices, measured at start (not a figure, so the button does not count "
                 "it). Rows 1–{n}: the figures; row 1 answers for these settings.").format(n=len(found))
    st.caption(payoff_words.settings_line(settings, pair.draft_name, pair.reads_features) + ". " + rows)
    only = _shown(found)
    numbers, why = st.tabs([_("Acceptance and prices"), _("Why the speedups differ")])
    table, reasons = pair_card.markdown(found, profile, only), speed_table.markdown(found, only)
    with numbers:
        st.markdown(table)
        st.caption(_("acceptance rate: accepted ÷ drafted · α̂ (mean β): a drafted token's mean chance of "
                     "acceptance · tokens a round (L): kept a round, the final token included · c: a draft "
                     "forward in target steps · v(k + 1): a pass of k + 1 tokens in target steps · —: not "
                     "recorded by that section"))
        seen = [r for i, r in enumerate(found, 1) if only is None or i in only]
        if spread := pair_card.c_spread(seen, profile, getattr(machine.of(pair), "step_ms", None)):
            st.caption(spread)
    with why:
        if (said := speed_table.summary(found, settings)) is not None:
            st.markdown(said)
        st.markdown(reasons)
        st.caption(_("other prompts: acceptance is the text's, so another prompt set keeps other tokens a round · "
                     "a machine like this one: the same CPU model on another day, at that day's prices · the "
                     "column “at this machine's prices” prices another machine's tokens a round here (—: measured "
                     "here or on a machine like this one, so the figure stands as measured) · another T, k or "
                     "policy: the runs drafted and sampled otherwise"))
    st.caption(pair_card.legend(table + reasons))     # the badges this card shows


def _shown(found: list[speed_table.SpeedRow]) -> set[int] | None:
    """The rows at these settings by default, every row at the learner's word (review 50: 17 rows at once)."""
    these = speed_table.at_these(found)
    if not these or len(these) == len(found):
        return None
    if st.toggle(_("Show every figure, other settings too (+{n})").format(n=len(found) - len(these)),
                 key="pair_card_all"):
        return None
    st.caption(_("Rows {rows}: the figures at these settings (T, k and drafter; their prompts may differ).").format(
        rows=", ".join(map(str, sorted(these)))))
    return these


def _profile(pair, k: int) -> pair_card.Numbers | None:
    """This machine's prices measured at start, the card's row 0 (None: not measured yet)."""
    found = machine.of(pair)
    if found is None:
        return None
    return pair_card.Numbers(c=found.c.get(pair.draft_name) if pair.draft_name else None, v=found.v.get(k + 1))
