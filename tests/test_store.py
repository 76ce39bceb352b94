"""One quantity, one figure (issue 28): a measured figure is filed under the key of what was
measured and every section reads it back; a different setting or prompt set is another key."""
import json
from dataclasses import replace

import pytest
from points import point

from specdec.bench.compared import DrafterPoint, DrafterTable, Variant
from specdec.prompts import Prompt
from specdec.records.provenance import Clock
from specdec.settings import Settings
from ui.lessons import fast, result_cache, store, store_words
from ui.lessons.drafters import figure_key


@pytest.fixture(autouse=True)
def results_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path)


PAIR = ("smollm2/target", "smollm2/draft")
SPEED = store.PromptSet.of(["a", "b"], True, 48, "speed")
OTHER = store.PromptSet.of(["a", "b", "c"], True, 32, "drafters/all")


def ksweep_rows():
    return [point(k=3, speedup=1.56, acceptance_rate=0.5), point(k=4, speedup=1.35, acceptance_rate=0.33)]


def tradeoff_rows():
    return [point(draft="smollm2/draft", drafter="model", params=1, speedup=1.26, acceptance_rate=0.3),
            point(draft="n-gram lookup", drafter="ngram", params=0, speedup=0.9, acceptance_rate=0.1)]


def test_a_section_shows_the_newest_figure_of_its_key_and_names_where_it_came_from():
    s = Settings(k=4, temperature=0.0)
    sweep_key, trade_key = fast.ksweep_figure(PAIR, s, SPEED), fast.tradeoff_figure(PAIR[0], s, SPEED)
    store.file(tradeoff_rows(), trade_key, "tradeoff")
    store.file(ksweep_rows(), sweep_key, "ksweep")          # measured later: the newest of k = 4
    rows, taken = store.agree(tradeoff_rows(), trade_key, "tradeoff")
    assert rows[0].speedup == 1.35 and rows[0].acceptance_rate == 0.33 and rows[0].params == 1
    assert rows[1].speedup == 0.9                            # n-gram: another key, its own figure
    assert [(r.draft, section) for r, section in taken] == [("smollm2/draft", "ksweep")]
    rows, taken = store.agree(ksweep_rows(), sweep_key, "ksweep")
    assert [r.speedup for r in rows] == [1.56, 1.35] and taken == []


@pytest.mark.parametrize("change", [dict(temperature=1.0), dict(drafter="early-exit"), dict(policy="heuristic"),
                                    dict(policy="confidence", confidence=0.5), dict(top_p=0.5)])
def test_another_setting_is_another_key(change):
    s = Settings(k=4, temperature=0.0)
    store.file(ksweep_rows(), fast.ksweep_figure(PAIR, s, SPEED), "ksweep")
    other = fast.ksweep_figure(PAIR, replace(s, **change), SPEED)
    rows, taken = store.agree(ksweep_rows()[1:], other, "tradeoff")
    assert store.read(other(ksweep_rows()[1])) is not None   # filed now, as its own figure
    assert store.read(other(ksweep_rows()[1])).source == "tradeoff" and taken == []


def test_top_p_is_filed_only_where_it_is_not_one_so_older_keys_keep_their_digest():
    """Review 54: a run at top-p 0.5 answered at top-p 1 (the key had no top-p); the keys filed before keep theirs."""
    s = Settings(k=4, temperature=0.7)
    plain = fast.ksweep_figure(PAIR, s, SPEED)(point())
    assert "top_p" not in store._as_dict(plain)                          # as every key filed before
    nucleus = fast.ksweep_figure(PAIR, replace(s, top_p=0.5), SPEED)(point())
    assert store._as_dict(nucleus)["top_p"] == 0.5 and not nucleus.same_setting(plain)
    store.file([point(k=4, speedup=0.9)], fast.ksweep_figure(PAIR, replace(s, top_p=0.5), SPEED), "box")
    assert store.read(nucleus) is not None and store.read(plain) is None
    assert "top_p" not in store.measurement("ksweep", PAIR, s, ["a"], True)            # shipped sweeps' keys
    assert store.measurement("ksweep", PAIR, replace(s, top_p=0.5), ["a"], True)["top_p"] == 0.5


def test_the_clock_and_the_exit_layer_are_part_of_the_key():
    s = Settings(k=4, drafter="early-exit", exit_layer=2)
    key = fast.ksweep_figure(PAIR, s, SPEED)
    assert key(point(clock=Clock.WALL)) != key(point(clock=Clock.CPU))
    assert key(point()) != fast.ksweep_figure(PAIR, replace(s, exit_layer=3), SPEED)(point())


def test_a_run_timed_in_cpu_time_is_still_the_newer_run_of_its_setting():
    """Review 30: "Measure k = 1 here" under load filed its figure in CPU time; the k sweep's shipped point of
    the same setting and prompts (wall clock) kept its own figure beside the box's. The newest of either clock."""
    s = Settings(k=4, temperature=0.0)
    key = fast.ksweep_figure(PAIR, s, SPEED)
    shipped = point(k=4, speedup=1.08, clock=Clock.WALL)
    store.file([replace(shipped, speedup=1.03, clock=Clock.CPU)], key, "box")        # measured here, busy
    rows, taken = store.agree([shipped], key, "ksweep", keep=False)
    assert rows[0].speedup == 1.03 and rows[0].clock == Clock.CPU and [t[1] for t in taken] == ["box"]
    store.file([replace(shipped, speedup=0.98)], key, "box")                         # then once more, idle
    assert store.agree([shipped], key, "ksweep", keep=False)[0][0].speedup == 0.98


def test_the_same_setting_on_other_prompts_is_named_as_the_difference():
    s = Settings(k=4, temperature=0.0)
    prompts = [Prompt("code", "a", "a"), Prompt("prose", "b", "b"), Prompt("code", "c", "c")]
    variants = [Variant("draft", "smollm2/draft")]
    drafters_key = figure_key(PAIR[0], replace(s, max_new_tokens=32), variants, prompts, True)
    row = DrafterPoint(drafter="draft", kind="all", acceptance_rate=0.29, mean_acceptance_length=1.4, c=0.1,
                       speedup=1.36, speedup_min=1.3, speedup_max=1.4, load=0.2)
    store.file([row, replace(row, kind="code", speedup=1.5)], drafters_key, "drafters")   # all, and a kind
    trade_key = fast.tradeoff_figure(PAIR[0], s, SPEED)
    text = store_words.elsewhere_caption(tradeoff_rows(), trade_key, "tradeoff", lambda r: r.draft)
    assert "1.36× (wall-clock) and acceptance rate 29%" in text
    assert "3 chats of every kind × 32 tokens (Drafters compared)" in text and "1.50" not in text
    assert "here 1.26× (wall-clock) and 30%" in text and "2 code and structured chats × 48 tokens" in text
    assert store_words.elsewhere_caption(tradeoff_rows()[1:], trade_key, "tradeoff", lambda r: r.draft) is None
    # a section's own rows on other prompts (its per-kind rows) are not "elsewhere"
    assert store_words.elsewhere_caption([row], drafters_key, "drafters", lambda r: r.drafter) is None
    code_row = replace(row, kind="code")                      # the code prompts alone: another set
    assert drafters_key(code_row).prompts.size == 2 and drafters_key(code_row) != drafters_key(row)


def test_a_shipped_figure_is_never_called_here():
    """Drafters compared shipped from another CPU beside the same setting measured here by When it
    is fast: the page's figure is named by its CPU, "for comparison"; "here" is the one measured here."""
    s = Settings(k=4, temperature=0.0)
    prompts = [Prompt("code", "a", "a"), Prompt("prose", "b", "b")]
    drafters_key = figure_key(PAIR[0], replace(s, max_new_tokens=32), [Variant("draft", "smollm2/draft")], prompts,
                              True)
    store.file(tradeoff_rows(), fast.tradeoff_figure(PAIR[0], s, SPEED), "tradeoff")       # this machine: 1.26×
    row = DrafterPoint(drafter="draft", kind="all", acceptance_rate=0.29, mean_acceptance_length=1.4, c=0.1,
                       speedup=1.36, speedup_min=1.3, speedup_max=1.4, load=0.2)          # shipped: 1.36×
    text = store_words.elsewhere_caption([row], drafters_key, "drafters", lambda r: r.drafter, shipped_from="Other CPU",
                                   priced={"draft": 0.9})
    assert "here 1.36" not in text and "here 1.26× (wall-clock) and acceptance rate 30%" in text
    assert "on Other CPU, for comparison, 1.36× (wall-clock) and 29% on 2 chats of every kind" in text
    assert "its tokens a round at this machine's prices: 0.90×." in text
    assert "both the prompts and the machine differ" in text


def test_a_row_of_an_unknown_variant_has_no_key():
    key = figure_key(PAIR[0], Settings(), [Variant("draft", "smollm2/draft")], [], True)
    assert key(DrafterPoint(drafter="gone", kind="all", acceptance_rate=None, mean_acceptance_length=None, c=0.0,
                            speedup=1.0, speedup_min=1.0, speedup_max=1.0, load=0.0)) is None


def test_another_precision_is_another_key():
    s = Settings(k=4)
    assert fast.ksweep_figure(PAIR, s, SPEED, store.Ran("float32"))(point()) != \
        fast.ksweep_figure(PAIR, s, SPEED)(point())
    assert fast.ksweep_figure(PAIR, s, SPEED, store.Ran(backend="onnx"))(point()).precision == "auto/onnx"


def test_two_results_shipped_together_show_one_figure_per_key():
    s = Settings(k=4, temperature=0.0)
    sweep_key, trade_key = fast.ksweep_figure(PAIR, s, SPEED), fast.tradeoff_figure(PAIR[0], s, SPEED)
    rows, taken = store.agree_with(tradeoff_rows(), trade_key, ksweep_rows(), sweep_key)
    assert rows[0].speedup == 1.35 and rows[0].params == 1 and rows[1].speedup == 0.9
    assert [r.draft for r in taken] == ["smollm2/draft"]
    other_t = fast.ksweep_figure(PAIR, replace(s, temperature=0.7), SPEED)
    assert store.agree_with(tradeoff_rows(), trade_key, ksweep_rows(), other_t) == (tradeoff_rows(), [])


def test_every_shipped_result_is_found_by_the_key_its_page_builds():
    """Issue 42: every page builds its keys with store.measurement; the results shipped in
    assets/results (measured with the sidebar's defaults) must still be found by them."""
    from types import SimpleNamespace

    from specdec import defaults
    from specdec.bench import server
    from specdec.bench.points import Sweep, TempSweep
    from specdec.bench.record import BatchSweep
    from specdec.bench.server import PrefixRun, Timeline
    from specdec.bench.where import WhereSet
    from specdec.drafters.registry import tree_for
    from specdec.models.names import DEFAULT_DRAFT, DEFAULT_TARGET, FAST_TARGET, family_drafts
    from specdec.prompts import load_prompts, round_robin
    from specdec.settings import LENGTHS
    from ui import family
    from ui.lessons import server as server_lesson
    from ui.lessons import shipped
    from ui.lessons.trees import ChainOrTree
    names, base = (DEFAULT_TARGET, DEFAULT_DRAFT), Settings()          # the sidebar's defaults
    texts, chat = family.speed_prompts(True)[0], True                    # SmolLM2-Instruct takes chats
    at_speed = replace(base, max_new_tokens=LENGTHS.speed)
    drafts, exits = family_drafts(DEFAULT_TARGET), list(family.too_big_exits(DEFAULT_TARGET))
    served = replace(server.speculative(base, SimpleNamespace(draft=DEFAULT_DRAFT)), max_new_tokens=LENGTHS.server)
    chosen = round_robin(family.prompt_set(chat), defaults.DRAFTERS_PROMPTS)   # Drafters compared's default N
    where = [p.key for p in load_prompts("chat")]
    keys = {
        "ksweep": store.measurement("ksweep", names, at_speed, texts, chat, repeats=defaults.REPEATS),
        "ksweep/T=0": store.measurement("ksweep", names, replace(at_speed, temperature=0.0), texts, chat,
                                        repeats=defaults.REPEATS),                  # Home races greedily
        "temps": store.measurement("temps", names, at_speed, texts, chat),
        "tradeoff": store.measurement("tradeoff", (DEFAULT_TARGET, None), at_speed, texts, chat, drafts=drafts,
                                      repeats=defaults.REPEATS, exits=exits),
        "tradeoff/stdlib": store.measurement("tradeoff", (FAST_TARGET, None), at_speed, family.speed_prompts(False)[0],
                                             False, drafts=family_drafts(FAST_TARGET), repeats=defaults.REPEATS),
        "drafters": store.measurement("drafters", (DEFAULT_TARGET, None),
                                      replace(base, max_new_tokens=LENGTHS.drafters, seed=0),
                                      [p.prompt for p in chosen], chat, drafts=drafts, repeats=defaults.REPEATS),
        "server_sweep": server_lesson.sweep_key(names, served, texts, chat),
        "server_timeline": store.measurement("server_timeline", names, served, texts, chat, requests=8),
        "server_prefix": store.measurement("server_prefix", names, served, texts, chat),
        "trees": store.measurement("trees", names, replace(base, drafter=tree_for(True).name, tree_width=2,
                                                           tree_budget=8, tree_children="sampled",
                                                           max_new_tokens=LENGTHS.trees, seed=0)),
        **{f"where/T={t}": store.measurement("where", names, replace(base, max_new_tokens=LENGTHS.where, seed=0,
                                                                     temperature=t), where, chat)
           for t in (0.0, base.temperature)},
        # the comparisons at the k the shipping CPU's prices pick (picked_k_view's button)
        "where/k=1": store.measurement("where", names, replace(base, max_new_tokens=LENGTHS.where, seed=0, k=1),
                                       where, chat),
        "drafters/k=1": store.measurement("drafters", (DEFAULT_TARGET, None),
                                          replace(base, max_new_tokens=LENGTHS.drafters, seed=0, k=1),
                                          [p.prompt for p in chosen], chat, drafts=drafts, repeats=defaults.REPEATS)}
    missing = [name for name, key in keys.items() if not shipped.path_for(name.split("/")[0], key).is_file()]
    assert missing == []
    # each loads through its one record, which says on which CPU and when it was measured
    records = {"ksweep": Sweep, "temps": TempSweep, "tradeoff": Sweep, "drafters": DrafterTable,
               "server_sweep": BatchSweep, "server_timeline": Timeline, "server_prefix": PrefixRun, "where": WhereSet,
               "trees": ChainOrTree}
    for name, key in keys.items():
        found = shipped.load(name.split("/")[0], key, records[name.split("/")[0]])
        assert found is not None and found.provenance.cpu and found.provenance.date, name
    # every file is one of them: the key's first, or one a machine of another CPU model shipped beside it
    cpus = {json.loads(p.read_text()).get("cpu") for p in shipped.SHIPPED_DIR.glob("*.json")}
    found = {p.name for p in shipped.SHIPPED_DIR.glob("*.json")}
    assert found - {shipped.path_for(n.split("/")[0], k, cpu).name for n, k in keys.items() for cpu in cpus} <= {
        p.name for p in shipped.SHIPPED_DIR.glob("beyond-*.json")}      # Beyond tokens keys its own


def test_how_the_target_ran_is_part_of_a_key_only_when_not_the_default():
    s = Settings()
    plain = store.measurement("server_prefix", PAIR, s, ["a"], True)
    assert plain == {"pair": list(PAIR), "settings": s.as_dict(), "prompts": ["a"], "chat": True}
    assert store.measurement("server_prefix", PAIR, s, ["a"], True, store.Ran("int4", "onnx", 2)) == \
        {**plain, "precision": "int4", "backend": "onnx", "threads": 2}
    assert store.Ran("int4").label() == "int4" and store.Ran("int4", "onnx").label() == "int4/onnx"
    assert fast.ksweep_figure(PAIR, s, SPEED, store.Ran(threads=2))(point()).threads == 2


def test_every_constant_k_of_a_setting_is_read_back_by_k():
    """The box's "In short" (review 33): every whole-set run at a constant k and the other settings, any section."""
    s = Settings(k=4, temperature=0.7)
    store.file([point(k=1, speedup=1.02), point(k=4, speedup=0.69)], fast.ksweep_figure(PAIR, s, SPEED), "box")
    store.file([point(k=1, speedup=1.05)], fast.ksweep_figure(PAIR, s, SPEED), "ksweep")          # newer, same key
    store.file([point(k=2, speedup=1.3)], fast.ksweep_figure(PAIR, replace(s, temperature=0.0), SPEED), "box")
    found = store.filed_by_k(PAIR[0], (PAIR[1],), replace(s, policy="constant"))
    assert sorted(found) == [1, 4] and [e.figure.speedup for e in found[4]] == [0.69]
    assert found[1][0].figure.speedup == 1.05                           # one key, its newest filing
    assert store.filed_by_k(PAIR[0], ("other/draft",), s) == {}


def test_a_results_key_reads_the_repeats_when_it_is_built(monkeypatch):
    """A test that measured with fewer repeats (monkeypatched) left Drafters compared's and the draft sizes' keys at
    its count for every later test in the process (bound at import): their shipped results went unfound."""
    from specdec import defaults
    from specdec.prompts import Prompt
    from ui.lessons import drafters, fast_draft_size
    s, prompts, ran = Settings(k=4, temperature=0.7), [Prompt("code", "a", "a")], store.DEFAULT_RAN

    def keys():
        return (drafters.result_key(PAIR[0], ["smollm2/draft"], s, prompts, True),
                fast_draft_size.result_key(PAIR[0], ["smollm2/draft"], s, ["a"], True, ran))
    before = keys()
    monkeypatch.setattr(defaults, "REPEATS", defaults.REPEATS + 1)
    after = keys()
    assert before[0] != after[0] and before[1] != after[1]
