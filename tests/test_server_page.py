"""The "In a server" page (issue 30), on tiny models: each measurement runs, is drawn and is
described with numbers computed from it; and the captions follow the data both ways."""
from dataclasses import replace

import pytest

from specdec import defaults
from specdec.bench import roofline
from specdec.bench.batching import facts as facts_of
from specdec.bench.record import BatchRow, BatchSweep
from specdec.records.provenance import Clock
from specdec.settings import Mode
from ui.lessons import fast_elsewhere, server

from apptest import app


def test_the_server_page_measures_draws_and_describes(tiny_dirs, monkeypatch, tmp_path):
    from ui import family
    from ui.lessons import result_cache
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path)
    monkeypatch.setattr(defaults, "SIZES", (1, 4))                                  # the path, not the statistics
    real = family.speed_prompts
    monkeypatch.setattr(family, "speed_prompts", lambda chat, n=8: real(chat, 2))
    from ui.lessons import speed_prompts as speed  # speed_set's own, for the figures' keys
    monkeypatch.setattr(speed, "speed_prompts", family.speed_prompts)
    at = app(tiny_dirs, page="pages/server.py", temperature=0.0, k=3)
    assert any("Beyond one machine" in h.value for h in at.header)
    # §6 first: the gain's end on a datacenter GPU, predicted at When it is fast's calculator defaults (review 36:
    # two pages, two GPU figures): its batch-1 figure is the calculator's, at the k it finds best
    alphas, _where = fast_elsewhere.measured_alphas()
    h100, t = roofline.PUBLISHED[-1], sorted(alphas)[0]
    target, draft = fast_elsewhere.model(8.0, "bf16"), fast_elsewhere.model(0.135, "bf16")
    context = fast_elsewhere.CONTEXT
    best = fast_elsewhere.calculate(h100, target, draft, alphas[t], floor_us=20, context=context).best
    points = fast_elsewhere.batched(h100, target, draft, alphas[t], best.k, floor_us=20, context=context)
    assert points[0][1] == pytest.approx(best.speedup)
    gpu = next(m.value for m in at.markdown if "an 8B target drafted by a 135M model" in m.value)
    roof = fast_elsewhere.calculate(h100, target, draft, alphas[t], context=context).best        # no layer floor
    assert f"would run **{best.speedup:.2f}–{roof.speedup:.2f}×** for one request, as When it is fast's calculator " \
        f"says at its defaults: {best.speedup:.2f}× at k = {best.k} if every layer takes at least 20 µs" in gpu, gpu
    # in a batch: short requests' gain ends, long ones' holds (each request's KV cache is read too: review 59)
    short = fast_elsewhere.batched(h100, target, draft, alphas[t], best.k, floor_us=20, context=256)
    batch = next(m.value for m in at.markdown if m.value.startswith("In a batch, the requests' length decides"))
    assert f"requests of 256 tokens fall below break-even from batch size {fast_elsewhere.stops_paying(short)}; " \
        "requests of 4,096 tokens stay above it up to batch size 1,024" in batch, batch
    metrics = next(d.value for d in at.dataframe if "vLLM (/metrics)" in d.value.columns)    # §6: what engines report
    assert list(metrics["SGLang"]).count("avg_spec_accept_length") == 1
    assert "vllm:spec_decode_num_accepted_tokens" in list(metrics["vLLM (/metrics)"])
    assert any("bytes per token" in d.value.columns for d in at.dataframe)         # memory: measured at once
    assert any(c.value.startswith(":green-badge[measured here] Read off the caches")
               for c in at.caption)                                            # §3's figures: this machine's run
    for key in ("server_sweep_run", "server_timeline_run", "server_prefix_run"):
        at.button(key=key).click().run()
        assert not at.exception, at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "In this batched loop, at batch size 1 speculative decoding ran" in text and "at batch size 4" in text
    assert "Time to first token: median" in text and "Of " in text and "prompt tokens" in text
    assert any(m.value.startswith("At batch size 1: ") for m in at.markdown)
    assert any("through the server's batched loop" in c.value for c in at.caption)
    rows = next(d.value for d in at.dataframe if "ms per target pass" in d.value.columns)
    assert sorted(set(rows["batch size"])) == [1, 4] and list(rows["mode"]).count("speculative") == 2
    assert len(list(tmp_path.glob("server_*.json"))) == 3                          # kept for the next visit


AR, SPEC = Mode.AUTOREGRESSIVE, Mode.SPECULATIVE


def row(batch, mode, tps, ms=10.0, rows=5.0, speedup=None):
    return BatchRow(batch, mode, 100, 50, 0.5, tps, tps, tps, 1.0, 0.5, ms, 1.0, rows, speedup=speedup)


def sweep(rows, crossover) -> BatchSweep:
    return BatchSweep(tuple(rows), 4, 0.0, "model", 32, 8, 16, 2, 0.2, Clock.WALL, crossover)


def test_the_verdict_follows_the_sweep_both_ways():
    paying = sweep([row(1, AR, 10), row(1, SPEC, 15, speedup=1.5), row(16, AR, 80, 40, 16),
                    row(16, SPEC, 96, 80, 80, speedup=1.2)], None)
    text = server.verdict(facts_of(paying))
    assert "**1.50×**" in text and "batch size 16 **1.20×**" in text and "paid at every batch size" in text
    losing = replace(paying, rows=paying.rows[:3] + (row(16, SPEC, 60, 120, 80, speedup=0.75),), crossover=16)
    text = server.verdict(facts_of(losing))
    assert "**0.75×**" in text and "stopped paying at batch size **16**" in text
    never = replace(paying, rows=(paying.rows[0], row(1, SPEC, 8, speedup=0.8)) + losing.rows[2:], crossover=1)
    text = server.verdict(facts_of(never))
    assert "did not pay at any batch size measured, not even" in text
    assert "cost" not in text                               # the round's prices: behind the section's expander
    assert "cost 1.0× a pass of the target alone plus 1 ms of drafting, and brought 2.00 tokens" in \
        server.batch_one(facts_of(never))
    # 1.03× at batch size 1, but its repeats ran 9.5–10.8 tokens/s against 10: 0.95–1.08×, within the spread
    noisy = replace(losing, rows=(row(1, AR, 10), replace(row(1, SPEC, 10.3, speedup=1.03), tokens_per_s_min=9.5,
                                                          tokens_per_s_max=10.8)) + losing.rows[2:])
    text = server.verdict(facts_of(noisy))
    assert "no faster from batch size **16** on" in text and "repeats ran 0.95–1.08×" in text, text
    assert "stopped paying" not in text
    facts = facts_of(losing)
    assert facts.rows_growth == 16.0 and facts.pass_growth == 12.0 and facts.ar_growth == 8.0


def test_the_prefix_sentence_says_what_was_reused_and_saved_in_one_line():
    from specdec.bench.server import PrefixRun
    from specdec.records.provenance import Provenance
    run = PrefixRun(8, 16, 453, 112, 7, 1.34, 1.06, True, Provenance())
    text = server.prefix_words(run)                          # 0.28 s of 1.34 s: 20.9 %
    assert "took 1.06 s instead of 1.34 s, 21% saved" in text and "identical with and without it: yes" in text
    slower = server.prefix_words(replace(run, prefill_cached_s=1.40, identical=False))
    assert "no prefill time was saved here (1.40 s instead of 1.34 s)" in slower and "saved." not in slower
    assert slower.endswith("Outputs identical with and without it: no.")
