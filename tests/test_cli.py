"""The CLI on tiny models saved to a directory (this also exercises local-dir loading)."""
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from specdec.cli.main import main

from tiny import char_tokenizer, tiny_llama

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def model_dirs(tmp_path_factory):
    base = tmp_path_factory.mktemp("models")
    tok = char_tokenizer()
    dirs = {}
    for name, layers, seed in (("target", 2, 1), ("draft", 1, 2)):
        dirs[name] = base / name
        tiny_llama(len(tok), layers, seed).save_pretrained(dirs[name])
        tok.save_pretrained(dirs[name])
    other = base / "other"
    tiny_llama(4, 1, 3).save_pretrained(other)
    char_tokenizer("abc").save_pretrained(other)
    dirs["other"] = other
    return dirs


@pytest.fixture
def cli(capsys):
    """`python -m specdec ARGS` in this process (main() is the entry point's only code)."""
    def run(*args: str) -> SimpleNamespace:
        code = main(list(args))
        captured = capsys.readouterr()
        return SimpleNamespace(returncode=code, stdout=captured.out, stderr=captured.err)
    return run


def test_the_module_entry_point_runs(model_dirs):
    """One real subprocess: `python -m specdec` is wired to main()."""
    out = subprocess.run([sys.executable, "-m", "specdec", "run", "--prompt", "abc", "--target",
                          str(model_dirs["target"]), "--draft", str(model_dirs["draft"]),
                          "--max-new-tokens", "8"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, env={"HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1",
                                           "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("abc") and "\033[" not in out.stdout   # piped: plain


def test_run_prints_marked_text_and_metrics(model_dirs, cli):
    out = cli("run", "--prompt", "abc", "--target", str(model_dirs["target"]),
              "--draft", str(model_dirs["draft"]), "--k", "3", "--max-new-tokens", "20")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("abc") and "\033[" not in out.stdout   # piped: plain
    assert "acceptance rate" in out.stdout and "tokens a round (L, mean acceptance length)" in out.stdout
    assert "legend:" in out.stdout


def test_run_json_is_the_whole_trace(model_dirs, cli):
    out = cli("run", "--prompt", "abc", "--target", str(model_dirs["target"]),
              "--draft", str(model_dirs["draft"]), "--max-new-tokens", "12", "--json",
              "--temperature", "0")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert len(data["token_ids"]) <= 12 and data["rounds"] and "metrics" in data
    assert data["rounds"][0]["positions"][0]["target"]["probs"]


@pytest.mark.parametrize("args, words", [
    (["--prompt", ""], "prompt is empty"),
    (["--prompt", "a", "--k", "0"], "draft length"),
    (["--prompt", "a", "--temperature", "-1"], "temperature"),
    (["--prompt", "a", "--top-p", "0"], "top-p"),
    (["--prompt", "a" * 100], "accept at most 64"),
    (["--prompt", "a", "--target", "./missing/dir"], "no such directory"),
    (["--prompt", "a", "--chat"], "no chat template"),
    (["--prompt", "a", "--drafter", "early-exit", "--exit-layer", "9"], "exit layer"),
])
def test_bad_input_is_a_message_not_a_traceback(model_dirs, args, words, cli):
    base = ["--target", str(model_dirs["target"])]
    base += [] if "--drafter" in args else ["--draft", str(model_dirs["draft"])]   # early exit: no draft
    out = cli("run", *base, *args)
    assert out.returncode == 2
    assert words in out.stderr and "Traceback" not in out.stderr


def test_vocabulary_mismatch_in_the_cli(model_dirs, cli):
    out = cli("run", "--prompt", "a", "--target", str(model_dirs["target"]),
              "--draft", str(model_dirs["other"]))
    assert out.returncode == 2 and "vocabulary sizes differ" in out.stderr
    assert "draft across vocabularies with cross-vocab" in out.stderr and "Traceback" not in out.stderr
    out = cli("run", "--prompt", "abc", "--target", str(model_dirs["target"]), "--draft", str(model_dirs["other"]),
              "--drafter", "cross-vocab", "--k", "3", "--max-new-tokens", "8", "--json")
    assert out.returncode == 0, out.stderr
    run = json.loads(out.stdout)
    drafted = [pos["token"] for r in run["rounds"] for pos in r["positions"]]
    assert drafted and set(drafted) <= set(char_tokenizer()("abc", add_special_tokens=False)["input_ids"])


def test_early_exit_drafter_needs_no_draft_model(model_dirs, cli):
    args = ("run", "--prompt", "abc", "--target", str(model_dirs["target"]), "--drafter", "early-exit",
            "--exit-layer", "1", "--max-new-tokens", "6")
    out = cli(*args)
    assert out.returncode == 0, out.stderr
    assert "acceptance rate" in out.stdout
    out = cli(*args, "--draft", "./not/loaded")                  # would be ignored: one message
    assert out.returncode == 2 and "would have no effect: drop --draft" in out.stderr


def test_bench_drafts_by_early_exit_without_a_draft_model(model_dirs, cli):
    common = ("bench", "--target", str(model_dirs["target"]), "--limit", "1", "--k", "2",
              "--temperature", "0", "--max-new-tokens", "4", "--repeats", "1",
              "--drafter", "early-exit")
    out = cli(*common, "--exit-layer", "1")
    assert out.returncode == 0, out.stderr
    assert "transformers assisted = assistant_early_exit = 1" in out.stdout
    out = cli(*common, "--exit-layer", "9")
    assert out.returncode == 2 and "exit layer must be between 1 and" in out.stderr
    assert "Traceback" not in out.stderr


def test_bench_bad_input_is_a_message(cli):
    out = cli("bench", "--k", "two")
    assert out.returncode == 2 and "comma-separated" in out.stderr and "Traceback" not in out.stderr
    out = cli("bench", "--prompts", "no-such-kind")
    assert out.returncode == 2 and "must be a kind" in out.stderr


def test_bench_prints_the_table_and_saves_json(model_dirs, tmp_path, cli):
    (tmp_path / "prompts.txt").write_text("abc\n\n(a b\nhhh\n")        # a file of lines
    out = cli("bench", "--target", str(model_dirs["target"]), "--draft", str(model_dirs["draft"]),
              "--prompts", str(tmp_path / "prompts.txt"), "--limit", "2", "--k", "2", "--temperature", "0",
              "--max-new-tokens", "4", "--repeats", "1", "--out", str(tmp_path / "b" / "bench.json"))
    assert out.returncode == 0, out.stderr
    assert "T = 0.0, k = 2, v = " in out.stdout and "engine speculative" in out.stdout
    saved = json.loads((tmp_path / "b" / "bench.json").read_text())
    assert saved["prompts"] == 2 and [s["k"] for s in saved["settings"]] == [2]


def test_device_map_auto_places_the_pair_through_accelerate(model_dirs, monkeypatch):
    """load_pair passes device_map to transformers / accelerate unchanged (here everything
    lands on the CPU) and the output is the same as a plain load."""
    import transformers

    import specdec
    seen, original = [], transformers.AutoModelForCausalLM.from_pretrained.__func__

    def spy(cls, *args, **kwargs):
        seen.append(kwargs.get("device_map"))
        return original(cls, *args, **kwargs)
    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", classmethod(spy))
    placed = specdec.load_pair(str(model_dirs["target"]), str(model_dirs["draft"]),
                               device_map="auto")
    assert seen == ["auto", "auto"] and placed.device.type == "cpu"
    monkeypatch.undo()
    plain = specdec.load_pair(str(model_dirs["target"]), str(model_dirs["draft"]))
    settings = specdec.Settings(k=3, temperature=0.8, seed=4, max_new_tokens=12)
    assert (specdec.generate(placed, "abc", settings).token_ids
            == specdec.generate(plain, "abc", settings).token_ids)


def test_run_flags_are_generated_from_settings_and_bench_lengths_from_the_table():
    """docs/architecture.md: every setting gets its flag from its Option (lean says it has none);
    the bench's default length is the table's (specdec/settings.LENGTHS)."""
    import argparse

    from specdec.cli.main import BENCH_DRAFTERS, add_bench_parser, add_run_parser
    from specdec.drafters.registry import DRAFTERS
    from specdec.settings import LENGTHS, Settings, options
    sub = argparse.ArgumentParser().add_subparsers(dest="command")
    add_run_parser(sub)
    add_bench_parser(sub)
    run = sub.choices["run"].parse_args(["--prompt", "x"])
    flagged = {name for name, (_default, opt) in options().items() if opt.flag}
    assert flagged == set(options()) - {"lean"}
    assert {name: getattr(run, name) for name in flagged} == {n: getattr(Settings(), n) for n in flagged}
    assert not hasattr(run, "lean")
    assert sub.choices["bench"].parse_args([]).max_new_tokens == LENGTHS.bench
    assert BENCH_DRAFTERS == tuple(n for n, d in DRAFTERS.items() if d.hf_assistant) == (
        "model", "ngram", "early-exit", "cross-vocab")


def test_k_has_one_ceiling():
    """Settings' limit, its message and the heuristic policy's ceiling are one number."""
    from specdec.drafters.policies import Heuristic
    from specdec.settings import K_MAX, Settings, options
    assert options()["k"][1].high == K_MAX and "between 1 and {high}," in options()["k"][1].error   # the limit's own
    with pytest.raises(Exception, match=f"between 1 and {K_MAX}"):
        Settings(k=K_MAX + 1)
    policy = Heuristic(K_MAX - 1)
    policy.update(3, 3)
    assert policy.next_k() == K_MAX


def test_odd_output_and_names_are_one_message_each(model_dirs, cli, tmp_path):
    """Issue 48 item 10: a 5,000-character name, an --out under a file, a full output device,
    a terminal that cannot show the prompt's characters."""
    long = cli("run", "--prompt", "abc", "--target", "x" * 5000)
    assert long.returncode == 2 and "5,000 characters long" in long.stderr and "Traceback" not in long.stderr
    (tmp_path / "file").write_text("x")
    out = cli("bench", "--target", str(model_dirs["target"]), "--draft", str(model_dirs["draft"]),
              "--out", str(tmp_path / "file" / "x.json"))
    assert out.returncode == 2 and "cannot be written" in out.stderr and "Traceback" not in out.stderr
    base = [sys.executable, "-m", "specdec", "run", "--target", str(model_dirs["target"]), "--draft",
            str(model_dirs["draft"]), "--max-new-tokens", "4"]
    env = {"HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"}
    with open("/dev/full", "w") as full:
        done = subprocess.run(base + ["--prompt", "abc"], cwd=ROOT, stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=120, env=env)
    assert done.returncode == 1 and "could not write the output" in done.stderr and "Traceback" not in done.stderr
    ascii_only = subprocess.run(base + ["--prompt", "abc café"], cwd=ROOT, capture_output=True, timeout=120,
                                env={**env, "PYTHONIOENCODING": "ascii"})
    assert ascii_only.returncode == 0, ascii_only.stderr[-500:]
    assert b"Traceback" not in ascii_only.stderr and b"caf\\xe9" in ascii_only.stdout
