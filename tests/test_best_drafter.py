"""One answer to "which drafter is best here?" (issue 51, reviews 10–11): the same sentence on When it
is fast's draft sizes and on Drafters compared, one figure per prompt set, by hand."""
from ui.lessons import badges
from ui.lessons.best_drafter import Best, best_of, sentence

SIZES = "8 code and structured chats × 48 tokens (When it is fast)"
EVERY = "24 chats of every kind × 32 tokens (Drafters compared)"


def test_the_fastest_of_a_set_and_nothing_for_an_empty_one():
    assert best_of([("fam/draft", 0.9), ("n-gram lookup", 1.1)], False, SIZES) == \
        Best("n-gram lookup", 1.1, False, SIZES)
    assert best_of([], True, SIZES) is None
    assert sentence([], 4, 0.7) is None


def test_one_winner_on_both_sets_is_said_once_with_each_sets_figure_and_badge():
    said = sentence([Best("fam/draft", 1.05, False, SIZES), Best("draft", 0.95, True, EVERY)], 4, 0.7)
    assert said == ("**Best drafter here** at k = 4, T = 0.7: **draft** on both prompt sets that rank drafters: "
                    f"**1.05×** {badges.predicted()} on {SIZES}; **0.95×** {badges.here()} on {EVERY}.")


def test_winners_that_differ_by_text_are_named_per_set_and_a_loss_everywhere_is_said():
    said = sentence([Best("fam/draft", 0.9, False, SIZES), Best("n-gram lookup", 0.8, False, EVERY)], 1, 0.0)
    assert said.startswith("**Best drafter here** at k = 1, T = 0: it depends on the text: "
                           f"**draft** on {SIZES} (**0.90×** {badges.predicted()}); **n-gram lookup** on {EVERY}")
    assert said.endswith("None beats the target alone at these settings here.")
    one = sentence([Best("fam/draft", 1.2, True, SIZES)], 4, 0.7)
    assert one == f"**Best drafter here** at k = 4, T = 0.7: **draft**, **1.20×** {badges.here()} on {SIZES}."
