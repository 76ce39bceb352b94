"""Per-kind metrics from hand-made traces with known answers."""
import pytest
from test_metrics import fake_round

from specdec.bench.where import PromptResult, group_metrics, group_speedup, position_split
from specdec.prompts import Prompt


def result(kind: str, rounds, spec=(20.0,), base=(10.0,), prompt_tokens=5):
    return PromptResult(Prompt(kind, kind, "x"), prompt_tokens, tuple(rounds), spec, base)


def test_metrics_per_kind_by_hand():
    results = [result("code", [fake_round(4, 4), fake_round(4, 2)]),
               result("code", [fake_round(4, 0)]),
               result("prose", [fake_round(2, 1), fake_round(2, 0)], spec=(5.0,), base=(10.0,))]
    by_kind = {g.name: g.metrics for g in group_metrics(results, key=lambda r: r.prompt.kind)}
    code, prose = by_kind["code"], by_kind["prose"]
    assert code.acceptance_rate == pytest.approx(6 / 12)
    assert code.mean_acceptance_length == pytest.approx((5 + 3 + 1) / 3)
    assert code.per_position == pytest.approx((2 / 3, 2 / 3, 1 / 3, 1 / 3))
    assert code.histogram == (1, 0, 1, 0, 1)
    assert prose.acceptance_rate == pytest.approx(1 / 4) and prose.histogram == (1, 1, 0)
    code_up, prose_up = group_speedup(results, key=lambda r: r.prompt.kind)
    assert (code_up.name, prose_up.name) == ("code", "prose")
    assert code_up.speedups == pytest.approx([2.0]) and prose_up.speedups == pytest.approx([0.5])


def test_speedup_per_repeat_is_time_weighted_over_the_group():
    """Two prompts of one kind, two repeats: repeat 1 is 2x on both; in repeat 2 the 4-token
    prompt runs at 1x and the 1-token one at 4x -> time 4/10 + 1/40 vs 4/10 + 1/10 -> 1.18x."""
    a = result("code", [fake_round(4, 3)], spec=(20.0, 10.0), base=(10.0, 10.0))     # 4 tokens
    b = result("code", [fake_round(1, 0)], spec=(20.0, 40.0), base=(10.0, 10.0))     # 1 token
    ups = group_speedup([a, b], key=lambda r: r.prompt.kind)[0].speedups
    assert ups == pytest.approx([2.0, (4 / 10 + 1 / 10) / (4 / 10 + 1 / 40)])
    assert a.speedup_on() == pytest.approx(1.5) and b.speedup_on() == pytest.approx(3.0)   # medians


def test_on_a_busy_machine_the_speedups_use_cpu_time_when_the_result_has_it():
    """Wall-clock halved by a competing job, CPU time not: the CPU clock keeps the 2x."""
    from dataclasses import replace

    from specdec.bench.where import clock_of
    a = replace(result("code", [fake_round(4, 3)], spec=(10.0,), base=(10.0,)),
                spec_cpu_tokens_per_s=(40.0,), base_cpu_tokens_per_s=(20.0,))
    assert clock_of([a], load=0.4) == "wall" and clock_of([a], load=1.3) == "cpu"
    assert group_speedup([a], key=lambda r: r.prompt.kind, clock="cpu")[0].speedups == (2.0,)
    assert a.speedup_on("wall") == 1.0 and a.speedup_on("cpu") == 2.0
    old = result("code", [fake_round(4, 3)])                  # kept before CPU times were recorded
    assert clock_of([a, old], load=1.3) == "wall"


def test_early_and_late_rounds():
    rounds = [fake_round(4, 4), fake_round(4, 1), fake_round(4, 0)]
    rounds = [r.__class__(**{**r.__dict__, "prefix_len": start}) for r, start in zip(rounds, (10, 15, 40))]
    early, late = position_split([result("code", rounds)], boundary=16)
    assert (early.name, late.name) == ("tokens 1-16", "tokens 17+")
    assert early.metrics.rounds == 2 and late.metrics.rounds == 1 and late.metrics.accepted == 0


def test_results_survive_their_json_form_and_a_damaged_file_is_refused(pair):
    """The one record form (kept on disk, shipped): every metric and speedup comes back with the
    provenance; a result with a damaged round is one RecordFileError naming where, not a crash."""
    import json

    from specdec.bench import where
    from specdec.records import codec
    from specdec.settings import Settings
    prompts = [Prompt("code", "a", "ab"), Prompt("prose", "b", "ba (")]
    res = where.run_set(pair, prompts, Settings(k=3, max_new_tokens=10, seed=1, temperature=0.9),
                        lambda *a: None, repeats=2)
    data = json.loads(codec.to_json(res))
    back = codec.from_data(where.WhereSet, data, "where")
    assert back.provenance == res.provenance and [r.prompt for r in back.results] == prompts
    assert [r.metrics for r in back.results] == [r.metrics for r in res.results]
    assert [r.speedup_on() for r in back.results] == [r.speedup_on() for r in res.results]
    assert [r.speedup_on("cpu") for r in back.results] == [r.speedup_on("cpu") for r in res.results]
    assert all(r.speedup_on("cpu") > 0 for r in res.results)
    data["results"][1]["rounds"][0]["n_accepted"] = "many"
    with pytest.raises(codec.RecordFileError, match="where\\.results\\[1\\]\\.rounds\\[0\\]\\.n_accepted"):
        codec.from_data(where.WhereSet, data, "where")


def test_a_kinds_prefill_and_bookkeeping_pool_its_prompts_by_tokens_and_rounds():
    """by_kind's whole-run inputs (the page prices them here): each prompt's, weighted by its tokens
    (the prefill a generated token) or its rounds (the bookkeeping); none for an older record."""
    from dataclasses import replace

    from specdec.bench.where import by_kind
    long = replace(result("code", [fake_round(4, 4), fake_round(4, 2)]), base_tokens=8,     # 8 tokens, 2 rounds
                   prefill_steps=0.5, base_prefill_steps=0.4, round_overhead=0.2, base_overhead=0.1)
    short = replace(result("code", [fake_round(4, 0)]), base_tokens=2,                      # 1 token, 1 round
                    prefill_steps=2.0, base_prefill_steps=1.0, round_overhead=0.5, base_overhead=0.3)
    code = by_kind([long, short])[0]
    assert code.prefill_steps == pytest.approx((0.5 * 8 + 2.0 * 1) / 9)
    assert code.base_prefill_steps == pytest.approx((0.4 * 8 + 1.0 * 2) / 10)
    assert code.round_overhead == pytest.approx((0.2 * 2 + 0.5 * 1) / 3)
    assert code.base_overhead == pytest.approx((0.1 * 8 + 0.3 * 2) / 10)
    older = by_kind([long, result("code", [fake_round(4, 0)])])[0]            # one prompt recorded none
    assert older.prefill_steps is None and older.round_overhead is None


def test_a_fastest_kind_that_is_not_the_most_accepted_is_explained_by_its_runs_prompt_reading():
    """At k = 1, T = 0.7 the shipped set ran translation fastest though it was accepted least (review 29): its
    speculative runs wrote longer answers, so the prompt's one pass weighed less on each token. Said only where
    the runs show it (the target alone's prompt reading a token 5% above the speculative runs')."""
    from specdec.bench.where import KindPoint
    from ui.lessons.where import ranking_note

    def kind(name, rate, speedup, spec=0.6, base=0.6):
        return KindPoint(name, 8, rate, 1 + rate, speedup, speedup, speedup, (rate,), (1,), spec, base)
    odd = [kind("arithmetic", 0.61, 1.02), kind("translation", 0.27, 1.03, spec=0.68, base=0.86)]
    said = ranking_note(odd)
    assert said.startswith("**translation** ran fastest (1.03×), though its drafts were accepted 27% of the time "
                           "against 61% on **arithmetic**")
    assert "cost them 0.68 steps a token against 0.86 for the target alone" in said
    assert ranking_note([kind("arithmetic", 0.61, 1.04), odd[1]]) is None           # the most accepted is fastest
    assert ranking_note([odd[0], kind("translation", 0.27, 1.03, spec=0.68, base=0.70)]) is None   # same reading
    assert ranking_note([odd[0], kind("translation", 0.27, 1.03, spec=None, base=None)]) is None   # older record
