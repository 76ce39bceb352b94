"""Beyond tokens: the stages shared by every session (st.cache_resource) and the page's tables."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from specdec.beyond import corpus, dense, stages
from ui.i18n import N_, _
from ui.lessons.beyond import Candidate, Design


@st.cache_resource(show_spinner=False, max_entries=1)
def corpus_stages() -> stages.Stages:
    """The whole corpus with BM25, and embeddings when their vectors are already built here
    (`make vectors`; computing them would keep a first question waiting for minutes)."""
    passages = corpus.load()
    folder, texts = dense.model_folder(), [p.body for p in passages]
    vectors = dense.kept_vectors(texts, corpus.STORE) if folder is not None else None
    if vectors is None:
        return stages.build(passages)
    return stages.Stages(passages, stages.Lexical(texts), dense.Dense(folder), vectors)


# pixel widths: all seven columns whole in a 1400 px window (916 px of the main column's 928); each
# number column as wide as its English header at 14 px and its padding, the two texts share the rest
WIDTHS = {"judge's rank": 90, "passage": 160, "what it says": 250, "first stage's rank": 115, "BM25 score": 85,
          "embedding cosine": 128, "judge score": 88}


def candidates_table(found: list[Candidate], key: str) -> None:
    """The judge's order; without embeddings (BM25 alone) their column is left out and what a
    passage says gets its room."""
    dense = any(c.dense is not None for c in found)
    rows = [{_("judge's rank"): i + 1, _("passage"): c.title[:60], _("what it says"): c.text[:60].replace("\n", " "),
             _("first stage's rank"): c.first_rank,
             _("BM25 score"): round(c.bm25, 2),
             **({_("embedding cosine"): None if c.dense is None else round(c.dense, 3)} if dense else {}),
             _("judge score"): round(c.judge, 3)} for i, c in enumerate(found)]
    widths = WIDTHS if dense else {**{n: w for n, w in WIDTHS.items() if n != "embedding cosine"},
                                    "what it says": WIDTHS["what it says"] + WIDTHS["embedding cosine"]}
    st.dataframe(pd.DataFrame(rows), hide_index=True, placeholder="—", key=key,
                 column_config={_(name): st.column_config.Column(width=w) for name, w in widths.items()})


DESIGNS = {"cheap stage only": N_("cheap stage only"), "cascade": N_("cascade (the gate above)"),
           "judge the pool": N_("judge the pool (gate 0)"), "judge everywhere": N_("judge everywhere")}


def scale_table(designs: list[Design], key: str) -> None:
    rows = [{_("design"): _(DESIGNS[d.name]), _("ms per query"): round(d.ms, 1),
             _("judge calls per query"): round(d.judge_calls, 1),
             _("queries per second per core"): round(d.per_second, 2)} for d in designs]
    st.dataframe(pd.DataFrame(rows), hide_index=True, placeholder="—", key=key)
