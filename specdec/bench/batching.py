"""Speculation in a batch: throughput, latency and the target pass's price against batch size
(issue 30; `python -m specdec bench --batch 1,4,16`, and the "In a server" page).

Every batch size serves the same requests — the prompts cycled to max(largest size, number of
prompts) requests, request i seeded i, all waiting at the start — in one server loop
(engine/serving.py) that runs at most B of them at once, autoregressive (k = 0) and
speculative; repeats interleave the two modes. So the sizes differ only in concurrency, never in
the text. Per row: tokens/s of the whole workload (wall-clock and CPU time), the mean request
latency and time to first token (both from its arrival: waiting included), the target passes
per output token, the mean price of one target pass and the tokens it fed (B rows × pending +
drafts), and the drafting per round (each request drafts on its own: not batched);
a speculative row's speedup is over the autoregressive row at the same B. As B grows the pass
stops being a read of the weights shared by all rows and becomes arithmetic on every row: the
drafts' extra rows stop being free, and at some B speculation stops paying (`crossover`).
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, replace
from typing import Callable

from specdec.bench.clock import stopwatch
from specdec.bench.measure import machine_load
from specdec.bench.record import BatchRow, BatchSweep
from specdec.engine.serving import Request, serve
from specdec.records.provenance import Clock, here
from specdec.settings import Mode, Settings

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Once:
    """One serving of the whole workload at one batch size and mode."""
    tokens: int
    seconds: float
    cpu_seconds: float
    passes: int
    pass_ms: float
    draft_ms: float
    pass_rows: float
    latency_s: float
    ttft_s: float

    def rate(self, clock: Clock) -> float:
        return self.tokens / (self.cpu_seconds if clock == Clock.CPU else self.seconds)


@dataclass(frozen=True)
class Facts:
    """What a sweep shows (the page's verdict is worded from it)."""
    best: float                      # the largest speedup, and at which batch size
    best_batch: int
    crossover: int | None
    first: float                     # the speedup at the smallest and at the largest size
    first_batch: int
    last: float
    last_batch: int
    pass_ratio_1: float              # a speculative pass over an autoregressive one, smallest size
    draft_ms_1: float
    tokens_per_pass_1: float
    pass_growth: float               # smallest to largest size: the pass's price, its tokens
    rows_growth: float
    ar_growth: float                 # autoregressive throughput's growth
    spreads: tuple[tuple[int, float], ...]   # (batch, slowest / fastest repeat) of speculative rows
    ar_pass_ms_1: float = 0.0        # an autoregressive pass at the smallest size (ms, wall-clock)
    first_low: float = 0.0           # the smallest size's speedup over its repeats: slowest speculative
    first_high: float = 0.0          # over fastest autoregressive, and the other way round


def requests(prompts: list, n: int) -> list[Request]:
    """n requests cycling the prompts, each with its prompt's own seed (its index), as the answer box's
    runs draw (bench/measure.py): at batch size 1 the loop serves those very runs, each prompt n / len
    times, so its speedup differs from the box's by the clock alone."""
    return [Request(prompts[i % len(prompts)], 0.0, seed=i % len(prompts)) for i in range(n)]


def _once(pair, prompts: list, n: int, batch: int, settings: Settings) -> Once:
    with stopwatch() as lap:
        log = serve(pair, requests(prompts, n), settings, max_batch=batch)
    fed = [t.width * len(t.requests) for t in log.ticks]
    return Once(log.tokens, lap.wall, lap.cpu, len(log.ticks), statistics.mean(t.verify_ms for t in log.ticks),
                statistics.mean(t.draft_ms for t in log.ticks), statistics.mean(fed),
                statistics.mean(s.latency for s in log.served),
                statistics.mean(s.ttft for s in log.served))


def _row(batch: int, mode: Mode, runs: list[Once], clock: Clock) -> BatchRow:
    first, rate = runs[0], [r.rate(clock) for r in runs]        # counts do not depend on timing
    return BatchRow(batch, mode, first.tokens, first.passes, first.passes / first.tokens,
                    statistics.median(rate), min(rate), max(rate),
                    statistics.median(r.latency_s for r in runs), statistics.median(r.ttft_s for r in runs),
                    statistics.median(r.pass_ms for r in runs), statistics.median(r.draft_ms for r in runs),
                    first.pass_rows, clock, tuple(r.seconds for r in runs), tuple(r.cpu_seconds for r in runs))


def batch_bench(pair, prompts: list, sizes: list[int], settings: Settings, repeats: int,
                progress: Progress) -> BatchSweep:
    """Rows per batch size and mode; the speculative rows carry `speedup` over autoregressive."""
    started = time.perf_counter()
    modes = {mode: replace(settings, mode=mode.value) for mode in (Mode.AUTOREGRESSIVE, Mode.SPECULATIVE)}
    runs: dict[tuple[int, Mode], list[Once]] = {}
    busiest, total, done = machine_load(), len(sizes) * len(modes) * repeats, 0
    n = max(max(sizes), len(prompts))
    for r in range(repeats):
        for b in sizes:
            for mode, s in modes.items():
                progress(done, total, f"batch {b}, {mode} (repeat {r + 1})")
                runs.setdefault((b, mode), []).append(_once(pair, prompts, n, b, s))
                busiest, done = max(busiest, machine_load()), done + 1
    progress(total, total, "done")
    provenance = here(pair, busiest, started)
    rows = []
    for b in sizes:
        base = _row(b, Mode.AUTOREGRESSIVE, runs[b, Mode.AUTOREGRESSIVE], provenance.clock)
        spec = _row(b, Mode.SPECULATIVE, runs[b, Mode.SPECULATIVE], provenance.clock)
        rows += [base, replace(spec, speedup=spec.tokens_per_s / base.tokens_per_s)]
    return BatchSweep(tuple(rows), settings.k, settings.temperature, settings.drafter, settings.max_new_tokens,
                      len(prompts), n, repeats, busiest, provenance.clock, crossover(rows), provenance)


def crossover(rows) -> int | None:
    """The smallest measured batch size at which speculation is no faster than autoregressive
    decoding (None: it paid at every size measured)."""
    losing = [r.batch for r in rows if r.mode == Mode.SPECULATIVE and r.speedup <= 1.0]
    return min(losing) if losing else None


def facts(sweep: BatchSweep) -> Facts:
    """From a sweep: the largest speedup and where, the crossover, the pass price's growth."""
    spec = [r for r in sweep.rows if r.mode == Mode.SPECULATIVE]
    base = {r.batch: r for r in sweep.rows if r.mode == Mode.AUTOREGRESSIVE}
    best, first, last = max(spec, key=lambda r: r.speedup), spec[0], spec[-1]
    return Facts(best.speedup, best.batch, sweep.crossover, first.speedup, first.batch, last.speedup, last.batch,
                 _ratio(first.pass_ms, base[first.batch].pass_ms), first.draft_ms,
                 _ratio(1.0, first.forwards_per_token), _ratio(last.pass_ms, first.pass_ms),
                 _ratio(last.pass_rows, first.pass_rows),
                 base[last.batch].tokens_per_s / base[first.batch].tokens_per_s,
                 tuple((r.batch, r.tokens_per_s_min / r.tokens_per_s_max) for r in spec if r.tokens_per_s_max),
                 base[first.batch].pass_ms, _ratio(first.tokens_per_s_min, base[first.batch].tokens_per_s_max),
                 _ratio(first.tokens_per_s_max, base[first.batch].tokens_per_s_min))


def _ratio(a: float, b: float) -> float:
    return a / b if b else 0.0
