"""Drafters compared: each embedded draft, n-gram lookup and the draft-length policies."""
from dataclasses import replace

import pandas as pd
import streamlit as st

from specdec.lessons.drafters import compare, variants
from specdec.lessons.plots import drafters_figure
from specdec.lessons.speed import REPEATS, spread_warning
from specdec.models import FAST_DRAFT, FAST_TARGET, family_drafts
from specdec.prompts import load_prompts, round_robin
from ui import jobs, loaders, shell, state
from ui.measured import measured
from ui.round_view import chart

shell.page()
st.title("Drafters compared")
st.caption(f"Same prompts, same target ({FAST_TARGET}): which drafter wins, and on which kind of text?")

N = st.slider("Prompts (taken one of each kind in turn)", 2, 20, 10, key="drafters_n")
PROMPTS = round_robin(load_prompts(), N)
MAX_NEW = 32
DRAFTS = family_drafts(FAST_TARGET)


def measure():
    s = replace(state.settings(), max_new_tokens=MAX_NEW, seed=0)
    key = {"settings": s.as_dict(), "prompts": [p.prompt for p in PROMPTS], "drafts": DRAFTS,
           "repeats": REPEATS}
    return measured(
        "drafters", key,
        lambda pr: compare(loaders.load, FAST_TARGET, variants(DRAFTS, FAST_DRAFT), PROMPTS, s, pr),
        button="Compare the drafters",
        intro=f"{len(PROMPTS)} prompts, {MAX_NEW} new tokens, k = {s.k}, T = {s.temperature}; "
              f"the policies use {FAST_DRAFT} (confidence threshold {s.confidence}). "
              "Cached on disk per settings.")


rows = measure()
if rows:
    overall = [r for r in rows if r["kind"] == "all"]
    st.dataframe(pd.DataFrame(overall).drop(columns=["kind", "load"], errors="ignore"),
                 hide_index=True, key="drafters_all",
                 column_config={c: st.column_config.NumberColumn(format="%.2f")
                                for c in ("acceptance_rate", "mean_acceptance_length", "c", "speedup",
                                          "speedup_min", "speedup_max")})
    st.caption(f"speedup: median of {REPEATS} interleaved repeats, with their min and max; c: draft "
               "step / target one-token step.")
    note = spread_warning(overall)
    if note:
        st.warning(note, icon=":material/warning:")
    c1, c2 = st.columns(2)
    with c1:
        chart(drafters_figure(overall, "acceptance_rate", "Acceptance rate"), "drafters-acc")
    with c2:
        chart(drafters_figure(overall, "speedup", "Wall-clock speedup"), "drafters-speed")
    st.subheader("Winner per kind of text")
    kinds = sorted({r["kind"] for r in rows} - {"all"})
    winners = [max((r for r in rows if r["kind"] == k), key=lambda r: r["speedup"]) for k in kinds]
    st.dataframe(pd.DataFrame(winners)[["kind", "drafter", "speedup", "acceptance_rate",
                                        "mean_acceptance_length", "c"]], hide_index=True,
                 key="drafters_winners")
    ngram = {r["kind"]: r["speedup"] for r in rows if r["drafter"] == "n-gram lookup"}
    best_kind = max(ngram, key=ngram.get)
    st.caption(f"Notice: the n-gram drafter costs nothing and does best on **{best_kind}** text "
               f"({ngram[best_kind]:.2f}×), where the continuation is copied from the prompt.")
    jobs.csv_button(rows, "drafters-compared", "drafters_csv")
