"""Engine-standard metrics on hand-made traces with known answers, and the theory."""
import statistics

import pytest

from specdec.trace.metrics import summarize
from specdec.trace.run import Caches, Final, Position, Round
from specdec.trace.theory import (
    best_k,
    expected_speedup,
    expected_tokens,
    profile_speedup,
    speedup_with_verify,
    tokens_from_profile,
    verify_ceiling,
)


def fake_round(drafted: int, accepted: int, beta: float = 0.5, draft_ms=1.0, verify_ms=10.0):
    verdicts = ["accepted"] * accepted + ["rejected"] * (drafted > accepted) + \
        ["discarded"] * max(0, drafted - accepted - 1)
    positions = tuple(Position(i + 1, 5, "x", 0.5, 0.5, 1.0, 0.1, v, beta, None, None)
                      for i, v in enumerate(verdicts))
    final = Final(7, "y", "bonus" if accepted == drafted else "correction", 0.3, None)
    return Round(0, 10, drafted, False, positions, accepted, final,
                 tuple([5] * accepted + [7]), Caches(0, 0, 0, 0, 0, 0), drafted, 1,
                 draft_ms * drafted, verify_ms)


def test_metrics_by_hand():
    rounds = [fake_round(4, 4), fake_round(4, 1), fake_round(4, 0), fake_round(2, 2)]
    m = summarize(rounds)
    assert (m.drafted, m.accepted, m.tokens, m.rounds) == (14, 7, 11, 4)
    assert m.acceptance_rate == pytest.approx(7 / 14)
    assert m.mean_acceptance_length == pytest.approx(11 / 4)
    assert m.acceptance_length_sd == pytest.approx(statistics.stdev([5, 2, 1, 3]))     # the rounds' own tokens
    assert summarize(rounds[:1]).acceptance_length_sd is None
    assert m.per_position == pytest.approx((3 / 4, 2 / 4, 1 / 3, 1 / 3))
    assert m.histogram == (1, 1, 1, 0, 1)
    assert m.target_forwards == 4 and m.target_calls_saved == pytest.approx(1 - 4 / 11)
    assert m.draft_per_verify == pytest.approx(0.1)
    assert m.mean_beta == pytest.approx(0.5)


def test_leviathan_numbers():
    # Leviathan et al. Table/Fig. 3: α = 0.8, γ = 5, c = 0 -> 3.69x
    assert expected_speedup(0.8, 5, 0.0) == pytest.approx(3.69, abs=0.005)
    assert expected_tokens(0.5, 1) == pytest.approx(1.5)
    assert expected_tokens(1.0, 4) == 5
    assert expected_speedup(0.5, 2, 0.5) == pytest.approx(1.75 / 2)
    assert best_k(0.9, 0.05) > best_k(0.5, 0.05)
    # α = 0.5, k = 2: 1.75 tokens per round; c = 0.2, verification costs 1.3 steps -> 1.75 / 1.7
    assert speedup_with_verify(0.5, 2, 0.2, 1.3) == pytest.approx(1.75 / 1.7)
    assert speedup_with_verify(0.5, 2, 0.2, 1.0) == pytest.approx(expected_speedup(0.5, 2, 0.2))
    # the ceiling is bound(v) / bound: 1.4 / 1.7 at k = 2, c = 0.2, v = 1.3, for any alpha
    assert verify_ceiling(2, 0.2, 1.3) == pytest.approx(1.4 / 1.7)
    assert verify_ceiling(2, 0.2, 1.3) == pytest.approx(speedup_with_verify(0.9, 2, 0.2, 1.3)
                                                        / expected_speedup(0.9, 2, 0.2))


def test_tokens_from_an_acceptance_profile_by_hand():
    """Rounds of k = 4 that kept 4, 0, 2 and 1 drafts: at k = 2 they would keep 2, 0, 2, 1."""
    profile = [4, 0, 2, 1]
    assert tokens_from_profile(profile, 4) == pytest.approx(1 + 7 / 4)
    assert tokens_from_profile(profile, 2) == pytest.approx(1 + 5 / 4)
    assert tokens_from_profile(profile, 1) == pytest.approx(1 + 3 / 4)
    assert tokens_from_profile([], 3) == 1.0
    # with c = 0.1 and a 3-token pass of 1.2 steps: 2.25 tokens for 0.2 + 1.2
    assert profile_speedup(profile, 2, 0.1, 1.2) == pytest.approx(2.25 / 1.4)


def test_a_profile_of_all_or_nothing_rounds_beats_eq_1_at_the_same_mean_acceptance():
    """Half the rounds keep all 4 drafts and half none: acceptance rate 0.5, but the rounds keep
    3 tokens on average where eq. (1) at α = 0.5 expects 1.94 — runs of acceptances, not i.i.d."""
    profile = [4, 0] * 10
    assert tokens_from_profile(profile, 4) == pytest.approx(3.0)
    assert expected_tokens(0.5, 4) == pytest.approx(1.9375)


def test_the_draft_cost_the_runs_paid_by_hand():
    """Draft forwards of 2 ms in speculative rounds, 10 ms autoregressive steps: c = 0.2; the
    first round (cold caches) counts in neither."""
    from dataclasses import replace

    from specdec.bench.measure import draft_cost_in_run
    spec = [replace(fake_round(4, 2, draft_ms=2.0), index=i) for i in range(1, 6)]
    spec.append(replace(fake_round(4, 2, draft_ms=50.0), index=0))
    base = [replace(fake_round(0, 0, verify_ms=10.0), index=i) for i in range(6)]
    base.append(replace(fake_round(0, 0, verify_ms=90.0), index=0))
    assert draft_cost_in_run(spec, base) == pytest.approx(0.2)
    assert draft_cost_in_run([], base) is None and draft_cost_in_run(spec, []) is None


def test_a_whole_run_counts_the_prompt_and_the_bookkeeping():
    from specdec.trace.theory import Overheads, run_speedup
    assert run_speedup(2.25, 2, 0.5, 1.5) == pytest.approx(2.25 / 2.5)    # the theorem's rounds alone
    # a run of N tokens: autoregressive P + N(1 + o0) steps, speculative P' + (N / 2.25)(2.5 + o)
    spec, base = Overheads(prefill=1.0, per_round=0.25), Overheads(prefill=0.8, per_round=0.1)
    assert run_speedup(2.25, 2, 0.5, 1.5, spec, base) == pytest.approx(1.9 / (1.0 + 2.75 / 2.25))
    # the prompt's reading pulls a slowdown toward 1
    assert 2.25 / 2.5 < run_speedup(2.25, 2, 0.5, 1.5, Overheads(5.0), Overheads(5.0)) < 1


def test_overheads_are_what_a_run_paid_besides_its_rounds():
    from types import SimpleNamespace as NS

    from specdec.bench.measure import Timed, overheads
    rounds = (NS(draft_ms=4.0, verify_ms=20.0, target_forwards=1),
              NS(draft_ms=4.0, verify_ms=20.0, target_forwards=1))                  # 48 ms of rounds
    run = Timed(tokens=4, seconds=0.1, rounds=rounds, texts=(), prefill_ms=40.0)   # 100 ms in all
    paid = overheads([run], step=10.0)
    assert paid.prefill == pytest.approx(40 / 10 / 4)                     # 1 step per token
    assert paid.per_round == pytest.approx((100 - 40 - 48) / 10 / 2)      # 0.6 steps per round
    assert paid.steps == pytest.approx(2 / 4)                             # 2 passes, 4 tokens


def test_an_autoregressive_run_whose_prompt_gave_its_first_token_pays_fewer_steps():
    from specdec.trace.theory import Overheads, run_speedup
    base = Overheads(prefill=0.5, per_round=0.1, steps=47 / 48)
    assert run_speedup(2.0, 2, 0.5, 1.5, base=base) == pytest.approx((0.5 + 47 / 48 + 0.1) / (2.5 / 2.0))


def test_a_repeat_pays_its_prices_in_its_own_steps():
    from dataclasses import replace
    from types import SimpleNamespace as NS

    from specdec.bench.measure import Timed, paid_in, whole_run

    def replace_ns(ns, **changes):
        return NS(**{**vars(ns), **changes})

    def rnd(index, drafted, verify_ms, draft_ms=0.0):
        return NS(index=index, drafted=drafted, verify_ms=verify_ms, draft_ms=draft_ms, draft_forwards=drafted,
                  target_forwards=1)
    base = Timed(tokens=3, seconds=0.05, rounds=(rnd(0, 0, 99.0), rnd(1, 0, 10.0), rnd(2, 0, 10.0)),
                 texts=(), prefill_ms=15.0)
    spec = Timed(tokens=3, seconds=0.06, rounds=(rnd(0, 2, 99.0, 8.0), rnd(1, 2, 16.0, 8.0)), texts=(),
                 prefill_ms=20.0)
    paid = paid_in(spec, base, 2, c=0.9)
    assert paid.v == pytest.approx(1.6)                              # the first round is left out
    assert paid.c == pytest.approx(0.4)                              # its own draft step: 8 ms / 2 / 10 ms
    assert paid_in(replace(spec, rounds=tuple(replace_ns(r, draft_forwards=0) for r in spec.rounds)),
                   base, 2, c=0.9).c == 0.9                          # no draft forward: the given c
    assert paid.spec.prefill == pytest.approx(20 / 10 / 3) and paid.base.prefill == pytest.approx(15 / 10 / 3)
    assert paid_in(spec, base, 3, c=0.4) is None                     # no round drafted 3
    # the bench's whole-run prediction: 1.5 tokens a round at those prices, both prompts' reading
    # (the rounds fill the runs' times here, so no bookkeeping is left over), 3 passes for 3 tokens
    assert whole_run(spec, base, 2, c=0.9) == pytest.approx((15 / 10 / 3 + 1) / (20 / 10 / 3 + (2 * 0.4 + 1.6) / 1.5))
    assert whole_run(spec, base, 3, c=0.4) is None


def test_a_prompt_pass_that_gave_the_first_token_counts_as_its_pass():
    from specdec.trace.rounds import Prefill
    rounds = [fake_round(4, 4), fake_round(4, 1), fake_round(4, 0), fake_round(2, 2)]   # 4 passes, 11 tokens
    read = Prefill(9, 30.0, 9, 0, 0.0, 0)
    gave = Prefill(9, 30.0, 9, 0, 0.0, 0, first_token=True)
    assert summarize(rounds, read).target_forwards == 4
    m = summarize(rounds, gave)
    assert m.target_forwards == 5 and m.target_calls_saved == pytest.approx(1 - 5 / 11)
    assert m.draft_per_verify == summarize(rounds).draft_per_verify     # priced by the rounds' passes


def test_every_section_prices_a_draft_forward_one_way_by_hand():
    """The lab's one c (measure.c_paid): per repeat, a draft forward as the runs paid it over
    the autoregressive step timed beside it; the median over repeats. Repeats of 2, 3 and 4 ms
    drafts against 10 ms steps: 0.2, 0.3, 0.4 -> 0.3. A lookup (no draft forward): None."""
    from dataclasses import replace
    from types import SimpleNamespace

    from specdec.bench.measure import c_paid

    def repeat(draft_ms: float | None, step_ms: float = 10.0):
        if draft_ms is None:
            rounds = [replace(fake_round(4, 2), index=i, draft_forwards=0) for i in range(1, 4)]
        else:
            rounds = [replace(fake_round(4, 2, draft_ms=draft_ms), index=i) for i in range(1, 4)]
        return SimpleNamespace(rounds=rounds), SimpleNamespace(
            rounds=[replace(fake_round(0, 0, verify_ms=step_ms), index=i) for i in range(1, 4)])
    runs = [repeat(2.0), repeat(3.0), repeat(4.0)]
    assert c_paid([s for s, _ in runs], [b for _, b in runs]) == pytest.approx(0.3)
    lookup = [repeat(None)]
    assert c_paid([s for s, _ in lookup], [b for _, b in lookup]) is None
    assert c_paid([], []) is None


def test_besides_is_each_repeat_in_its_own_steps_and_the_median_over_repeats():
    """What Drafters compared, the draft sizes and Where it works record besides their rounds
    (measure.besides): each speculative repeat against the plain repeat timed beside it."""
    from types import SimpleNamespace as NS

    from specdec.bench.measure import Timed, besides

    def rnd(index, verify_ms, draft_ms=0.0):
        return NS(index=index, drafted=0, verify_ms=verify_ms, draft_ms=draft_ms, draft_forwards=0,
                  target_forwards=1)

    def repeat(step_ms, spec_prefill, spec_seconds):
        # plain: 4 tokens, 4 rounds (the first on cold caches), 20 ms of prefill, 4 ms of bookkeeping
        base = Timed(tokens=4, seconds=(20 + 30 + 3 * step_ms + 4) / 1e3,
                     rounds=(rnd(0, 30.0), rnd(1, step_ms), rnd(2, step_ms), rnd(3, step_ms)), texts=(),
                     prefill_ms=20.0)
        # speculative: 4 tokens in 2 rounds of 25 + 5 ms
        spec = Timed(tokens=4, seconds=spec_seconds / 1e3, rounds=(rnd(0, 25.0, 5.0), rnd(1, 25.0, 5.0)),
                     texts=(), prefill_ms=spec_prefill)
        return spec, base
    repeats = [repeat(10.0, 20.0, 84.0), repeat(20.0, 40.0, 104.0), repeat(10.0, 30.0, 94.0)]
    paid = besides([s for s, _ in repeats], [b for _, b in repeats])
    # speculative prefill a token, in each repeat's step: 20/10/4 = 0.5, 40/20/4 = 0.5, 30/10/4 = 0.75
    assert paid.prefill_steps == pytest.approx(0.5)
    assert paid.base_prefill_steps == pytest.approx(statistics.median([20 / 10 / 4, 20 / 20 / 4, 20 / 10 / 4]))
    # bookkeeping a round: (84 − 20 − 60) / 10 / 2 = 0.2; (104 − 40 − 60) / 20 / 2 = 0.1; (94 − 30 − 60) / 10 / 2
    assert paid.round_overhead == pytest.approx(0.2)
    # plain: (seconds − prefill − passes) over the step and 4 rounds: 4 ms / 10 / 4 = 0.1, 4 / 20 / 4 = 0.05
    assert paid.base_overhead == pytest.approx(0.1)
    untimed = Timed(tokens=1, seconds=0.01, rounds=(rnd(0, 10.0),), texts=())     # only a cold first round
    assert besides([repeats[0][0]], [untimed]) is None
