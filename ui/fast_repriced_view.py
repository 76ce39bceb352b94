"""When it is fast, sections 2 and 3 with a sweep shipped from another machine (issue 51,
deliverable 1): its tokens a round priced again with this machine's profile, shown beside what
was measured there (specdec/bench/repriced.py)."""
from __future__ import annotations

import streamlit as st

from specdec.bench import machine, repriced
from specdec.bench.repriced import Repriced
from specdec.models.kernels import cpu_model
from ui.i18n import _
from ui.lessons import fast_repriced as words


def k_sweep(points, pair, drafter: str) -> list[Repriced]:
    """The shipped k sweep priced here, said in one sentence; [] without this machine's prices."""
    found = machine.of(pair)
    here = repriced.k_sweep(points, machine.draft_c(found, drafter, pair.draft_name), found.v) if found else []
    st.markdown(words.k_sweep(here, cpu_model()) if here else words.no_profile(cpu_model()),
                help=_(words.TRAVEL) if here else None)
    return here


def drafts(points, pair) -> list[Repriced]:
    """The shipped draft sizes priced here, said in one sentence; [] without this machine's prices."""
    here = repriced.drafts(points, machine.of(pair))
    said = words.drafts(here, cpu_model()) if here else words.no_profile(cpu_model())
    st.markdown(said, help=_(words.TRAVEL) + " " + _(words.LOOKUPS))
    return here
