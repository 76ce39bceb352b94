"""In a server, as a newcomer reviewed it (issue 51): time to first token and latency from one
origin, the pass-price chart's labels apart, continuous batching's progress, the page's speedup
beside "Does it pay here?"'s, and the batch lesson's paragraphs short."""
import math
from dataclasses import replace
from itertools import combinations

import pytest
from test_density import LINES, PER_LINE, kind, paragraphs, units

import specdec
from specdec.bench.batching import Facts, batch_bench
from specdec.bench.payoff import Measured, Payoff
from specdec.bench.record import BatchRow, BatchSweep
from specdec.bench.server import timeline
from specdec.engine.serving import Served
from specdec.records.codec import RecordFileError
from specdec.records.provenance import Clock, Provenance
from specdec.settings import Mode
from ui.figures.server import pass_price_figure
from ui.lessons import badges, server

from apptest import app

AR, SPEC = Mode.AUTOREGRESSIVE, Mode.SPECULATIVE


def test_latency_and_time_to_first_token_both_start_at_arrival():
    # arrived at 1 s, waited to 4 s, first token at 4.5 s, last at 6 s
    s = Served(None, arrival=1.0, admitted=4.0, first_token=4.5, finished=6.0, reused=0)
    assert s.ttft == 3.5 and s.latency == 5.0


def test_at_batch_size_one_the_waiting_counts_in_latency_as_in_ttft(pair):
    """Three requests all waiting at the start, served one at a time: the third waits for the other
    two, in its time to first token and in its latency alike (the review saw TTFT 8.93 s, latency 1.18 s)."""
    s = specdec.Settings(k=2, temperature=0.0, max_new_tokens=6)
    sweep = batch_bench(pair, ["abc", "a(b)\n", "cba cba"], [1], s, 1, lambda *a: None)
    for r in sweep.rows:
        assert 0 < r.ttft_s <= r.latency_s, (r.mode, r.ttft_s, r.latency_s)


def test_a_kept_row_timed_from_two_origins_is_refused():
    with pytest.raises(RecordFileError, match="exceeds latency"):
        BatchRow(1, AR, 100, 50, 0.5, 26.6, 26.6, 26.6, 1.18, 8.93, 31.0, 0.0, 1.0)
    assert BatchRow(1, AR, 100, 50, 0.5, 26.6, 26.6, 26.6, 8.93, 1.18, 31.0, 0.0, 1.0).latency_s == 8.93


# the review's sweep (AMD EPYC): tokens a pass fed and ms a pass, batch sizes 1 to 16
REVIEW = [(1, AR, 1, 31), (2, AR, 2, 41), (4, AR, 4, 57), (8, AR, 8, 93), (16, AR, 16, 159),
          (1, SPEC, 5, 46), (2, SPEC, 10, 73), (4, SPEC, 20, 120), (8, SPEC, 40, 186), (16, SPEC, 80, 322)]
PLOT_W, CHAR_W, TEXT_H = 880, 7, 14     # the plot's width in the 940 px column (margins 40 + 20), a label's px


def label_boxes(fig):
    """(x0, x1, y0, y1) in px of every point's text, placed as its textposition says."""
    lay = fig.layout
    (x_lo, x_hi), (y_lo, y_hi) = lay.xaxis.range, lay.yaxis.range
    plot_h = lay.height - lay.margin.t - lay.margin.b
    boxes = []
    for trace in fig.data:
        vert, _s, horiz = (trace.textposition or "middle center").partition(" ")
        for x, y, text in zip(trace.x, trace.y, trace.text):
            px = (math.log10(x) - x_lo) / (x_hi - x_lo) * PLOT_W
            py = (1 - (y - y_lo) / (y_hi - y_lo)) * plot_h
            w = CHAR_W * len(text)
            x0 = {"left": px - w, "right": px, "center": px - w / 2}[horiz]
            y0 = {"top": py - TEXT_H, "bottom": py, "middle": py - TEXT_H / 2}[vert]
            boxes.append((x0, x0 + w, y0, y0 + TEXT_H))
    return boxes


def test_the_pass_price_labels_do_not_overlap_at_1400_px():
    rows = [BatchRow(b, m, 100, 50, 0.5, 10.0, 10.0, 10.0, 2.0, 1.0, ms, 0.0, fed) for b, m, fed, ms in REVIEW]
    fig = pass_price_figure(rows)
    assert fig.layout.xaxis.range and fig.layout.yaxis.range      # drawn where the test places them
    boxes = label_boxes(fig)
    assert len(boxes) == 10
    clashes = [(a, b) for a, b in combinations(boxes, 2) if a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]]
    assert clashes == []


def test_continuous_batching_reports_every_round(pair):
    calls = []
    s = specdec.Settings(k=2, temperature=0.0, max_new_tokens=6, mode="speculative")
    result = timeline(pair, ["abc", "a(b)\n"], s, lambda *a: calls.append(a), requests=3, max_batch=2, rate=50.0)
    assert len(calls) == len(result.ticks) + 2            # a start, one line per round, the end
    done = [c[0] for c in calls]
    assert done == sorted(done) and done[-1] == 3 and all(c[1] == 3 for c in calls)
    assert calls[1][2].startswith("round 1:")


def facts(first: float) -> Facts:
    return Facts(first, 1, 2, first, 1, 0.6, 16, 1.5, 20.0, 2.5, 7.0, 16.0, 2.3, ())


SWEEP = BatchSweep((), 4, 0.7, "model", 32, 8, 16, 2, 0.7, Clock.WALL, 2)


def test_the_page_says_its_figure_beside_the_box_and_why():
    box = Payoff(4, Measured(0.78, 0.7, 0.8, 3, Clock.WALL, 2.4, "ksweep", 6), 2.4, "here", 0.2, 1.6, 0.8)
    text = server.beside_box(facts(1.0371), box)
    assert "At batch size 1: 1.04×" in text and f"says 0.78× {badges.here()} for the same pair" in text
    assert "16 requests (8 prompts cycled, 32 new tokens each" in server.served(SWEEP)
    predicted = server.beside_box(facts(1.0371), Payoff(4, None, 2.4, "here", 0.2, 1.6, 0.9))
    assert f"says 0.90× {badges.predicted()}" in predicted
    alike = Payoff(4, Measured(0.78, 0.7, 0.8, 3, Clock.WALL, 2.4, "ksweep", 6, cpu="CPU there"), 2.4, "here", 0.2,
                   1.6, 0.8)
    assert f"says 0.78× {badges.shipped('CPU there')}" in server.beside_box(facts(1.0371), alike)
    assert "says" not in server.beside_box(facts(1.0371), None)
    assert "It ran on" not in text and "pass of the target alone" not in text
    # the batched loop's plain pass at 49.7 ms against a 18.2 ms step (2.7×): the line says so, and which
    # figure holds for one request (review 42)
    slow = server.beside_box(replace(facts(1.0371), ar_pass_ms_1=49.7), box, step_ms=18.2)
    assert slow.startswith("Why 1.04× and not the answer box's 0.78×: this loop's pass of the target alone "
                           "runs transformers' layers, 49.7 ms a pass, 2.7× the lean step of 18.2 ms")
    assert f"For one request on the lean path “Does it pay here?” holds: **0.78×** {badges.here()}." in slow
    assert "same pair and settings" not in slow              # review 45: two figures called the same setting's
    near = server.beside_box(replace(facts(1.0371), ar_pass_ms_1=20.0), box, step_ms=18.2)
    assert "pass of the target alone" not in near


def test_batch_size_1_serves_the_answer_box_runs_and_says_so():
    """Requests cycle the prompts with each prompt's own seed (the box's runs: seed = the prompt's index); where
    batch size 1 kept the box's tokens a round, the line says they were the same runs and only the clock differs."""
    from specdec.bench.batching import requests
    served = requests(["a", "b", "c"], 7)
    assert [(r.prompt, r.seed) for r in served] == [("a", 0), ("b", 1), ("c", 2), ("a", 0), ("b", 1), ("c", 2),
                                                    ("a", 0)]
    box = Payoff(4, Measured(0.73, 0.71, 0.75, 3, Clock.WALL, 2.5, "ksweep", 8), 2.5, "here", 0.2, 1.6, 0.8)
    text = server.beside_box(facts(0.7712), box)                 # facts: 2.5 tokens a round at batch size 1
    assert text == (f"At batch size 1 this loop serves the answer box's own runs one at a time, and they kept the "
                    f"same 2.50 tokens a round: 0.77× here, 0.73× {badges.here()} in “Does it pay here?” (its "
                    f"repeats 0.71–0.75×). Only the clock differs.")
    other = replace(box, measured=replace(box.measured, tokens=2.46))
    assert "same pair and settings" in server.beside_box(facts(0.7712), other)     # other runs: no such claim


def test_a_shipped_sweep_of_this_cpu_model_is_a_machine_like_this_one_with_its_own_prices(monkeypatch):
    """Shipped, measured on this CPU model under load: neither "this machine" nor "not this
    machine"; its batch-1 prices beside the profile's and the box's, worked out by hand below."""
    from specdec.models import kernels
    from ui.measured import ahead_label
    monkeypatch.setattr(kernels, "cpu_model", lambda: "Chip X (family 1, model 2)")        # this machine
    cpu_model = kernels.cpu_model
    box = Payoff(4, Measured(0.78, 0.7, 0.8, 3, Clock.WALL, 2.4, "ksweep", 6), 2.4, "here", 0.2, 1.6, 0.8)
    like = Provenance(cpu=cpu_model(), cores=2, threads=1, date="2026-12-05", load=2.6, seconds=60)
    sweep = replace(SWEEP, provenance=like, load=2.6, clock=Clock.CPU)
    text = server.shipped_why(replace(facts(1.02), ar_pass_ms_1=40.0), sweep, box, step_ms=10.0)
    assert f"It ran on a machine like this one (the same CPU model, {cpu_model()}) on 2026-12-05, under load " \
           "2.6 per core" in text and "this machine's." not in text
    # its round: the pass 1.5 AR passes + drafting 20 ms / 40 ms = 0.5 -> 2.0, keeping 2.5 tokens (facts above)
    assert "a round cost 2.00 of its target-alone passes (the pass 1.50, drafting 0.50) and kept 2.50 tokens" in text
    assert "took 40.0 ms there, 4.0 times this machine's profiled step of 10.0 ms" in text        # 40 / 10
    assert "a batch runs the model's own forward" in text                   # why a batched pass costs more
    near = server.shipped_why(replace(facts(1.02), ar_pass_ms_1=12.0), sweep, box, step_ms=10.0)
    assert "profiled step" not in near and "own forward" not in near           # 1.2 times: the same lean pass
    assert "4 × 0.200 + 1.60 = 2.40 steps of this machine and counts 2.40 tokens a round" in text   # 0.8 + 1.6
    label = ahead_label(like)
    assert "a machine like this one" in label and "under load 2.6 per core" in label
    assert "Another machine" not in label and "not this machine" not in label
    assert "Another machine's numbers." in ahead_label(replace(like, cpu="Intel Xeon"))
    family = ahead_label(replace(like, cpu="Chip X"))                   # the family only: model not recorded
    assert "perhaps another one" in family and "Another machine" not in family


def row(mode, batch: int, latency: float, seconds: tuple) -> BatchRow:
    return BatchRow(batch, mode, 100, 50, 0.5, 10.0, 9.0, 11.0, latency, 1.0, 40.0, 5.0, 1.0, seconds=seconds)


def test_the_latency_note_compares_the_repeats_spread_with_the_moves_between_sizes():
    noisy = replace(SWEEP, rows=(row(AR, 1, 10.0, (10.0, 15.0)), row(AR, 2, 12.0, (10.0, 10.0))))
    # repeats: 15 / 10 = 1.50 apart; latency between sizes: 12 / 10 = 1.20
    text = server.latency_note(noisy)
    assert "up to 1.50 times" in text and "(at most 1.20 times)" in text
    calm = replace(noisy, rows=(row(AR, 1, 10.0, (10.0, 10.5)), row(AR, 2, 12.0, (10.0, 10.0))))
    assert server.latency_note(calm) is None                               # 1.05 apart: no note
    apart = replace(noisy, rows=(row(AR, 1, 10.0, (10.0, 12.0)), row(AR, 2, 20.0, (10.0, 10.0))))
    assert server.latency_note(apart).endswith("1.20 times as long as each other.")    # 1.2 < 20 / 10


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_batch_lessons_paragraphs_stay_short_when_opened(tiny_dirs, lang):
    at = app(tiny_dirs, page="pages/server.py", lang=lang, temperature=0.0, k=3)
    lesson = at.main.expander[0]                          # the page's first: the batch lesson
    assert lang == "ko" or lesson.label == "Why a batch changes the price of drafts"
    texts = [(k.value, kind(k)) for k in lesson.children.values() if kind(k)]
    assert len(texts) >= 2
    bound = LINES * PER_LINE["body"]
    over = [(units(p), p[:60]) for value, _k in texts for p in paragraphs(value) if units(p) > bound]
    assert over == []
