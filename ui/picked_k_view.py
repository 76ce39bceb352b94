"""One click from the sidebar's k to the k this machine's prices pick, on the pages that compare at the
sidebar's k (Where it works, Drafters compared): where nothing pays at k = 4 the comparison that teaches
is the one at the k that pays, shipped too (review 26: every comparison at k = 4, where nothing pays)."""
from __future__ import annotations

import streamlit as st

from ui import state
from ui.i18n import _
from ui.payoff_answer import answer


def picked_k(pair, settings) -> int | None:
    """The k this machine's prices pick for the pair's draft at the sidebar's T, where it is not the
    sidebar's constant k (None: the same k, a policy that picks k itself, no draft or no prices)."""
    if pair is None or not pair.draft_name or settings.policy != "constant":
        return None
    other = answer(pair, settings)[1]
    return other.k if other is not None and other.k != settings.k else None


def offer(pair, settings, key: str) -> None:
    """A button that sets the sidebar's k to the k the prices pick (every page then reads that k)."""
    if (k := picked_k(pair, settings)) is None:
        return
    st.button(_("Show it at k = {k}, the k this machine's prices pick").format(k=k), key=key,
              icon=":material/tune:", on_click=_set_k, args=(k,),
              help=_("Sets the sidebar's k to {k} on every page; its slider sets it back.").format(k=k))


def _set_k(k: int) -> None:
    state.set_by_button("k", k)
