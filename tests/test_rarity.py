"""Rare tokens (Where it works): the draft's guesses by how often the target writes a token, read off rounds by
hand, and on the shipped runs a property of a reduced vocabulary: a token outside it is never an accepted draft."""
import numpy as np
import pytest

from specdec.bench import rarity
from specdec.trace.run import Caches, Final, Position, Round
from ui.lessons.where_rare import caption


def rnd(drafts: list[int], accepted: int, final: int, kind: str = "correction") -> Round:
    verdicts = ["accepted"] * accepted + ["rejected"] * (len(drafts) > accepted) + \
        ["discarded"] * max(0, len(drafts) - accepted - 1)
    positions = tuple(Position(i + 1, t, "x", 0.5, 0.5, 1.0, None, v, 0.5, None, None)
                      for i, (t, v) in enumerate(zip(drafts, verdicts)))
    return Round(0, 10, len(drafts), True, positions, accepted, Final(final, "y", kind, 0.3, None),
                 tuple(drafts[:accepted]) + (final,), Caches(0, 0, 0, 0, 0, 0), len(drafts), 1, 1.0, 10.0)


def test_each_tried_position_is_a_hit_or_the_correction_that_replaced_it():
    rounds = [rnd([1, 2, 3], 1, 9),              # 1 accepted; 2 rejected, replaced by 9; 3 discarded (not examined)
              rnd([4, 5], 2, 6, "bonus"),        # both accepted; the bonus 6 was not tried
              rnd([7], 0, 8)]                    # 7 rejected, replaced by 8
    assert rarity.tried(rounds) == [(1, True), (9, False), (4, True), (5, True), (8, False)]


def test_bands_count_hits_by_how_often_the_corpus_holds_each_token():
    counts = np.zeros(10, dtype=np.int64)
    counts[[1, 4]] = 5000                    # common
    counts[5] = 150
    counts[[8, 9]] = 3                       # rare
    pairs = [(1, True), (9, False), (4, True), (5, True), (8, False), (8, True), (2, False)]
    found = rarity.bands(pairs, counts, keep={1, 2, 4, 5, 8})                 # 9 is outside the vocabulary
    assert [(b.label, b.tokens, b.hits) for b in found] == [
        ("written 1,000+ times", 2, 2), ("100–999 times", 1, 1), ("10–99 times", 0, 0),
        ("under 10 times", 3, 1), (rarity.OUTSIDE, 1, 0)]                   # 2 (never written) is under 10
    assert rarity.OUTSIDE not in [b.label for b in rarity.bands(pairs, counts, None)]      # the full vocabulary


def test_the_caption_gives_the_common_the_rare_and_the_outside_shares():
    r = rarity.Rarity((rarity.Band("written 1,000+ times", 856, 582), rarity.Band("100–999 times", 0, 0),
                       rarity.Band("under 10 times", 56, 7), rarity.Band(rarity.OUTSIDE, 99, 0)), 775565, 12288, 49152)
    assert caption(r) == ("Where the draft tried, it guessed 68% of the tokens written 1,000+ times and 12% of those "
                          "under 10 times; of the 99 tokens outside its vocabulary (12,288 of the target's 49,152) "
                          "it guessed none: q = 0 there, so only the residual can write them.")
    assert caption(rarity.Rarity(r.bands[:2], 1, None, 49152)) is None        # one band tried: nothing to compare


def test_no_token_outside_a_reduced_vocabulary_is_ever_an_accepted_draft_in_the_shipped_runs():
    """q = 0 outside the draft's vocabulary, so the verifier can only reject there: every shipped run of the
    SmolLM2 drafts must show it (a draft that leaked probability there would fail)."""
    from specdec.bench.where import WhereSet
    from ui.lessons import shipped
    found = [(key, res) for key, res in shipped.all_of("where", WhereSet)
             if (key.get("pair") or [None, ""])[1].startswith("smollm2/")]
    if not found:
        pytest.fail("no Where it works result shipped for a SmolLM2 draft")
    for key, res in found:
        r = rarity.of(key["pair"][1], 49152, [x for p in res.results for x in p.rounds])
        assert r is not None and r.kept and r.corpus_tokens > 100_000
        outside = next(b for b in r.bands if b.label == rarity.OUTSIDE)
        assert outside.tokens > 0 and outside.hits == 0, key
        assert sum(b.tokens for b in r.bands) == len(rarity.tried(x for p in res.results for x in p.rounds))


def test_a_draft_whose_training_text_the_lab_lacks_has_no_bands():
    assert rarity.of("stdlib/draft-2l", 512, [rnd([1], 1, 2, "bonus")]) is None
