"""A run in context (issue 28): the typical figures come from the shipped "Where it works"
result at the same pair, k and T, per kind, and say when there is none."""
import dataclasses
import json

import pytest
from shown import shown_files

from specdec.prompts import load_prompts
from specdec.trace.metrics import summarize
from ui import context_view
from ui.lessons import shipped
from ui.typical import typical

PAIR = ("smollm2/target", "smollm2/draft")


@pytest.fixture(autouse=True)
def nothing_kept(tmp_path, monkeypatch):
    """Only the shipped results count here (not what this machine kept in build/results)."""
    from ui.lessons import result_cache
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path / "kept")


def shipped_where() -> tuple[dict, dict]:
    """The shipped Where result of the default pair at T = 0 (Home races at T = 0): its key and its
    value as the file holds it (JSON, read here without the app's decoder)."""
    files = shown_files("where")                         # this machine's CPU model's, else the first shipped
    (key, value), = [(f["key"], f["value"]) for f in files if f["key"]["pair"] == list(PAIR)
                     and f["key"]["settings"]["temperature"] == 0]
    return key, value


def test_the_typical_acceptance_of_a_kind_is_its_prompts_pooled():
    key, value = shipped_where()
    k, t = key["settings"]["k"], key["settings"]["temperature"]
    code = [r for r in value["results"] if r["prompt"]["kind"] == "code"]
    drafted = sum(len(p) for r in code for p in ([x["positions"] for x in r["rounds"]]))
    accepted = sum(x["n_accepted"] for r in code for x in r["rounds"])
    got = typical(PAIR, k, t, "code")
    assert got.kind == "code" and got.prompts == sum(p.kind == "code" for p in load_prompts("chat")) == len(code)
    assert abs(got.acceptance_rate - accepted / drafted) < 1e-12 and got.measured != "here"
    every = typical(PAIR, k, t, None)
    assert every.kind is None and every.prompts == len(value["results"])
    assert typical(PAIR, k, t, "a kind nobody wrote").prompts == len(value["results"])   # falls back to all


def test_other_settings_have_no_typical_and_the_caption_says_so():
    key, _ = shipped_where()
    k, t = key["settings"]["k"], key["settings"]["temperature"]
    assert typical(PAIR, k + 1, t, "code") is None and typical(PAIR, k, t + 0.1, None) is None
    assert typical(("smollm2/target", "smollm2/draft-2l"), k, t, None) is None
    m = summarize([])
    assert "No kept or shipped" in context_view.sentence(m, None, k + 1, t)


def test_the_caption_puts_the_run_beside_the_typical_value():
    key, _ = shipped_where()
    k, t = key["settings"]["k"], key["settings"]["temperature"]
    got = typical(PAIR, k, t, "code")
    text = context_view.sentence(summarize([]), got, k, t)
    assert f"Typical for code at k = {k}, T = {t:g}: acceptance rate {100 * got.acceptance_rate:.0f}% · α̂ " in text
    assert f"({got.prompts} prompts; shipped, measured on {got.measured})" in text
    # the two acceptance figures side by side are each defined where they stand (issue 51: 20 % beside α̂ 0.46)
    assert "Acceptance rate = accepted ÷ drafted tokens" in text and "α̂ = the mean β" in text
    # no speedup in the run's context, here or shipped: "Does it pay here?" states the one figure
    assert got.measured != "here"
    here = dataclasses.replace(got, measured="here")
    for shown in (text, context_view.sentence(summarize([]), here, k, t)):
        assert f"{got.speedup:.2f}×" not in shown and "speedup" not in shown


def test_a_kept_result_is_read_with_its_key():
    from specdec.bench.where import WhereSet
    from ui.lessons import result_cache
    key, _value = shipped_where()
    found = shipped.load("where", key, WhereSet)
    result_cache.save("where", key, found)
    assert result_cache.load("where", key, WhereSet) == found and found.provenance.cpu
    assert [k for k, _ in result_cache.kept("where", WhereSet)] == [json.loads(json.dumps(key))]
    assert typical(PAIR, key["settings"]["k"], key["settings"]["temperature"], "code").measured == "here"


def test_a_run_that_drafted_another_k_is_compared_by_its_alpha():
    """Home's race drafts k by prices: its acceptance rate is not the typical figure's at k = 4."""
    key, _ = shipped_where()
    k, t = key["settings"]["k"], key["settings"]["temperature"]
    got = typical(PAIR, k, t, "code")
    short = dataclasses.replace(summarize([]), rounds=10, drafted=12)          # 1.2 tokens a round
    assert f"This run drafted 1.2 tokens a round, not k = {k}: compare α̂" in context_view.sentence(short, got, k, t)
    full = dataclasses.replace(summarize([]), rounds=10, drafted=10 * k)
    assert "compare α̂" not in context_view.sentence(full, got, k, t)


def test_a_typical_set_at_another_t_than_the_sidebars_says_where_it_is_shown():
    """Home's race runs greedy: its typical figure is Where it works' at T = 0, a page that shows
    the sidebar's T; the caption says which T shows it (and nothing where the two agree)."""
    key, _ = shipped_where()
    k, t = key["settings"]["k"], key["settings"]["temperature"]
    got = typical(PAIR, k, t, "code")
    other = t + 0.5
    said = context_view.sentence(summarize([]), got, k, t, shown_at=other)
    assert f"Where it works shows that set when the sidebar's temperature is {t:g} (now {other:g})." in said
    assert "the sidebar's temperature" not in context_view.sentence(summarize([]), got, k, t, shown_at=t)
    assert "the pair card" in said
