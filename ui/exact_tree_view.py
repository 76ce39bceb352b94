"""Is a tree still exact? The node rules checked on the pair's real p and q — shown on the
"Many drafts at once" page and in the exactness lab."""
from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from specdec.chat import user_turn
from specdec.engine.prompt import encode_prompt
from ui import family, session, state
from ui.i18n import _
from ui.lessons import store, trees
from ui.lessons.exact import first_position
from ui.measured import measured


def exactness_rows(pair, ids, sampling, width: int, n: int, progress) -> tuple[list[dict], trees.Noise]:
    p, q = first_position(pair, ids, sampling)
    rows = []
    for i, (name, rule) in enumerate(trees.RULES.items()):
        progress(i, len(trees.RULES), name)
        law = trees.first_token_law(rule, p, q, width, n)
        rows.append({"rule at a node": name, "distance to p (TV)": trees.total_variation(law, p)})
    return rows, trees.noise_floor(p, n)


def tree_rules_check(pair, settings, instead_of=None) -> None:
    """The three node rules on the pair's real first-position p and q (both lesson pages; the
    pair has a plain draft model: family.lab_pair chooses it; `instead_of`: the sidebar's pair
    it stands in for, said under the header)."""
    st.header(_("Still exact with a tree of drafts?"))
    if instead_of is not None:
        family.lab_note(instead_of)
    n = st.select_slider(_("Trials per rule"), [1000, 3000, 10000], value=3000, key="tree_trials")
    sampling = replace(settings, temperature=max(settings.temperature, 0.5)).sampling
    text = st.session_state.prompt
    ids = encode_prompt(pair, user_turn(text) if session.uses_chat(pair) else text)[1]
    key = store.measurement("tree_exact", (pair.target_name, pair.draft_name), ran=state.ran(), ids=ids,
                            sampling=str(sampling), width=settings.tree_width, n=n)
    found = measured("tree_exact", key, lambda pr: exactness_rows(pair, ids, sampling,
                                                                   settings.tree_width, n, pr),
                     button=_("Check the three rules"), on_disk=False,
                     intro=_("Verifies one node many times with each rule, on the real p and q at "
                             "the first position of the current prompt, and compares the law of "
                             "the emitted token with p."))
    if not found:
        return
    rows, floor = found
    shown = [{_("rule at a node"): _(r["rule at a node"]), _("distance to p (TV)"): r["distance to p (TV)"]}
             for r in rows]
    st.dataframe(pd.DataFrame(shown), hide_index=True, placeholder="—", key="tree_exact_table",
                 column_config={_("distance to p (TV)"): st.column_config.NumberColumn(format="%.3f")})
    first, second, wrong = (r["distance to p (TV)"] for r in rows)
    st.write(_("With the first position's real p and q ({width} children, {n} trials): sampling noise alone "
               "gives a distance of {floor:.3f} on average, and 19 of 20 such runs stay below {high:.3f}. The two "
               "exact rules give {first:.3f} and {second:.3f}{within}; the matching rule {wrong:.3f}").format(
        width=settings.tree_width, n=n, floor=floor.mean, high=floor.high, first=first, second=second,
        wrong=wrong, within=_(", both within that noise") if max(first, second) <= floor.high
        else _(", above that noise: run more trials"))
             + (_(" — biased towards the drafted tokens.") if wrong > floor.high else
                _(" — too close to tell apart here: its bias needs drafts the target disagrees with.")))

