"""A shipped trade-off (When it is fast, section 3) beside this machine's own measurement of one
of its drafts (the learner's k sweep, section 2): the section states this machine's figure, the
one "Does it pay here?" states, with its badge, and leaves the shipped figure as shipped
(issue 51: a view that went stale after the learner measured)."""
from dataclasses import replace

from points import point
from streamlit.testing.v1 import AppTest

from specdec.records.provenance import Clock
from specdec.settings import Settings


def page():
    import streamlit as st

    from ui import fast_shipped_view
    from ui.lessons import fast
    fast_shipped_view.here_too(st.session_state["points"], fast.tradeoff_figure(*st.session_state["key"]))


def test_a_shipped_trade_off_states_the_figure_this_machine_measured(tmp_path, monkeypatch):
    from ui.lessons import result_cache, store
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path)
    key = ("fam/target", Settings(temperature=0.7, k=4), store.PromptSet.of(["a", "b"], False, 16, "speed"))
    shipped = [point(draft="fam/draft", drafter="model", speedup=0.74, clock=Clock.WALL),
               point(draft="fam/draft-2l", drafter="model", speedup=0.66, clock=Clock.WALL)]
    mine = replace(shipped[0], speedup=0.91, speedup_min=0.88, speedup_max=0.95, clock=Clock.CPU)   # a busy run
    at = AppTest.from_function(page)
    at.session_state["points"], at.session_state["key"] = shipped, key
    at.run()
    assert not at.exception and not at.markdown                    # nothing measured here: nothing said
    store.file([mine], fast_key(key), "ksweep")
    at.run()
    said = [m.value for m in at.markdown]
    assert said == [":green-badge[measured here] fam/draft at these settings: **0.91×** the "
                    "target alone (0.88–0.95×), measured by When it is fast (its k sweep)."], said


def fast_key(key):
    from ui.lessons import fast
    return fast.tradeoff_figure(*key)
