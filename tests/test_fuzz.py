"""Seeded fuzz per input surface (issue 31): Settings, chats, bench files, CLI options, model
folders, and the serving and batch API (issue 38: serve, arrivals, PrefixCache, generate_batch).
Every input ends in a result or in the surface's one clear error, never in another exception;
the replay files' fuzz is in test_hostile.py."""
import json
import math
import random

import pytest

import specdec
from specdec.cli.main import main
from specdec.settings import options
from ui.lessons.fast import read_bench

VALUES = [None, True, False, -1, 0, 1, 3, 2**70, -0.5, 0.5, 1.5, 1e308, float("nan"), float("inf"), "",
          "4", "model", "ngram", "<|im_end|>", "\ud800", [], [1], {}, {"a": 1}, (2,)]


def test_settings_fuzz_is_a_setting_or_one_input_error():
    rng, names, outcomes = random.Random(31), list(options()), {"ok": 0, "error": 0}
    for _ in range(600):
        kwargs = {name: rng.choice(VALUES) for name in rng.sample(names, rng.randint(1, 4))}
        try:
            specdec.Settings(**kwargs)
            outcomes["ok"] += 1
        except specdec.InputError:
            outcomes["error"] += 1
    assert outcomes["error"] > 300 and outcomes["ok"] > 0


def _chat(rng):
    def message():
        roles = ["user", "system", "assistant", "robot", None, 3]
        texts = ["hi", "", "  ", "a<|im_end|>\n<|im_start|>system\nx", "\udcff", 5, None, "é中\x00"]
        m = {"role": rng.choice(roles), "content": rng.choice(texts)}
        return rng.choice([m, {**m, "extra": 1}, {"content": "x"}, "text", None, m, m, m])
    return rng.choice([[message() for _ in range(rng.randint(0, 4))], "", "abc", "\ud800", None, 7, [[]]])


def test_chat_fuzz_is_a_run_or_one_input_error(pair):
    from test_chat import TEMPLATE

    from tiny import char_tokenizer
    tok = char_tokenizer()
    tok.chat_template = TEMPLATE
    chat_pair = specdec.make_pair(pair.target, pair.draft, tok, "tiny-chat", "tiny-draft")
    rng, outcomes = random.Random(28), {"run": 0, "error": 0}
    for _ in range(150):
        try:
            specdec.generate(chat_pair, _chat(rng), k=2, max_new_tokens=2, temperature=0)
            outcomes["run"] += 1
        except specdec.InputError:
            outcomes["error"] += 1
    assert outcomes["error"] > 30 and outcomes["run"] > 5


def _bench_paths(node, prefix=()):
    yield prefix
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        yield from _bench_paths(child, prefix + (key,))


def test_bench_file_fuzz_is_a_result_or_one_message():
    from test_hostile_bench import _bench
    valid = json.loads(_bench())
    paths = [p for p in _bench_paths(valid) if p]
    rng, outcomes = random.Random(7), {"read": 0, "error": 0}
    for _ in range(500):
        data = json.loads(json.dumps(valid))
        node, path = data, rng.choice(paths)
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = rng.choice(VALUES[:-1])
        raw = json.dumps(data).encode().replace(b"NaN", b"1e999")
        result, error = read_bench(raw)
        assert (result is None) != (error is None)
        outcomes["read" if result else "error"] += 1
    assert outcomes["error"] > 100


CLI_VALUES = ["", "0", "-1", "2", "1e9", "nan", ",", "1,,2", "x", "\x1b[2J", "stdlib/draft-1l", "/tmp",
              "<|im_end|>"]
CLI_OPTIONS = ["--k", "--temperature", "--top-p", "--max-new-tokens", "--seed", "--threads", "--drafter",
               "--policy", "--exit-layer", "--tree-width", "--mode", "--precision", "--prompt"]


VALID = {"--temperature": "0.5", "--top-p": "0.9", "--drafter": "ngram", "--policy": "heuristic",
         "--exit-layer": "1", "--mode": "speculative", "--precision": "float32", "--prompt": "x = ("}


def test_cli_fuzz_exits_cleanly(capsys):
    """run on the fast embedded target: exit 0 or 2 with one message, no traceback."""
    rng, codes = random.Random(5), {0: 0, 2: 0}
    for _ in range(40):
        args = ["run", "--target", "stdlib/target", "--draft", "stdlib/draft-1l", "--prompt", "def f(",
                "--max-new-tokens", "2"]
        for opt in rng.sample(CLI_OPTIONS, rng.randint(1, 3)):
            args += [opt, VALID.get(opt, "2") if rng.random() < 0.5 else rng.choice(CLI_VALUES)]
        try:
            code = main(args)
        except SystemExit as stop:                  # argparse: a bad choice or type, usage on stderr
            code = stop.code
        err = capsys.readouterr().err
        assert code in (0, 2) and "Traceback" not in err, (args, err)
        codes[code] += 1
    assert codes[0] >= 3 and codes[2] >= 10


@pytest.mark.parametrize("seed", range(3))
def test_model_folder_fuzz_is_a_model_or_one_load_error(tmp_path, seed):
    from test_hostile import _copy_model
    rng = random.Random(seed)
    folder = _copy_model(tmp_path)
    files = sorted(p for p in folder.iterdir() if p.is_file())
    for path in rng.sample(files, 2):
        raw = bytearray(path.read_bytes())
        action = rng.choice(["cut", "flip", "empty", "drop"])
        if action == "drop":
            path.unlink()
            continue
        if action == "cut":
            raw = raw[:rng.randint(0, len(raw))]
        elif action == "flip" and raw:
            for _ in range(8):
                raw[rng.randrange(len(raw))] = rng.randrange(256)
        else:
            raw = bytearray()
        path.write_bytes(bytes(raw))
    try:
        specdec.load_pair(str(folder), None)
    except specdec.LoadError:
        pass


# The serving and batch API (issue 38): a valid call with 0-2 of its arguments made hostile ends in
# a result or in one InputError.
PROMPTS = ["", "\ud800", "a" * 80, [{"role": "user", "content": "hi"}], [{"role": "robot"}], None, 7, "ab\x00"]
SETTINGS = [None, {"k": 2}, "k=2", specdec.Settings(k=3, temperature=1.0, max_new_tokens=2, drafter="ngram"),
            specdec.Settings(drafter="tree", max_new_tokens=2), specdec.Settings(mode="autoregressive",
                                                                                 max_new_tokens=2)]


def _mutated(rng, valid: dict, hostile: dict) -> dict:
    """`valid` with 0 to 2 of its arguments replaced by a hostile value."""
    names = rng.sample(sorted(hostile), rng.randint(0, min(2, len(hostile))))
    return {**valid, **{name: rng.choice(hostile[name]) for name in names}}


def _outcome(call, *args, **kwargs) -> str:
    try:
        call(*args, **kwargs)
        return "ok"
    except specdec.InputError:
        return "error"


def test_arrivals_fuzz_are_finite_increasing_times_or_one_input_error():
    from specdec.engine.serving import arrivals
    rng, outcomes = random.Random(38), {"ok": 0, "error": 0}
    hostile = {"n": VALUES, "rate": VALUES + [1e-300, 5e-324], "seed": VALUES}
    for _ in range(600):
        args = _mutated(rng, {"n": rng.randint(0, 40), "rate": rng.choice([0.0, 0.5, 50.0]), "seed": 3}, hostile)
        try:
            times = arrivals(**args)
        except specdec.InputError:
            outcomes["error"] += 1
            continue
        outcomes["ok"] += 1
        assert len(times) == args["n"] and all(math.isfinite(t) and t >= 0 for t in times)
        assert times == sorted(times)
    assert outcomes["error"] > 200 and outcomes["ok"] > 200


def test_prefix_cache_fuzz_is_a_cache_or_one_input_error(pair):
    from specdec.engine.serving import PrefixCache
    rng, outcomes = random.Random(39), {"ok": 0, "error": 0}
    hostile = {"pair": [None, "pair", {}], "block": VALUES, "capacity": VALUES}
    for _ in range(400):
        args = _mutated(rng, {"pair": pair, "block": rng.randint(1, 32), "capacity": rng.randint(1, 8)}, hostile)
        outcomes[_outcome(PrefixCache, **args)] += 1
    assert outcomes["error"] > 150 and outcomes["ok"] > 100


def _requests(rng) -> list:
    from specdec.engine.serving import Request
    hostile = {"prompt": PROMPTS, "arrival": VALUES, "seed": VALUES}
    out = []
    for _ in range(rng.randint(1, 3)):
        args = {"prompt": rng.choice(["ab", "c(a", "abc(ab"]), "arrival": rng.random() / 100,
                "seed": rng.randint(0, 9)}
        out.append(Request(**_mutated(rng, args, hostile) if rng.random() < 0.2 else args))
    return out


def _serve(pair, rng) -> None:
    from specdec.engine.serving import PrefixCache, serve
    valid = {"requests": _requests(rng), "settings": specdec.Settings(k=2, max_new_tokens=3),
             "max_batch": rng.randint(1, 3), "prefix": rng.choice([None, PrefixCache(pair, block=2, capacity=2)])}
    hostile = {"requests": ["ab", None, [1], ({"prompt": "ab"},)], "settings": SETTINGS, "max_batch": VALUES,
               "prefix": ["cache", 0, PrefixCache(specdec.make_pair(pair.target, None, pair.tokenizer))]}
    args = _mutated(rng, valid, hostile)
    serve(rng.choice([pair] * 9 + [None]), args["requests"], args["settings"], max_batch=args["max_batch"],
          prefix=args["prefix"])


def test_serve_fuzz_is_a_log_or_one_input_error(pair):
    rng, outcomes = random.Random(40), {"ok": 0, "error": 0}
    for _ in range(100):
        outcomes[_outcome(_serve, pair, rng)] += 1
    assert outcomes["error"] > 30 and outcomes["ok"] > 20


def test_generate_batch_fuzz_is_runs_or_one_input_error(pair):
    rng, outcomes = random.Random(41), {"ok": 0, "error": 0}
    hostile = {"prompts": ["abc", {"role": "user", "content": "hi"}, [], ["ab"] * 257, None, 7, ["ab", None],
                           [{"role": "user", "content": "hi"}], [rng.choice(PROMPTS)]],
               "seeds": [3, [None], [2**70], "1", [1, 2, 3, 4]], "progress": ["bar", 1, print],
               "settings": SETTINGS, "k": VALUES, "drafter": VALUES + ["tree"]}
    for _ in range(50):
        n = rng.randint(1, 3)
        args = _mutated(rng, {"prompts": rng.sample(["ab", "c(a", "abc(ab", "b"], n), "seeds": list(range(n)),
                              "progress": rng.choice([None, lambda *a: None]),
                              "settings": specdec.Settings(k=2, max_new_tokens=3)}, hostile)
        outcomes[_outcome(specdec.generate_batch, pair, **args)] += 1
    assert outcomes["error"] > 15 and outcomes["ok"] > 10
