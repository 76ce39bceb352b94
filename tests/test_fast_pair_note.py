"""Exactness checks that stand in the fast pair for the sidebar's say so in a visible line, with
the reason that holds for the sidebar's pair (not in an expander's title)."""
from streamlit.testing.v1 import AppTest


def page(has_draft: bool):
    from types import SimpleNamespace

    from ui import family
    family.lab_note(SimpleNamespace(draft=object()) if has_draft else None)


def shown(has_draft: bool) -> str:
    at = AppTest.from_function(page, args=(has_draft,)).run()
    assert not at.exception and not at.expander
    return " ".join(i.value for i in at.info)


def test_a_draft_that_reads_features_is_named_as_the_reason():
    text = shown(True)
    assert "fast pair (stdlib/target" in text and "reads the target's features" in text
    assert "no draft model" not in text


def test_a_pair_without_a_draft_model_is_named_as_the_reason():
    text = shown(False)
    assert "no draft model of its own" in text and "reads the target's features" not in text
