"""How chains of drafts survive, position by position (specdec/trace/survival.py, ui/lessons/where_survival.py)."""
from types import SimpleNamespace

import pytest

from specdec.trace.survival import Survival, after_previous, conditional, survival
from ui.lessons.where_survival import survival_caption


def rnd(drafted: int, accepted: int, tree=None):
    return SimpleNamespace(drafted=drafted, n_accepted=accepted, tree=tree)


def test_each_position_counts_only_the_rounds_whose_earlier_drafts_were_accepted():
    rounds = [rnd(3, 0)] * 10 + [rnd(3, 1)] * 10 + [rnd(3, 3)] * 20
    # d1: 30 of 40 accepted; d2: of the 30 that reached it, 20; d3: of those 20, all 20
    assert conditional(rounds) == pytest.approx([30 / 40, 20 / 30, 1.0])
    # a position reached by fewer than 20 rounds ends the list
    assert conditional([rnd(3, 0)] * 10 + [rnd(3, 1)] * 10 + [rnd(3, 3)] * 10) == pytest.approx([2 / 3, 0.5])


def test_first_drafts_are_split_by_how_the_previous_round_ended():
    run = [rnd(0, 0), rnd(3, 0), rnd(3, 1), rnd(3, 3), rnd(3, 2), rnd(2, 2), rnd(3, 0)]
    rejected, full = after_previous([run, [rnd(3, 1)]])
    # after (3,0): 1 > 0 yes; after (3,1): 3 yes; after (3,2): 2 yes; the first round drafted nothing
    assert rejected == (3, 3)
    assert full == (1, 2)        # after (3,3): 2 accepted its first; after (2,2): 0 did not


def test_tree_rounds_and_too_few_rounds_give_nothing():
    assert survival([[rnd(3, 1)] * 5]) is None
    tree = SimpleNamespace(nodes=(1, 2, 3))
    assert survival([[rnd(3, 3, tree)] * 50]) is None


def test_rising_chances_and_clustered_rejections_are_named_with_their_numbers():
    text = survival_caption(Survival(0.42, (0.48, 0.54), (377, 930), (31, 50)))
    assert "42%" in text and "48%–54%" in text and "not the one α" in text
    assert "Rejections cluster" in text and "41%" in text and "(930 rounds)" in text and "62%" in text


def test_even_chances_are_called_even_and_a_thin_split_is_left_out():
    text = survival_caption(Survival(0.50, (0.49, 0.53), (10, 30), (5, 10)))
    assert "about equally often" in text and "Rejections" not in text and "After a round" not in text
    falling = survival_caption(Survival(0.60, (0.40, 0.45), (30, 60), (18, 40)))
    assert "only 40%–45%" in falling
    assert "Rejections cluster" not in falling and "After a round that ended in a rejection" in falling
