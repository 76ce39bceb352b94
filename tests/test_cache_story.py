"""Step 5's reasons (issue 28): every difference between the two caches is explained, with the
numbers the round recorded, and the invariants behind each sentence hold on real runs."""
import pytest
from test_feature_draft import tiny_feature_pair

import specdec
from ui import cache_story

from tiny import tiny_pair


@pytest.fixture(scope="module")
def runs():
    model_pair, feature_pair = tiny_pair(eos=False), tiny_feature_pair(eos=False)
    go = lambda pair, drafter: specdec.generate(pair, "abc abc abc", k=3, temperature=1.0, seed=2,  # noqa: E731
                                                max_new_tokens=24, drafter=drafter)
    return {"own": go(model_pair, "model"), "features": go(feature_pair, "model"),
            "none": go(model_pair, "ngram")}


def test_the_cache_kind_is_read_from_the_run(runs):
    for kind, run in runs.items():
        assert cache_story.kind_of(run.rounds, run.prefill) == kind
    old = runs["own"]
    assert cache_story.kind_of(old.rounds, None) == "unknown"         # a file from before the prefill


def test_the_target_lines_carry_the_rounds_numbers(runs):
    for run in runs.values():
        for rnd in run.rounds:
            c = rnd.caches
            fed = (rnd.prefix_len - c.target_before) + rnd.drafted                # pending + drafts
            assert c.target_peak - c.target_before == fed
            assert c.target_after == rnd.prefix_len + rnd.n_accepted
            first, second = cache_story.target_lines(rnd)
            assert f"{c.target_before} → {c.target_peak}" in first and f"added {fed} rows" in first
            assert f"kept {c.target_after}" in second and f"{c.target_cropped} row(s)" in second


def test_a_feature_draft_lags_by_the_positions_this_round_verified(runs):
    """A round that drafts reads every feature verified before it; one that drafts nothing
    (no room left) reads none, so its lag also holds what came before."""
    rounds = runs["features"].rounds
    assert rounds[-1].drafted == 0 and all(r.drafted for r in rounds[:-1])
    for rnd in rounds:
        c = rnd.caches
        verified, lag = (rnd.prefix_len - c.target_before) + rnd.n_accepted, c.target_after - c.draft_after
        assert lag == verified if rnd.drafted else lag > verified
        assert cache_story.draft_lines(rnd, "features")[-1].startswith(f"{lag} behind the target's")


def test_a_draft_model_lags_only_after_accepting_everything_or_drafting_nothing(runs):
    rounds = runs["own"].rounds
    assert any(r.n_accepted == r.drafted > 0 for r in rounds)                 # the cases are covered
    assert rounds[-1].drafted == 0 and all(r.drafted for r in rounds[:-1])
    for rnd in rounds:
        lag = rnd.caches.target_after - rnd.caches.draft_after
        last = cache_story.draft_lines(rnd, "own")[-1]
        if not rnd.drafted:
            assert lag > 0 and "drafted nothing" in last
        elif rnd.n_accepted == rnd.drafted:
            assert lag == 1 and "last accepted draft was never fed" in last
        else:
            assert lag == 0 and last == "Same length as the target's cache."


def test_a_drafter_without_a_cache_says_so(runs):
    rnd = runs["none"].rounds[0]
    assert "keeps no KV cache" in cache_story.draft_lines(rnd, "none")[0]


def test_a_feature_draft_that_kept_every_draft_says_why_its_cache_still_dropped_entries(runs):
    """Review 55: a round that kept every draft drew the feature draft's guessed entries red, "cropped", read as a
    rejection; step 5's sentence says why there (and only there)."""
    said = {(kind, rnd.n_accepted == rnd.drafted): cache_story.rollback_words(rnd, kind)
            for kind, run in runs.items() for rnd in run.rounds if rnd.drafted}
    full = said.get(("features", True))
    assert full is not None, said.keys()                           # the run has such a round
    assert "although every draft was kept" in full
    rnd = next(r for r in runs["features"].rounds if r.drafted and r.n_accepted == r.drafted)
    assert f"dropped its {rnd.caches.draft_cropped} guessed entries" in full and rnd.caches.draft_cropped > 0
    assert all("although every draft was kept" not in text for (kind, kept), text in said.items()
               if kind != "features" or not kept)
