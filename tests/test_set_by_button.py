"""A lesson's button that changes a sidebar setting is said under that setting while the change holds
(ui/state.set_by_button; review 48: "Show it at k = 1" moved the sidebar's k and other pages changed unsaid)."""
from types import SimpleNamespace

from ui import state


def test_the_change_is_said_while_it_holds_and_forgotten_when_the_learner_moves_it(monkeypatch):
    monkeypatch.setattr(state, "st", SimpleNamespace(session_state={"k": 4, "policy": "constant"}))
    state.set_by_button("k", 1)
    assert state.st.session_state["k"] == 1
    assert state.set_by_button_was("k") == 4 and state.set_by_button_was("policy") is None
    state.st.session_state["k"] = 2                      # the learner's slider
    assert state.set_by_button_was("k") is None
