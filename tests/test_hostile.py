"""Hostile files and careless input: every edge gives one clear error, never a traceback.

A table of bad inputs for the Python API, the CLI and replay files; a fuzz test of
`Run.from_json` (random mutations of a valid trace are either a valid Run or a
TraceError); escaping wherever text from a file becomes HTML, Markdown or terminal output.
"""
import copy
import json
import random

import pytest

import specdec
from specdec.cli.main import main
from specdec.cli.terminal import marked_text, visible
from specdec.trace.schema import MAX_BYTES, TraceError
from ui.safe import md
from ui.strip import strip_html


@pytest.fixture(scope="module")
def valid(pair):
    run = specdec.generate(pair, "ab(ab(a", k=3, temperature=0.9, seed=2, max_new_tokens=10)
    return json.loads(run.to_json())


def mutate(data: dict, path: list, value) -> str:
    out = copy.deepcopy(data)
    node = out
    for key in path[:-1]:
        node = node[key]
    if value is DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return json.dumps(out)


DELETE = object()
BAD_FILES = [   # (where, new value, words the message must contain)
    (["rounds", 0, "positions", 0, "verdict"], "evil\" onmouseover=\"x", "verdict"),
    (["rounds", 0, "final", "kind"], "<img src=x>", "final.kind"),
    (["rounds", 0, "n_accepted"], 99, "accepted of"),
    (["rounds", 0, "positions", 0, "p"], "0.5", "expected float"),
    (["rounds", 0, "positions", 0, "q"], 1.5, "probability"),
    (["rounds", 0, "positions", 0, "token"], -1, "outside the vocabulary"),
    (["rounds", 0, "positions", 0, "target", "probs"], [0.1, 0.2], "full distribution"),
    (["rounds", 0, "positions"], None, "expected a list"),
    (["rounds", 0, "index"], 7, "says it is round"),
    (["rounds", 0, "draft_limit"], 1000, "limit"),
    (["rounds", 0, "emitted"], [], "emitted"),
    (["rounds"], "many", "expected a list"),
    (["token_ids"], [1, 2, 3], "emitted tokens"),
    (["prompt"], None, "expected str"),
    (["stop_reason"], "because", "stop reason"),
    (["settings"], {"target": {"nested": 1}}, "settings.target"),
    (["vocab"], {"not-an-id": "x"}, "keys must be token ids"),
    (["rounds", 0, "positions", 0, "u"], True, "expected float"),
    (["prompt_ids"], DELETE, "missing"),
]


@pytest.mark.parametrize("path, value, words", BAD_FILES)
def test_a_bad_replay_file_is_one_clear_error(valid, path, value, words):
    with pytest.raises(TraceError, match=words.replace("(", r"\(")):
        specdec.Run.from_json(mutate(valid, path, value))


@pytest.mark.parametrize("raw, words", [
    ("null", "one JSON object"),
    ("[" * 100_000 + "]" * 100_000, "nests"),
    ('{"a": ' * 20 + "1" + "}" * 20, "nests"),
    ("{not json", "not valid JSON"),
    ('{"prompt": NaN}', "NaN"),
    ('{"prompt": Infinity}', "Infinity"),
    (b"\xff\xfe\x00garbage", "not valid JSON"),
    (" " * (MAX_BYTES + 1), "MB"),
])
def test_malformed_json_is_one_clear_error(raw, words):
    with pytest.raises(TraceError, match=words):
        specdec.Run.from_json(raw)


def test_a_valid_file_still_round_trips(valid):
    run = specdec.Run.from_json(json.dumps(valid))
    assert json.loads(run.to_json()) == valid


def test_files_from_before_the_k_rename_still_load(valid):
    old = copy.deepcopy(valid)
    for rnd in old["rounds"]:
        rnd["k"] = rnd.pop("draft_limit")
    assert specdec.Run.from_json(json.dumps(old)).rounds[0].draft_limit == valid["rounds"][0]["draft_limit"]


def _paths(node, prefix=()):
    """Every (path, value) in a JSON tree."""
    yield prefix, node
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        yield from _paths(child, prefix + (key,))


def test_fuzz_random_mutations_are_a_run_or_one_clear_error(valid):
    rng = random.Random(16)
    paths = [p for p, _ in _paths(valid) if p]
    values = [None, -1, 0, 1, 2**70, 0.5, -0.5, 1e308, "", "x" * 50, "<script>", [], {}, [1, "a"],
              {"i": 1}, True, [[[[]]]]]
    outcomes = {"run": 0, "error": 0}
    for _ in range(400):
        path = list(rng.choice(paths))
        value = DELETE if rng.random() < 0.15 and isinstance(path[-1], str) else rng.choice(values)
        try:
            specdec.Run.from_json(mutate(valid, path, value))
            outcomes["run"] += 1
        except TraceError:
            outcomes["error"] += 1
    assert outcomes["error"] > 100 and sum(outcomes.values()) == 400


def test_strings_from_a_file_are_escaped_in_html_and_markdown(valid):
    evil = copy.deepcopy(valid)
    evil["vocab"] = {k: "<img src=x onerror=alert(1)>" for k in evil["vocab"]}
    for pos in evil["rounds"][0]["positions"]:
        pos["text"] = '<b onmouseover="x">'
    run = specdec.Run.from_json(json.dumps(evil))
    html = strip_html([run.label(t) for t in run.prompt_ids], list(run.rounds), 0)
    assert "<img" not in html and "<b " not in html and "&lt;img" in html
    assert md("![](http://host/x.png)") == r"\!\[\]\(http\://host/x\.png\)"
    assert "](" not in md("[click](http://host)")


@pytest.mark.parametrize("kwargs, words", [
    (dict(temperature=float("inf")), "finite"),
    (dict(temperature=float("nan")), "finite"),
    (dict(top_p=float("nan")), "top-p"),
    (dict(confidence=float("nan")), "confidence"),
    (dict(k=0), "draft length"),
    (dict(max_new_tokens=0), "max new tokens"),
    (dict(drafter="tree-of-life"), "drafter must be one of"),
    (dict(policy="yolo"), "policy must be one of"),
    (dict(seed="7"), "seed must be a whole number"),
    (dict(exit_layer=0), "exit layer"),
    (dict(drafter="tree", tree_width=0), "tree width"),
    (dict(drafter="tree", tree_budget=0), "tree budget"),
    (dict(drafter="ngram-tree", tree_budget=10**6), "tree budget"),
    (dict(drafter="tree", tree_children="all"), "tree children"),
])
def test_bad_settings_are_one_clear_error(pair, kwargs, words):
    with pytest.raises(specdec.InputError, match=words):
        specdec.generate(pair, "abc", **kwargs)


def test_any_integer_seed_is_reduced_to_the_generators_range(pair):
    big = specdec.generate(pair, "abc", seed=2**64 + 5, max_new_tokens=6, temperature=1.0)
    small = specdec.generate(pair, "abc", seed=5, max_new_tokens=6, temperature=1.0)
    negative = specdec.generate(pair, "abc", seed=-1, max_new_tokens=6, temperature=1.0)
    top = specdec.generate(pair, "abc", seed=2**64 - 1, max_new_tokens=6, temperature=1.0)
    assert big.token_ids == small.token_ids and negative.token_ids == top.token_ids


def test_one_token_is_not_tokens(pair):
    with pytest.raises(specdec.InputError, match=r"at least 1 token$"):
        specdec.generate(pair, "a" * pair.context, max_new_tokens=2)


def test_control_characters_are_shown_escaped_in_the_terminal(pair):
    assert visible("a\x1b[31mb\u202ec\nd") == "a\\x1b[31mb\\u202ec\nd"
    run = specdec.generate(pair, "ab\x1b]0;pwned\x07", max_new_tokens=4)
    assert "\x1b]" not in marked_text(run, colour=False) and "\\x1b" in marked_text(run, colour=False)


@pytest.mark.parametrize("args, words", [
    (["--seed", str(2**80)], None),                         # reduced, not a traceback
    (["--temperature", "inf"], "finite"),
    (["--temperature", "nan"], "finite"),
    (["--top-p", "nan"], "top-p"),
    (["--target", "stdlib/target-xl"], "no embedded model"),
    (["--prompt", "\x1b[2J", "--target", "/tmp"], "not a tokenizer folder"),
    (["--drafter", "ngram-tree", "--tree-width", "0"], "tree width"),
    (["--drafter", "ngram-tree", "--tree-budget", "999"], "tree budget"),
    (["--drafter", "ngram-tree", "--mode", "autoregressive"], "drafts nothing"),
])
def test_cli_bad_input_table(capsys, args, words):
    base = ["run", "--prompt", "abc", "--max-new-tokens", "3", "--drafter", "ngram"]
    code = main(base + args)
    err = capsys.readouterr().err
    if words is None:
        assert code == 0, err
    else:
        assert code == 2 and words in err and "Traceback" not in err and "\x1b" not in err


def test_cli_json_is_always_valid_json(capsys):
    assert main(["run", "--prompt", "ab", "--max-new-tokens", "3", "--json", "--drafter", "ngram",
                 "--temperature", "1e-30"]) == 0
    json.loads(capsys.readouterr().out, parse_constant=lambda name: pytest.fail(name))


@pytest.mark.parametrize("temperature", [1e-30, 1e-45, 1e-300])
def test_a_tiny_temperature_is_greedy_not_nan(pair, temperature):
    run = specdec.generate(pair, "abc", temperature=temperature, max_new_tokens=8, k=2)
    greedy = specdec.generate(pair, "abc", temperature=0, max_new_tokens=8, k=2)
    assert run.token_ids == greedy.token_ids
    for rnd in run.rounds:
        assert all(0 <= pos.q <= 1 and 0 <= pos.p <= 1 for pos in rnd.positions)


def _copy_model(tmp_path, name: str = "stdlib/draft-1l"):
    import shutil

    from specdec.models.names import ASSETS
    dest = tmp_path / "model"
    shutil.copytree(ASSETS / name, dest)
    return dest


def _truncate(folder):
    data = (folder / "model.safetensors").read_bytes()
    (folder / "model.safetensors").write_bytes(data[:len(data) // 3])


def _int_weights(folder):
    import torch
    from safetensors.torch import load_file, save_file
    weights = load_file(folder / "model.safetensors")
    save_file({k: v.to(torch.int32) for k, v in weights.items()}, folder / "model.safetensors",
              metadata={"format": "pt"})


def _drop_a_layer(folder):
    from safetensors.torch import load_file, save_file
    weights = load_file(folder / "model.safetensors")
    save_file({k: v for k, v in weights.items() if ".layers.0.mlp." not in k}, folder / "model.safetensors",
              metadata={"format": "pt"})


def _edit_config(folder, **changes):
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, **changes}))


@pytest.mark.parametrize("damage, words", [
    (_truncate, "damaged or truncated"),
    (_drop_a_layer, r"do not match its config.json \(missing: model.layers.0.mlp"),
    (lambda f: _edit_config(f, num_hidden_layers=3), "missing: model.layers.1"),
    (lambda f: _edit_config(f, intermediate_size=64), "of the wrong shape"),
    (lambda f: _edit_config(f, model_type="gpt2", architectures=["GPT2LMHeadModel"]), "do not match its config"),
    (_int_weights, "floating-point weights"),
    (lambda f: (f / "config.json").unlink(), "not a model folder"),
    (lambda f: [(f / n).unlink() for n in ("tokenizer.json", "tokenizer_config.json")], "not a tokenizer folder"),
    (lambda f: (f / "draft_vocab.json").write_text('{"keep_ids": "all"}'), "draft vocabulary"),
    (lambda f: (f / "config.json").write_text("{not json"), "could not load"),
])
def test_every_damaged_model_folder_is_one_load_error(tmp_path, damage, words):
    folder = _copy_model(tmp_path)
    damage(folder)
    with pytest.raises(specdec.LoadError, match=words):
        specdec.load_pair(str(folder), None)


def test_an_unknown_embedded_name_is_not_sent_to_the_hub():
    with pytest.raises(specdec.LoadError, match="no embedded model 'stdlib/target-xl'"):
        specdec.load_pair("stdlib/target-xl", None)


@pytest.mark.parametrize("prompt, words", [
    ("ab\udcffc", "the prompt is not valid text: character 3"),
    ([{"role": "user", "content": "\ud800x"}], "message 1 is not valid text: character 1"),
])
def test_text_that_is_not_unicode_is_one_message(pair, prompt, words):
    with pytest.raises(specdec.InputError, match=words):
        specdec.generate(pair, prompt, max_new_tokens=2)


@pytest.mark.parametrize("change, words", [
    (lambda d: d["vocab"].update({"5": 7}), "values must be token texts"),
    (lambda d: d["settings"].update(temperature=1e999), "not a number a run can hold"),
    (lambda d: d["prefill"].update(tokens=10**6), "the prefill reads at most the prompt"),
])
def test_a_replay_with_wrong_vocabulary_settings_or_prefill_is_refused(valid, change, words):
    data = copy.deepcopy(valid)
    change(data)
    with pytest.raises(TraceError, match=words):
        specdec.Run.from_json(json.dumps(data).replace("Infinity", "1e999"))


@pytest.mark.parametrize("path, value, words", [
    (["prompt"], "a" * 100_001, r"^run\.prompt: a text of 100001 characters; a run's texts are at most 100000 "
                                r"characters$"),
    (["rounds", 0, "positions", 0, "text"], "b" * 250_000, r"positions\[0\]\.text: a text of 250000 characters"),
    (["prompt_ids"], [1] * 2_000_000, r"^run\.prompt_ids: a list of 2000000 items; a run's lists hold at most "
                                      r"1000000$"),
])
def test_a_replay_past_a_limit_names_the_limit(valid, path, value, words):
    """Once `expected str, got text 'aaaa…'` and `expected a list, got a list`: true, and no help."""
    with pytest.raises(TraceError, match=words) as caught:
        specdec.Run.from_json(mutate(valid, path, value))
    assert "expected" not in str(caught.value)


@pytest.mark.parametrize("name, value, words", [
    ("k", 10**9, r"k \(draft length\) must be between 1 and 64, got 1000000000"),
    ("temperature", "hot", "temperature must be a finite number, got 'hot'"),
    ("top_p", 0.0, "top-p must be in"),
    ("drafter", "tree-of-life", "drafter must be one of"),
    ("seed", 1.5, "seed must be a whole number"),
    ("lean", 1, "lean must be one of"),
])
def test_a_replays_settings_meet_the_settings_rules(valid, name, value, words):
    """A replay's settings are checked by Settings' own rules and message, placed at run.settings."""
    with pytest.raises(TraceError, match=r"^run\.settings: " + words):
        specdec.Run.from_json(mutate(valid, ["settings", name], value))


def test_a_replays_models_and_missing_settings_still_load(valid):
    """A run records its models and backend beside the settings; an older file lacks newer settings."""
    data = copy.deepcopy(valid)
    assert {"target", "draft", "backend"} <= set(data["settings"])
    del data["settings"]["tree_children"], data["settings"]["lean"]
    data["settings"]["target"] = "someone/else"
    assert specdec.Run.from_json(json.dumps(data)).settings["target"] == "someone/else"
