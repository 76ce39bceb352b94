"""When it is fast, what sections 2–4 share: the length of their runs, the notes under a sweep
(acceptance orders, repeats that disagree, a busy clock), the k sweep's key, and which rows show
another section's newer figure of the same setting."""
from __future__ import annotations

import streamlit as st

from specdec import defaults
from specdec.bench.points import Sweep
from specdec.settings import LENGTHS
from ui import family, state
from ui.i18n import N_, _
from ui.lessons import fast, store
from ui.lessons.acceptance_words import disagreement
from ui.measured import shipped_only
from ui.safe import md

MAX_NEW = LENGTHS.speed


def acceptance_note(named: list[tuple]) -> None:
    """(name, acceptance rate, tokens a round) in different orders: a computed sentence says why."""
    note = disagreement(named)
    if note:
        st.caption(note)


def warn(points, shipped_from: str | None = None, name=lambda p: f"k = {p.k}") -> None:
    """Repeats that disagree, naming the point (`name`); a busy machine's clock (`shipped_from`: the CPU of a
    shipped result)."""
    note = fast.spread_warning(points, name)
    if note:
        st.warning(note, icon=":material/warning:")
    if fast.clock_note(points):
        st.info(fast.clock_note(points, shipped_from))


def ksweep_key(names, settings, chat: bool) -> dict:
    texts, _inputs = family.speed_prompts(chat)
    return store.measurement("ksweep", names, settings, texts, chat, state.ran(), repeats=defaults.REPEATS)


def shipped_agree(points, key_of, names, settings, chat: bool, key: dict) -> tuple[list, list]:
    """Shipped draft sizes and a shipped k sweep measured on one CPU model with the same threads: a point of the
    same key shows the k sweep's figure, the one the box gives ((points, [(point, "ksweep")] of those that took
    one): the caller says so, once with any newer run here: review 34; review 43: two days' runs of one setting
    read 0.74× in the box and 0.76× in the draft-size chart)."""
    mine = shipped_only("tradeoff", key, Sweep)
    sweep = shipped_only("ksweep", ksweep_key(names, settings, chat), Sweep)    # None: the k sweep is this machine's
    same = mine and sweep and all(getattr(mine.provenance, f) == getattr(sweep.provenance, f)
                                  for f in ("cpu", "threads"))
    if not same:
        return points, []
    points, taken = store.agree_with(points, key_of, sweep.points,
                                     fast.ksweep_figure(names, settings, family.speed_set(chat), state.ran()))
    return points, [(p, "ksweep") for p in taken]


def taken_caption(taken: list, label: str) -> None:
    """Say which points show another section's newer measurement of the same key."""
    if taken:
        named = [getattr(p, label) for p, _s in taken]
        st.caption(_("{rows}: shows the run of the same setting and prompts by {section}, the figure every page "
                     "gives (one setting, one figure).").format(
            rows=", ".join(md(n) if isinstance(n, str) else f"k = {n}" for n in named),
            section=", ".join(sorted({_(SECTIONS.get(s, s)) for _r, s in taken}))))


SECTIONS = {"ksweep": N_("the k sweep (section 2)"), "tradeoff": N_("Too weak vs too big (section 3)"),
            "drafters": N_("Drafters compared"), "box": N_("the “Does it pay here?” box")}
