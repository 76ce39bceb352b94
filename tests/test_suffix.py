"""Suffix drafting: the longest earlier match of the tail, the most frequent continuation while
its estimated probability holds, history from earlier texts; exact like every drafter."""
import pytest

import specdec
from specdec.drafters.suffix import SuffixDrafter, best_path, longest_match


def test_the_longest_tail_is_matched_and_its_own_position_is_not():
    seq = [1, 2, 3, 4, 5, 6, 1, 2, 3]
    assert longest_match([seq], 16) == [(0, 3)]                 # [1, 2, 3] ends at index 2
    assert longest_match([[7, 8, 9]], 16) == []                 # nothing earlier
    assert longest_match([[1, 2, 3, 4, 5, 6, 1, 2, 3]], 2) == [(0, 3)]


def test_the_most_frequent_continuation_is_followed_until_the_occurrences_part():
    texts = [[1, 2, 7, 7, 0, 1, 2, 7, 7, 0, 1, 2, 7, 8], [1, 2]]
    ends = longest_match(texts, 16)
    assert len(ends) == 3                                        # [1, 2] three times before
    assert best_path(texts, ends, 5, 0.1) == [7, 7, 0, 1, 2]    # 7 (3/3), 7 (2/3), then 0, 1, 2
    assert best_path(texts, ends, 5, 0.7) == [7]                 # 2/3 < 0.7 stops after one


def test_earlier_texts_are_drafted_from_and_ties_go_to_the_latest():
    drafter = SuffixDrafter(50, history=[[5, 1, 2, 7, 7], [1, 2, 7, 8]])
    assert drafter.lookup([3, 1, 2], 5) == [7, 8]
    assert SuffixDrafter(50).lookup([3, 1, 2], 5) == []


@pytest.mark.parametrize("k", [2, 4, 8])
def test_greedy_suffix_drafting_gives_the_target_own_tokens(k):
    pair = specdec.load_pair("stdlib/target", None)
    prompt = "def add(a, b):\n    return a + b\n\ndef add(a, b):\n"
    alone = specdec.autoregressive(pair, prompt, temperature=0, max_new_tokens=24)
    run = specdec.generate(pair, prompt, k=k, temperature=0, max_new_tokens=24, drafter="suffix")
    assert run.token_ids == alone.token_ids and run.metrics.accepted > 0
