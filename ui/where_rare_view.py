"""Where it works, "Rare tokens": the draft's guesses by how rare the token is, from the set's own runs."""
from __future__ import annotations

import streamlit as st

from specdec.bench import rarity
from ui.figures.where import rarity_figure
from ui.i18n import _
from ui.lessons import badges
from ui.lessons.where_rare import caption
from ui.round_view import chart


def render(pair, res, mine: bool) -> None:
    """The section for the set `res` (`mine`: measured here, else shipped); a line where the lab lacks the draft's
    training text."""
    st.header(_("Rare tokens"))
    found = rarity.of(pair.draft_name or "", len(pair.tokenizer), [x for p in res.results for x in p.rounds])
    if found is None:
        st.caption(_("The lab has the training text of the SmolLM2 drafts only: choose that pair to see how often a "
                     "draft guesses a token by how rare it is."))
        return
    if (said := caption(found)) is not None:
        st.markdown(said)
    chart(rarity_figure(found.bands), "where-rare")
    st.caption(badges.of(None if mine else res.provenance.cpu, res.provenance.date) + " " + _(
        "A token's rarity: how often the target writes it in the {n:,} tokens of its own answers the drafts learned "
        "from. Guessed: the text's token was the accepted draft; missed: a correction replaced it. Acceptance travels "
        "to any machine; a lookup drafter copies rare names from the prompt instead (Drafters compared).").format(
        n=found.corpus_tokens))
