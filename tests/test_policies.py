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


# The priced policy: k from a machine's prices (models/prices.py) and the run's own acceptance.
FLAT = {1: 1.0, 2: 1.01, 3: 1.02, 4: 1.03, 5: 1.04}   # a pass nearly free in its width: long chains pay
STEEP = {1: 1.0, 2: 1.6, 3: 2.2, 4: 2.8, 5: 3.4}      # every extra row costs 0.6 of a step: short chains


def test_priced_k_follows_the_prices_and_the_acceptance():
    from specdec.drafters.policies import PRIOR, Priced
    from specdec.models.prices import Prices
    assert PRIOR[0] / PRIOR[1] == 0.5
    assert Priced(4, prices=Prices(0.01, FLAT)).next_k() == 4      # cheap drafts, flat pass: as long as allowed
    assert Priced(4, prices=Prices(0.01, STEEP)).next_k() == 1     # α 0.5 cannot pay for 0.6 a row
    assert Priced(3, prices=None).next_k() == 3                    # no prices measured: k, constant
    assert Priced(2, prices=Prices(0.01, FLAT)).next_k() == 2      # never past the k asked for
    assert Priced(9, prices=Prices(0.01, FLAT)).next_k() == 4      # nor past the widths measured
    steep = Priced(4, prices=Prices(0.01, STEEP))
    for _ in range(30):
        steep.update(drafted=steep.next_k(), accepted=steep.next_k())   # every draft accepted: α → 1
    assert steep.alpha > 0.95 and steep.next_k() == 4
    for _ in range(200):
        steep.update(drafted=steep.next_k(), accepted=0)                # every draft rejected: α → 0
    assert steep.alpha < 0.3 and steep.next_k() == 1


def test_tokens_a_round_is_the_geometric_sum():
    from specdec.models.prices import tokens_a_round
    assert tokens_a_round(0.5, 2) == 1 + 0.5 + 0.25
    assert tokens_a_round(1.0, 3) == 4
    assert tokens_a_round(0.0, 5) == 1


def test_priced_policy_in_the_engine_replays(pair_no_eos):
    """Each round's k is what the policy chose from the rounds before it (capped by the room left)."""
    from dataclasses import replace

    from specdec.drafters.policies import Priced
    from specdec.models.prices import Prices
    prices = Prices(0.05, {1: 1.0, 2: 1.2, 3: 1.4, 4: 1.7, 5: 2.2})
    run = specdec.generate(replace(pair_no_eos, prices=prices), "abc", k=4, policy="priced", temperature=1.0,
                           seed=0, max_new_tokens=40)
    replay = Priced(4, prices=prices)
    for r in run.rounds:
        room = 40 - (r.prefix_len - len(run.prompt_ids)) - 1
        assert r.draft_limit == max(0, min(replay.next_k(), room))
        replay.update(r.drafted, r.n_accepted)
    assert len({r.draft_limit for r in run.rounds[:-2]}) > 1          # it changed its mind along the run


def test_priced_policy_keeps_greedy_text(pair_no_eos):
    from dataclasses import replace

    from specdec.models.prices import Prices
    priced = replace(pair_no_eos, prices=Prices(0.05, {1: 1.0, 2: 1.2, 3: 1.4, 4: 1.7, 5: 2.2}))
    for prompt in ("abc", "ab(ab(a", "ccba"):
        alone = specdec.autoregressive(pair_no_eos, prompt, temperature=0, max_new_tokens=24)
        assert specdec.generate(priced, prompt, k=4, policy="priced", temperature=0,
                                max_new_tokens=24).token_ids == alone.token_ids


def test_machine_prices_for_each_kind_of_drafter(pair_no_eos):
    from specdec.bench import machine
    profile = machine.Profile("cpu", "torch", 1, 10.0, {1: 1.0, 2: 1.3, 3: 1.6}, {pair_no_eos.draft_name: 0.07})
    model = machine.prices(profile, pair_no_eos, "model")
    assert model.c == 0.07 and model.v == {1: 1.0, 2: 1.3, 3: 1.6} and model.where == profile.key()
    assert machine.prices(profile, pair_no_eos, "ngram").c == 0.0         # a lookup runs no model
    assert machine.prices(profile, pair_no_eos, "early-exit") is None      # its cost was not profiled
    assert machine.prices(None, pair_no_eos, "model") is None
    other = machine.Profile("cpu", "torch", 1, 10.0, {1: 1.0, 2: 1.3}, {"another draft": 0.07})
    assert machine.prices(other, pair_no_eos, "model") is None
