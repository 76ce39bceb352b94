"""Acceptance rate and mean acceptance length in different orders: one computed sentence says why."""
import pytest

import specdec
from specdec.trace.metrics import summarize
from ui.lessons.acceptance_words import disagreement, drafted_per_round


def test_the_issues_numbers_name_both_drafters_and_their_drafts_per_round():
    """n-gram 0.27 / 1.42 against draft-1l 0.23 / 1.87 (issue 40): the n-gram drafter drafts
    (1.42 − 1) / 0.27 ≈ 1.6 tokens a round, draft-1l (1.87 − 1) / 0.23 ≈ 3.8."""
    text = disagreement([("n-gram lookup", 0.27, 1.42), ("draft-1l", 0.23, 1.87), ("draft-2l", 0.31, 2.2)])
    assert text.startswith("n-gram lookup keeps a larger share of its drafts than draft-1l (27% vs 23%)")
    assert "(1.42 vs 1.87)" in text and "about 1.6 tokens a round against 3.8" in text


@pytest.mark.parametrize("rows", [
    [("a", 0.5, 2.0), ("b", 0.3, 1.6), ("c", 0.1, 1.2)],       # the same order
    [("a", 0.50, 2.0), ("b", 0.495, 2.3)],                     # rates equal at two decimals
    [("a", None, 1.0), ("b", 0.2, 1.4)],                       # nothing drafted
    [("a", "0.9", 1.0), ("b", 0.2, float("nan"))],             # a file's odd values
    [],
])
def test_nothing_is_said_when_the_orders_agree(rows):
    assert disagreement(rows) is None


def test_the_pair_with_the_largest_gap_in_length_is_named():
    text = disagreement([("k = 1", 0.6, 1.6), ("k = 2", 0.55, 2.0), ("k = 4", 0.5, 2.8)])
    assert text.startswith("k = 1 keeps a larger share of its drafts than k = 4")


def test_rounds_cut_short_are_named_when_drafts_per_round_cannot_explain_it():
    """L = a·D + 1 makes a crossing impossible unless rounds ended without a final token (L < 1
    for a run cut at its first round); then the sentence says so instead."""
    text = disagreement([("a", 0.2, 0.95), ("b", 0.0, 1.0)])
    assert text.startswith("a keeps a larger share of its drafts than b (20% vs 0%)")
    assert "without a final token" in text
    text = disagreement([("a", 0.9, 1.5), ("b", 0.3, 1.6)])            # a: 0.56 a round, b: 2.0
    assert "drafts about 0.6 tokens a round against 2.0" in text


def test_drafts_per_round_from_the_two_metrics_match_the_counts(pair):
    """L = a·D + 1: from a real run's acceptance rate and mean acceptance length, D is the
    drafted tokens per round (exactly, when every round ends with a final token)."""
    run = specdec.generate(pair, "abcabc", specdec.Settings(k=3, max_new_tokens=40, temperature=0.8, seed=1))
    full = [r for r in run.rounds if len(r.emitted) == r.n_accepted + 1]
    m = summarize(full)
    assert m.accepted > 0
    assert drafted_per_round(m.acceptance_rate, m.mean_acceptance_length) == pytest.approx(m.drafted / m.rounds)
