"""AppTest on tiny models saved to a directory: the page tests' shared set-up."""
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.catalog import CUSTOM

from tiny import char_tokenizer, tiny_llama

APP = str(Path(__file__).resolve().parent.parent / "app.py")
STEP = "pages/step_through.py"


@pytest.fixture(scope="module")
def tiny_dirs(tmp_path_factory):
    base = tmp_path_factory.mktemp("app_models")
    tok = char_tokenizer()
    for name, layers, seed in (("target", 2, 1), ("draft", 1, 2)):
        tiny_llama(len(tok), layers, seed, context=256).save_pretrained(base / name)
        tok.save_pretrained(base / name)
    return base


def app(tiny_dirs, page: str | None = STEP, **state) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["pair_label"] = CUSTOM
    at.session_state["custom_target"] = str(tiny_dirs / "target")
    at.session_state["custom_draft"] = str(tiny_dirs / "draft")
    at.session_state["prompt"] = "abc (abc"
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    if page:
        at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def rounds(at):
    return at.session_state["run"]["decoder"].history


WORKING = "How these figures were worked out"


def working(at) -> str:
    """The text behind the payoff box's one expander (ui/payoff_view.py): where its figures come from."""
    return "\n\n".join(m.value for e in at.expander if e.label.startswith(WORKING) for m in e.markdown)
