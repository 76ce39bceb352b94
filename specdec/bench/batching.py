"""Speculation in a batch: throughput, latency and the target pass's price against batch size
(issue 30; `python -m specdec bench --batch 1,4,16`, and the "In a server" page).

Every batch size serves the same requests — the prompts cycled to max(largest size, number of
prompts) requests, request i seeded i, all waiting at the start — in one server loop
(engine/serving.py) that runs at most B of them at once, autoregressive (k = 0) and
speculative; repeats interleave the two modes. So the sizes differ only in concurrency, never in
the text. Per row: tokens/s of the whole workload (wall-clock and CPU time), the mean request
latency in service (admitted to last token) and time to first token, the target passes
per output token, the mean price of one target pass and the tokens it fed (B rows × pending +
drafts), and the drafting per round (each request drafts on its own: not batched);
a speculative row's speedup is over the autoregressive row at the same B. As B grows the pass
stops being a read of the weights shared by all rows and becomes arithmetic on every row: the
drafts' extra rows stop being free, and at some B speculation stops paying (`crossover`).
"""
from __future__ import annotations

import statistics
from dataclasses import replace
from typing import Callable

from specdec.bench.clock import stopwatch
from specdec.bench.measure import machine_load
from specdec.engine.serving import Request, serve
from specdec.records.provenance import Clock, clock_for
from specdec.settings import Mode, Settings

Progress = Callable[[int, int, str], None]


def requests(prompts: list, n: int) -> list[Request]:
    return [Request(prompts[i % len(prompts)], 0.0, seed=i) for i in range(n)]


def _once(pair, prompts: list, n: int, batch: int, settings: Settings) -> dict:
    with stopwatch() as lap:
        log = serve(pair, requests(prompts, n), settings, max_batch=batch)
    fed = [t.width * len(t.requests) for t in log.ticks]
    return {"tokens": log.tokens, "seconds": lap.wall, "cpu_seconds": lap.cpu, "passes": len(log.ticks),
            "pass_ms": statistics.mean(t.verify_ms for t in log.ticks),
            "draft_ms": statistics.mean(t.draft_ms for t in log.ticks),
            "pass_rows": statistics.mean(fed),
            "latency_s": statistics.mean(s.finished - s.admitted for s in log.served),
            "ttft_s": statistics.mean(s.ttft for s in log.served)}


def _row(batch: int, mode: Mode, runs: list[dict], clock: Clock) -> dict:
    first = runs[0]                                      # counts do not depend on timing
    rate = [r["tokens"] / (r["cpu_seconds"] if clock == Clock.CPU else r["seconds"]) for r in runs]
    return {"batch": batch, "mode": mode, "tokens": first["tokens"], "passes": first["passes"],
            "forwards_per_token": first["passes"] / first["tokens"],
            "tokens_per_s": statistics.median(rate), "tokens_per_s_min": min(rate),
            "tokens_per_s_max": max(rate), "clock": clock,
            "seconds": [r["seconds"] for r in runs], "cpu_seconds": [r["cpu_seconds"] for r in runs],
            "latency_s": statistics.median(r["latency_s"] for r in runs),
            "ttft_s": statistics.median(r["ttft_s"] for r in runs),
            "pass_ms": statistics.median(r["pass_ms"] for r in runs),
            "draft_ms": statistics.median(r["draft_ms"] for r in runs), "pass_rows": first["pass_rows"]}


def batch_bench(pair, prompts: list, sizes: list[int], settings: Settings, repeats: int,
                progress: Progress) -> dict:
    """Rows per batch size and mode; the speculative rows carry `speedup` over autoregressive."""
    modes = {mode: replace(settings, mode=mode.value) for mode in (Mode.AUTOREGRESSIVE, Mode.SPECULATIVE)}
    runs: dict[tuple[int, Mode], list[dict]] = {}
    busiest, total, done = machine_load(), len(sizes) * len(modes) * repeats, 0
    n = max(max(sizes), len(prompts))
    for r in range(repeats):
        for b in sizes:
            for mode, s in modes.items():
                progress(done, total, f"batch {b}, {mode} (repeat {r + 1})")
                runs.setdefault((b, mode), []).append(_once(pair, prompts, n, b, s))
                busiest, done = max(busiest, machine_load()), done + 1
    progress(total, total, "done")
    clock = clock_for(busiest)
    rows = []
    for b in sizes:
        base, spec = _row(b, Mode.AUTOREGRESSIVE, runs[b, Mode.AUTOREGRESSIVE], clock), \
            _row(b, Mode.SPECULATIVE, runs[b, Mode.SPECULATIVE], clock)
        spec["speedup"] = spec["tokens_per_s"] / base["tokens_per_s"]
        rows += [base, spec]
    return {"rows": rows, "k": settings.k, "temperature": settings.temperature, "drafter": settings.drafter,
            "max_new_tokens": settings.max_new_tokens, "prompts": len(prompts), "requests": n, "repeats": repeats,
            "load": busiest, "clock": clock, "crossover": crossover(rows)}


def crossover(rows: list[dict]) -> int | None:
    """The smallest measured batch size at which speculation is no faster than autoregressive
    decoding (None: it paid at every size measured)."""
    losing = [r["batch"] for r in rows if r["mode"] == Mode.SPECULATIVE and r["speedup"] <= 1.0]
    return min(losing) if losing else None
