"""The benchmark end to end on tiny config-built models, and its greedy-identity check."""
import json

from tiny import tiny_pair

from specdec.bench import ROWS, bench, greedy_mismatches, table
from specdec.prompts import KINDS, load_prompts, round_robin, select


def test_bench_runs_and_reports_every_field():
    pair = tiny_pair()
    result = bench(pair, ["abc", "(a b", "hhh"], ks=[2], temps=[0.0, 1.0], max_new=8, repeats=1)
    json.dumps(result)                                   # machine-readable as a whole
    assert {"c", "draft_step_ms", "target_step_ms", "settings"} <= set(result)
    assert [(s["k"], s["temperature"]) for s in result["settings"]] == [(2, 0.0), (2, 1.0)]
    for s in result["settings"]:
        assert [r["row"] for r in s["rows"]] == list(ROWS)
        for r in s["rows"]:
            assert r["tokens_per_s"] > 0 and r["target_forwards_per_token"] > 0
        spec = s["rows"][1]
        assert 0 <= spec["acceptance_rate"] <= 1 and spec["bound"] > 0
        assert spec["measured_over_bound"] == spec["speedup"] / spec["bound"]
        assert s["verify_cost"] > 0 and spec["bound_with_verify"] > 0
        # a costlier verification pass can only lower the bound, a cheaper one only raise it
        assert (spec["bound_with_verify"] <= spec["bound"]) == (s["verify_cost"] >= 1)
        assert s["rows"][0]["speedup"] == 1.0
    greedy = result["settings"][0]
    assert greedy["identical"] is True, greedy["mismatches"]   # tiny models: no near-ties
    assert "greedy outputs of rows 1-4 identical on every prompt: yes" in table(result)
    assert f"v = {greedy['verify_cost']:.2f}" in table(result)


def test_greedy_identity_check_fails_on_different_outputs():
    same = {"a": [[1, 2, 3]], "b": [[1, 2, 3]]}
    assert greedy_mismatches(same) == []
    diff = {"a": [[1, 2, 3], [4]], "b": [[1, 9, 3], [4]]}
    assert greedy_mismatches(diff) == [{"prompt": 0, "row": "b", "reference": "a", "position": 1}]
    shorter = {"a": [[1, 2, 3]], "b": [[1, 2]]}
    assert greedy_mismatches(shorter)[0]["position"] == 2


def test_prompt_set_has_kinds_and_selection():
    prompts = load_prompts()
    assert len(prompts) >= 40 and {p.kind for p in prompts} == set(KINDS)
    assert all(p.kind in KINDS and p.label and p.prompt for p in prompts)
    assert [p.kind for p in round_robin(prompts, 5)] == list(KINDS)
    assert len(select("repetitive", 3)) == 3
