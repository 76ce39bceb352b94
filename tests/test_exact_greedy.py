"""Why it is exact, greedy: the page writes Step through's prompt both ways at T = 0 and says whether the texts
match token for token (review 42: the exactness page never showed greedy identity)."""
from ui.exact_greedy_view import first_difference, verdict

from apptest import app


def test_the_first_difference_of_two_token_lists():
    assert first_difference([1, 2, 3], [1, 2, 3]) is None
    assert first_difference([1, 2, 3], [1, 5, 3]) == 1
    assert first_difference([1, 2, 3], [1, 2]) == 2 and first_difference([], [4]) == 0


def test_the_verdict_says_identical_or_where_the_texts_part():
    same = verdict({"alone": [1, 2, 3], "spec": [1, 2, 3], "passes": [3, 2]}, 4)
    assert same == "Identical: the same 3 tokens both ways. The target alone needed 3 passes, speculative decoding " \
                   "at k = 4 needed 2."
    apart = verdict({"alone": [1, 2, 3], "spec": [1, 9, 3], "passes": [3, 2]}, 4)
    assert apart.startswith("Different from token 2 on (3 and 3 tokens)")


def test_the_exactness_page_writes_the_prompt_both_ways_at_t0(tiny_dirs):
    at = app(tiny_dirs, page="pages/exact.py", temperature=0.8, k=3)
    assert any(h.value.startswith("Greedy (T = 0)") for h in at.header)
    at.button(key="greedy_same_run").click().run()
    assert not at.exception
    said = [m.value for m in at.markdown if m.value.startswith(("Identical:", "Different from"))]
    assert len(said) == 1 and said[0].startswith("Identical: the same ") and "at k = 3" in said[0], said
