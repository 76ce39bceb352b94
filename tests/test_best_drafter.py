"""One answer to "which drafter is best here?" (issue 51, reviews 10–11): the same sentence on When it
is fast's draft sizes and on Drafters compared, one figure per prompt set, by hand."""
from conftest import needs_embedded

from ui.lessons import badges
from ui.lessons.best_drafter import Best, best_of, sentence

SIZES = "8 code and structured chats × 48 tokens (When it is fast)"
EVERY = "24 chats of every kind × 32 tokens (Drafters compared)"


def test_the_fastest_of_a_set_with_those_within_three_percent_and_nothing_for_an_empty_one():
    assert best_of([("fam/draft", 0.9), ("n-gram lookup", 1.1)], False, SIZES) == \
        Best("n-gram lookup", 1.1, False, SIZES)
    # 1.08 is within 3 % of 1.1 (1.067 and up), 1.06 is not
    assert best_of([("a", 1.06), ("b", 1.1), ("c", 1.08)], True, SIZES).tied == ("c",)
    assert best_of([], True, SIZES) is None
    assert sentence([], 4, 0.7) is None


def test_one_winner_on_both_sets_is_said_once_with_each_sets_figure_and_badge():
    said = sentence([Best("fam/draft", 1.05, False, SIZES), Best("draft", 0.95, True, EVERY)], 4, 0.7)
    assert said == ("**Best drafter here** at k = 4, T = 0.7: **draft** on both prompt sets that rank drafters: "
                    f"**1.05×** {badges.predicted()} on {SIZES}; **0.95×** {badges.here()} on {EVERY}.")


def test_winners_that_differ_by_text_are_named_per_set_and_a_loss_everywhere_is_said():
    said = sentence([Best("fam/draft", 0.9, False, SIZES), Best("n-gram lookup", 0.8, False, EVERY)], 1, 0.0)
    assert said.startswith("**Best drafter here** at k = 1, T = 0: it depends on the text: "
                           f"draft **0.90×** {badges.predicted()} on {SIZES}; n-gram lookup **0.80×**")
    assert said.endswith("None beats the target alone at these settings here.")
    # leads that tie (within 3 %) are not "it depends on the text": the drafters leading both sets are named
    tied = sentence([Best("n-gram lookup", 0.90, False, SIZES, ("suffix match",)),
                     Best("suffix match", 0.91, False, EVERY, ("n-gram lookup", "fam/draft"))], 4, 0.7)
    assert tied.startswith("**Best drafter here** at k = 4, T = 0.7: **n-gram lookup**, **suffix match** lead both "
                           "prompt sets that rank drafters, each within 3% of the fastest there: n-gram lookup "
                           f"**0.90×** {badges.predicted()} on {SIZES}; suffix match **0.91×**")
    one = sentence([Best("fam/draft", 1.2, True, SIZES)], 4, 0.7)
    assert one == f"**Best drafter here** at k = 4, T = 0.7: **draft**, **1.20×** {badges.here()} on {SIZES}."


@needs_embedded
def test_both_pages_that_rank_drafters_say_the_same_best_drafter(monkeypatch, tmp_path):
    """When it is fast (section 3) and Drafters compared read the same two shipped rankings at this
    machine's prices and say one sentence, word for word, naming both prompt sets."""
    from streamlit.testing.v1 import AppTest

    from specdec.bench import machine
    from ui.lessons import result_cache
    from ui.state import DEFAULTS

    from apptest import APP
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path)      # nothing measured here
    widths = {m: 1 + 0.25 * (m - 1) for m in range(1, 18)}
    mine = machine.Profile("CPU here", "torch", 1, 10.0, widths, {"smollm2/draft": 0.15, "smollm2/draft-2l": 0.2},
                           9.0, 50.0, 80.0, 135.0)        # and its memory and compute rates, for the roofline
    monkeypatch.setattr(machine, "of", lambda pair: mine)
    at = AppTest.from_file(APP, default_timeout=300)
    for name in ("k", "temperature", "top_p"):      # AppTest resets sidebar sliders on a page switch
        at.session_state[name] = DEFAULTS[name]
    at.run()
    said = {}
    for page in ("pages/fast.py", "pages/drafters.py"):
        at.switch_page(page).run()
        assert not at.exception
        said[page] = [m.value for m in at.markdown if m.value.startswith("**Best drafter here**")]
    assert len(said["pages/fast.py"]) == 1 and said["pages/fast.py"] == said["pages/drafters.py"]
    text = said["pages/fast.py"][0]
    assert "(When it is fast)" in text and "(Drafters compared)" in text
    assert text.count(badges.predicted()) == 2 and badges.here() not in text      # both priced here
