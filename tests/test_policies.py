"""Draft-length policies: each round records the k it used."""
import specdec
from specdec.drafters.policies import Heuristic


def test_heuristic_schedule():
    h = Heuristic(3)
    h.update(drafted=3, accepted=3)
    assert h.next_k() == 5
    h.update(drafted=5, accepted=2)
    assert h.next_k() == 4
    for _ in range(10):
        h.update(drafted=4, accepted=0)
    assert h.next_k() == 1


def test_heuristic_in_the_engine(pair_no_eos):
    run = specdec.generate(pair_no_eos, "abc", k=2, policy="heuristic", temperature=1.0,
                           seed=0, max_new_tokens=40)
    h = Heuristic(2)
    for r in run.rounds:                      # the recorded k is the policy's, capped by the room left
        room = 40 - (r.prefix_len - len(run.prompt_ids)) - 1
        assert r.draft_limit == max(0, min(h.next_k(), room))
        h.update(r.drafted, r.n_accepted)
    assert max(r.draft_limit for r in run.rounds) > 2   # it did grow


def test_confidence_stop(pair_no_eos):
    run = specdec.generate(pair_no_eos, "abc", k=6, policy="confidence", confidence=0.5,
                           temperature=1.0, seed=0, max_new_tokens=40)
    short = 0
    for r in run.rounds:
        # every drafted token but the last is confident; a round stops early only after a doubt
        assert all(p.q >= 0.5 for p in r.positions[:-1])
        if r.drafted < r.draft_limit:
            short += 1
            assert r.positions[-1].q < 0.5
    assert short > 0


def test_ngram_drafter_proposes_the_continuation_of_the_last_match(pair_no_eos):
    from specdec.drafters.ngram import NgramDrafter
    d = NgramDrafter(13)
    assert d.lookup([1, 2, 3, 4, 1, 2], 3) == [3, 4, 1]
    assert d.lookup([5, 6, 7], 2) == []
    run = specdec.generate(pair_no_eos, "abcabcab", k=3, drafter="ngram", temperature=0,
                           max_new_tokens=10)
    first = run.rounds[0]
    assert [p.token for p in first.positions] == pair_no_eos.tokenizer("cab")["input_ids"]
    assert all(p.q == 1.0 for p in first.positions)
