"""The prefill on Step through: before round 1 the target reads the prompt (issue 28)."""
from __future__ import annotations

import streamlit as st

from specdec.drafters.registry import DRAFTERS
from specdec.trace.run import Prefill
from ui.i18n import _


def lines(prefill: Prefill, prompt_len: int, drafter: str | None) -> list[str]:
    """What the prefill did, in sentences computed from its record."""
    out = [_("The target read {n} of the prompt's {total} tokens in one pass ({ms:.0f} ms); its KV "
             "cache now holds {cache} positions.").format(n=prefill.tokens, total=prompt_len,
                                                          ms=prefill.target_ms, cache=prefill.target_cache),
           _("The last prompt token waits for round 1, which feeds it together with the drafts: the "
             "target's distribution of the first new token is then verification's first row, so the "
             "prefill itself emits no token.")]
    if prefill.draft_tokens:
        out.append(_("The draft model read the same {n} tokens into its own cache ({ms:.0f} ms), so "
                     "round 1 drafts at once.").format(n=prefill.draft_tokens, ms=prefill.draft_ms))
    elif prefill.features:
        out.append(_("The feature draft keeps no prompt of its own: it was handed the target's final "
                     "hidden states of these {n} positions, which it reads in round 1 before "
                     "drafting.").format(n=prefill.features))
    elif drafter in DRAFTERS and not DRAFTERS[drafter].keeps_cache:
        out.append(_("The drafter “{name}” keeps no cache: it reads the sequence itself each round.").format(
            name=_(DRAFTERS[drafter].label)))
    return out


def render(prefill: Prefill | None, prompt_len: int, drafter: str | None, first: bool) -> None:
    """An expander above the rounds, open while round 1 is the one shown."""
    if prefill is None:
        return
    with st.expander(_("Before round 1: the target reads the prompt (prefill, {ms:.0f} ms)").format(
            ms=prefill.target_ms + prefill.draft_ms), expanded=first):
        for line in lines(prefill, prompt_len, drafter):
            st.write(line)
