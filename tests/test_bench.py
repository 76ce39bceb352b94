"""The benchmark end to end on tiny config-built models, and its greedy-identity check."""
from dataclasses import replace
from types import SimpleNamespace

import pytest

from specdec.bench.greedy import greedy_mismatches
from specdec.bench.measure import v_paid, verify_cost_in_run
from specdec.bench.record import Bench, Mismatch, Row, RowKind, Setting
from specdec.bench.runner import (
    DEFAULTS,
    LIBRARY_DRAFTING,
    PEERS,
    ROWS,
    USER_LOADED,
    bench,
)
from specdec.cli.terminal import table
from specdec.prompts import KINDS, load_prompts, round_robin, select
from specdec.records import codec
from specdec.settings import Settings
from ui.figures.fast import bench_figure
from ui.lessons.fast import read_bench

from tiny import tiny_pair


@pytest.fixture(scope="module")
def result():
    return bench(tiny_pair(), ["abc", "(a b", "hhh"], ks=[2], temps=[0.0, 1.0], max_new=8, repeats=1)


def test_bench_runs_and_reports_every_field(result):
    assert Bench.from_json(result.to_json()) == result      # machine-readable as a whole, typed back
    assert result.c >= 0 and result.draft_step_ms > 0 and result.target_step_ms > 0
    assert [(s.k, s.temperature) for s in result.settings] == [(2, 0.0), (2, 1.0)]
    assert result.skipped_rows == (USER_LOADED, *PEERS)   # built in memory: no name, no GGUF
    assert "is not a local folder or GGUF file" in result.skipped_why
    for s in result.settings:
        assert [r.row for r in s.rows] == [r for r in ROWS if r not in (USER_LOADED, *PEERS)]
        assert s.baseline == RowKind.AR
        for r in s.rows:
            assert r.tokens_per_s > 0 and r.target_forwards_per_token > 0
        spec = s.row(RowKind.SPEC)
        assert 0 <= spec.acceptance_rate <= 1 and spec.bound > 0
        assert s.verify_cost > 0 and s.verify_cost_alone > 0 and spec.bound_with_verify > 0
        # a costlier verification pass can only lower the bound, a cheaper one only raise it
        assert (spec.bound_with_verify <= spec.bound) == (s.verify_cost >= 1)
        assert 0 < s.ceiling <= 1 or s.verify_cost < 1
        assert s.row(RowKind.AR).speedup == 1.0
        library = s.row(RowKind.SPEC_DEFAULTS)          # the engine with the library's drafting
        assert 0 <= library.acceptance_rate <= 1 and library.bound is None
    greedy = result.settings[0]
    assert greedy.identical is True, greedy.mismatches   # tiny models: no near-ties
    assert f"greedy outputs of {len(ROWS) - 3} rows identical on every prompt: yes" in table(result)
    assert f"v = {greedy.verify_cost:.2f}" in table(result)


def test_n_gram_lookup_is_benched_against_transformers_prompt_lookup():
    result = bench(tiny_pair(), ["abab ab", "(a b (a"], [3], [0.0], 8, 1,
                   drafting=Settings(drafter="ngram"))
    s = result.settings[0]
    assert [r.row for r in s.rows] == [r for r in ROWS if r not in DEFAULTS + (USER_LOADED, *PEERS)]
    assert result.skipped_rows == (*DEFAULTS, USER_LOADED, *PEERS) and "no default draft length" in table(result)
    assert "prompt_lookup_num_tokens = k, max_matching_ngram_size = 3" in table(result)
    assert result.c == 0.0 and s.identical is True, s.mismatches
    draftless = replace(result, draft=None)              # the CLI loads no draft model for n-gram
    assert read_bench(draftless.to_json().encode())[1] is None   # the fast page shows it


def test_early_exit_is_benched_against_transformers_early_exit():
    """transformers drafts with the target itself cut to its first layers: those calls are
    drafts, not target passes. With the same greedy drafts and k both count the same passes."""
    result = bench(tiny_pair(), ["abc", "(a b"], [2], [0.0], 8, 1,
                   drafting=Settings(drafter="early-exit", exit_layer=1))
    s = result.settings[0]
    assert [r.row for r in s.rows] == [r for r in ROWS if r not in (USER_LOADED, *PEERS)] and s.identical is True, \
        s.mismatches
    assert result.library_drafting == "assistant_early_exit = 1" and result.c > 0   # c is a timing
    passes = s.row(RowKind.ASSISTED_K).target_forwards_per_token
    assert passes == s.row(RowKind.SPEC).target_forwards_per_token < 1


def test_verification_price_is_read_from_the_runs_own_rounds():
    def rnd(index, drafted, ms):
        return SimpleNamespace(index=index, drafted=drafted, verify_ms=ms)
    # the first round of a run also feeds the prompt; rounds that drafted fewer than k are other passes
    spec = [rnd(0, 2, 50.0), rnd(1, 2, 13.0), rnd(2, 2, 15.0), rnd(3, 2, 14.0), rnd(4, 1, 99.0)]
    base = [rnd(0, 0, 40.0), rnd(1, 0, 10.0), rnd(2, 0, 11.0), rnd(3, 0, 10.0)]
    assert verify_cost_in_run(spec, base, 2) == pytest.approx(14.0 / 10.0)
    assert verify_cost_in_run(spec, base, 4) is None          # no 5-token pass in these rounds
    # over repeats, the median of each repeat's against the plain one beside it (a cold first repeat: one of three)
    cold = [rnd(0, 0, 40.0), rnd(1, 0, 15.0), rnd(2, 0, 16.0)]
    repeats = [SimpleNamespace(rounds=r) for r in (spec, spec, spec)], \
        [SimpleNamespace(rounds=r) for r in (cold, base, base)]
    assert v_paid(*repeats, 2) == pytest.approx(14.0 / 10.0) and v_paid(*repeats, 4) is None


def test_library_drafting_row_mirrors_transformers_defaults():
    from transformers import GenerationConfig
    defaults = GenerationConfig._get_default_generation_params()
    assert LIBRARY_DRAFTING == {"k": defaults["num_assistant_tokens"], "policy": "confidence",
                                "confidence": defaults["assistant_confidence_threshold"]}
    assert defaults["num_assistant_tokens_schedule"] == "constant"


def test_repeats_are_interleaved_across_rows():
    labels = []
    out = bench(tiny_pair(), ["abc"], ks=[1, 2], temps=[1.0], max_new=4, repeats=2,
                progress=lambda done, total, label: labels.append(label))
    runs = [label for label in labels if "repeat" in label]
    assert len(runs) == 2 * (4 + 2 * 2)                     # 4 k-free rows + 2 rows per k (no user load)
    first_second = next(i for i, label in enumerate(runs) if "repeat 2" in label)
    assert first_second == len(runs) // 2                   # every row ran once before any reran
    assert all(len(r.seconds) == 2 for s in out.settings for r in s.rows)


def test_the_fast_page_reads_bench_json(result, tmp_path):
    assert read_bench(result.to_json().encode()) == (result, None)
    assert read_bench(None, default=tmp_path / "none.json") == (None, None)
    for bad in (b"not json", b"{}", b"[1, 2]", b'{"settings": [{"k": 2}]}'):
        found, error = read_bench(bad)
        assert found is None and "python -m specdec bench --json" in error
    assert sum(len(s.rows) for s in result.settings) == 2 * (len(ROWS) - 3)
    assert {s.temperature for s in result.settings} == {0.0, 1.0}
    setting = next(s for s in result.settings if s.temperature == 1.0)
    spec = setting.row(RowKind.SPEC)
    fig = bench_figure(result, 1.0)
    assert [t.name for t in fig.data][:4] == ["Theorem 3.8 bound", "bound at the measured verification "
                                              "cost", "whole runs predicted from what they paid",
                                              "engine speculative"]
    assert spec.predicted_run > 0 and list(fig.data[2].y) == [spec.predicted_run] * 2   # one k: a segment
    assert spec.measured_over_predicted_run == pytest.approx(spec.speedup_vs_engine_ar / spec.predicted_run)
    assert list(fig.data[3].y) == [spec.speedup]
    # one k: each bound a level segment around it, so the lines the caption compares are drawn
    assert list(fig.data[0].y) == [spec.bound] * 2 and list(fig.data[1].y) == [spec.bound_with_verify] * 2
    assert list(fig.data[0].x) == [setting.k - 0.3, setting.k + 0.3]
    fewer = replace(result, settings=tuple(replace(s, rows=tuple(r for r in s.rows if r.row != ROWS[5]))
                                           for s in result.settings))          # a bench without row 6
    assert len(bench_figure(fewer, 1.0).data) == len(fig.data) - 1
    # two charts side by side: the title starts with its T and sits below the toolbar's icons (top 30 px)
    title = fig.layout.title
    assert title.text.startswith("T = 1: ") and title.yref == "container" and title.yanchor == "top"
    assert (1 - title.y) * fig.layout.height >= 30 and fig.layout.margin.t >= 80


def test_retrained_weights_invalidate_cached_lesson_results(tmp_path, monkeypatch):
    from ui.lessons import result_cache
    monkeypatch.setattr(result_cache, "ASSETS", tmp_path)
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path / "results")
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "model.safetensors").write_bytes(b"old")
    from specdec.bench.points import TempPoint, TempSweep
    from specdec.records.provenance import Provenance
    sweep = TempSweep((TempPoint(temperature=0.5, alpha=0.4, acceptance_rate=0.3, mean_acceptance_length=1.5),),
                      Provenance(cpu="a CPU"))
    result_cache.save("temps", {"k": 1}, sweep)
    assert result_cache.load("temps", {"k": 1}, TempSweep) == sweep          # kept while nothing changes
    (tmp_path / "m" / "model.safetensors").write_bytes(b"retrained")
    assert result_cache.load("temps", {"k": 1}, TempSweep) is None


def test_greedy_identity_check_fails_on_different_outputs():
    same = {"a": [[1, 2, 3]], "b": [[1, 2, 3]]}
    assert greedy_mismatches(same) == []
    diff = {"a": [[1, 2, 3], [4]], "b": [[1, 9, 3], [4]]}
    assert greedy_mismatches(diff) == [Mismatch(prompt=0, row="b", reference="a", position=1)]
    shorter = {"a": [[1, 2, 3]], "b": [[1, 2]]}
    assert greedy_mismatches(shorter)[0].position == 2


def test_prompt_set_has_kinds_and_selection():
    prompts = load_prompts()
    assert len(prompts) >= 40 and {p.kind for p in prompts} == set(KINDS)
    assert all(p.kind in KINDS and p.label and p.prompt for p in prompts)
    assert [p.kind for p in round_robin(prompts, 5)] == list(KINDS)
    assert len(select("repetitive", 3)) == 3


def test_transformers_as_a_user_loads_it_is_a_row_and_the_faster_baseline(tiny_dirs, monkeypatch, capsys):
    """A target loaded by name also runs through transformers alone (from_pretrained, nothing of
    the engine's); speedups are against the faster of that row and the engine's own; --strict
    fails when the user's load beats the engine by more than 5 %."""
    import specdec
    from specdec.bench import runner
    from specdec.cli.main import main
    pair = specdec.load_pair(str(tiny_dirs / "target"), str(tiny_dirs / "draft"))
    real = runner.measure_once

    def slow_engine(row, pair, prompts, settings, lengths=None):   # the engine's plain row made 10x slower
        t = real(row, pair, prompts, settings, lengths)
        slow = replace(t, seconds=10 * t.seconds, cpu_seconds=10 * t.cpu_seconds)           # on both clocks
        return slow if row == RowKind.AR else t
    monkeypatch.setattr(runner, "measure_once", slow_engine)
    result = bench(pair, ["abc", "(a b"], [2], [0.0], 8, 1)
    s = result.settings[0]
    assert s.row(USER_LOADED) and result.skipped_rows == PEERS
    assert s.baseline == USER_LOADED and s.engine_slower_than_user_load is True
    assert s.row(USER_LOADED).speedup == 1.0 and s.row(RowKind.AR).speedup < 1.0
    assert s.identical is True, s.mismatches           # float32 both: the same model
    assert "faster baseline: transformers generate (as a user loads it)" in table(result)
    monkeypatch.setattr(runner, "bench", lambda *a, **k: result)
    argv = ["bench", "--target", str(tiny_dirs / "target"), "--draft", str(tiny_dirs / "draft"),
            "--k", "2", "--temperature", "0", "--repeats", "1", "--max-new-tokens", "8"]
    assert main(argv) == 0                                   # reported, not fatal
    assert main(argv + ["--strict"]) == 1
    assert "beat the engine's autoregressive row by more than 5%" in capsys.readouterr().err


def test_llama_cpp_rows_run_on_a_gguf_target_and_are_counted_not_compared(tmp_path, monkeypatch):
    """With llama.cpp present (faked here: CI does not build it) a GGUF target gets its two rows:
    the same prompts and settings reach llama.cpp, prompt lookup gets k, tokens are counted,
    and the rows stay out of the token-for-token comparison (llama.cpp returns text)."""
    import specdec
    from specdec.bench import peers

    from tiny_gguf import write_tiny_gguf
    monkeypatch.setenv("SPECDEC_CACHE", str(tmp_path / "cache"))
    path = write_tiny_gguf(tmp_path / "t.gguf")
    pair = specdec.load_pair(str(path), None)
    calls = []

    def fake(gguf, prompt, settings, seed, threads, lookup_k=None):
        calls.append((gguf, prompt, settings.max_new_tokens, settings.temperature, lookup_k, threads))
        from specdec.bench.clock import Lap
        return settings.max_new_tokens, Lap(0.01, 0.01)
    monkeypatch.setattr(peers, "why_not", lambda gguf: None if gguf == path.resolve() else "no gguf")
    monkeypatch.setattr(peers, "generate", fake)
    result = bench(pair, ["the", "he t"], [3], [0.0], 6, 1, drafting=Settings(drafter="ngram"))
    s = result.settings[0]
    assert set(PEERS) <= {r.row for r in s.rows} and not set(PEERS) & set(result.skipped_rows)
    assert s.row(PEERS[0]).tokens == 12 and s.row(PEERS[0]).target_forwards_per_token is None
    assert {c[4] for c in calls} == {None, 3} and {c[1] for c in calls} == {"the", "he t"}
    assert {(c[2], c[3], c[5]) for c in calls} == {(6, 0.0, 1)}
    assert set(PEERS) <= set(s.not_compared) and "llama.cpp returns text" in table(result)


def test_without_llama_cpp_its_rows_say_how_to_install_it(monkeypatch):
    from pathlib import Path

    from specdec.bench import peers
    monkeypatch.setattr(peers.importlib.util, "find_spec", lambda name: None)
    assert "make peers" in peers.why_not(Path("x.gguf"))


def test_the_fast_page_says_how_speculation_compares_with_the_fastest_plain_ways():
    """Computed from the file's rows: medians with their range over repeats, the baseline the
    file names (only a known one: a file's text is not trusted), and llama.cpp when present."""
    from ui.lessons.bench_lines import baseline_row

    def row(name, tokens, seconds, speedup=None):
        return Row(name, tokens / sorted(seconds)[len(seconds) // 2], tokens, tuple(seconds), speedup=speedup)
    setting = Setting(4, 0.0, (row("engine autoregressive", 96, [4.0, 4.8]),
                               row("engine speculative", 96, [3.0, 3.2], speedup=1.25),
                               row("transformers generate (as a user loads it)", 96, [3.6, 4.0]),
                               row("llama.cpp generate", 96, [2.0, 2.4])),
                      baseline="transformers generate (as a user loads it)")
    got = baseline_row(setting)
    # 96 tokens in 3.2 s (the median of two: the upper) = 30.0, the faster repeat 32.0
    assert got["T"] == "0" and got["k"] == 4 and got["speculative"] == "30.0 (30.0–32.0)"
    assert got["speedup"] == "1.25×" and got["the target alone"] == "24.0 (24.0–26.7)"
    assert got["fastest way"] == "transformers generate (as a user loads it)"
    assert got["llama.cpp"] == "40.0" and "llama.cpp lookup" not in got
    hostile = replace(setting, baseline="![x](http://host/leak.png)")
    assert (baseline_row(hostile)["fastest way"], baseline_row(hostile)["the target alone"]) == (
        "engine, target alone",
                                                                                    "20.0 (20.0–24.0)")


def test_a_llama_cpp_that_crashes_is_a_skipped_row_not_a_dead_bench(monkeypatch):
    """A build for another CPU dies with SIGILL: probed in a child process, it becomes a reason."""
    from pathlib import Path

    from specdec.bench import peers
    monkeypatch.setattr(peers.importlib.util, "find_spec", lambda name: object())
    monkeypatch.setattr(peers, "PROBE", "import os, signal; os.kill(os.getpid(), signal.SIGILL)")
    peers._crashes.cache_clear()
    assert "crashed on this CPU (signal SIGILL)" in peers.why_not(Path("x.gguf"))
    monkeypatch.setattr(peers, "PROBE", "pass")
    peers._crashes.cache_clear()
    assert peers.why_not(Path("x.gguf")) is None


def test_the_batch_sweep_adds_rows_per_batch_size(tiny_dirs, monkeypatch, capsys):
    """--batch 1,4: per size an autoregressive and a speculative row (tokens/s of the batch,
    latency, target passes per token, the pass's price and rows), the speculative one with its
    speedup at the same size; the crossover is the smallest losing size; bad sizes are refused."""

    from specdec.bench import runner
    from specdec.bench.batching import crossover
    from specdec.cli.main import main
    monkeypatch.setattr(runner, "bench", lambda *a, **k: Bench("t", "d", 2, 8, 1, 0.1, (), draft_step_ms=1.0,
                                                                target_step_ms=9.0))
    argv = ["bench", "--target", str(tiny_dirs / "target"), "--draft", str(tiny_dirs / "target"), "--k", "3",
            "--temperature", "0", "--repeats", "1", "--max-new-tokens", "8", "--limit", "2"]
    assert main(argv + ["--batch", "1,4", "--json"]) == 0           # the target drafts for itself: all accepted
    sweep = codec.from_json(Bench, capsys.readouterr().out).batch[0]     # typed (a bench without settings)
    rows = {(r.batch, r.mode): r for r in sweep.rows}
    assert set(rows) == {(b, m) for b in (1, 4) for m in ("autoregressive", "speculative")}
    for b in (1, 4):
        base, spec = rows[b, "autoregressive"], rows[b, "speculative"]
        assert base.tokens == spec.tokens == 8 * 4                            # the same 4 requests at every size
        assert base.passes == 8 * 4 / b                                       # B requests a pass
        assert spec.forwards_per_token < base.forwards_per_token              # drafts accepted: fewer passes
        assert spec.pass_rows > base.pass_rows == b
        assert spec.speedup == spec.tokens_per_s / base.tokens_per_s
        assert spec.latency_s > 0 and spec.ttft_s > 0 and base.draft_ms < spec.draft_ms
    assert sweep.requests == 4 and sweep.crossover == crossover(sweep.rows)
    assert sweep.provenance.threads and sweep.provenance.clock == sweep.clock   # where the sweep ran
    spec_row = replace(rows[1, "speculative"], speedup=1.3)
    assert crossover([spec_row, replace(spec_row, batch=8, speedup=0.9), replace(spec_row, batch=16, speedup=0.7)]) == 8
    assert main(argv + ["--batch", "1,4"]) == 0
    assert "batch sweep: k = 3, T = 0.0" in capsys.readouterr().out
    for bad in ("0", "1,,4", "65", "x"):
        assert main(argv + ["--batch", bad]) == 2
        assert "--batch" in capsys.readouterr().err
