"""The guided tour on a base model (the stdlib pair, no chat template): it neither echoes the
tokenizer's <|endoftext|> as if the learner had written it nor leaves its output box empty."""
import html
import re
from pathlib import Path

from conftest import needs_embedded
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def text_of(body: str) -> str:
    """What the first strip of an HTML element shows: tags and CSS removed, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", body.split("</style>")[1].split("<style>")[0]))


@needs_embedded
def test_the_tour_gives_a_base_model_code_and_shows_what_it_wrote():
    from ui.catalog import CHOICES
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["pair_label"] = next(c.label for c in CHOICES if c.target == "stdlib/target")
    at.session_state["max_new_tokens"] = 32
    at.run()
    at.switch_page("pages/tour.py").run()
    for _ in range(3):
        at.button(key="tour_round").click().run()
    assert not at.exception
    bodies = [h.proto.body for h in at.get("html")]
    assert not any("endoftext" in b for b in bodies)                       # no special token echoed
    strip = text_of(bodies[0])
    assert strip.startswith("class Connection:")                           # the task begun as code
    output = text_of(bodies[-1])
    assert any(c.value == "Output so far (emitted tokens only)" for c in at.caption)
    assert output.strip() and output != "∅"                                # something readable
    assert any("base model (no chat template)" in c.value for c in at.caption)


def test_a_box_of_only_line_breaks_shows_them():
    from ui.strip import text_html
    assert text_of(text_html("\n\n")) == "↵\n↵\n"
    assert text_of(text_html("a\n")) == "a\n" and text_of(text_html("")) == "∅"
