"""Try it on many prompts: the learner's setting (A) against one other setting (B) on N prompts
of one kind — the same prompts and seeds for both, runs interleaved A, B, A, B, … so a slow
spell of the machine hits both alike. One prompt is one draw; the lesson is in the average
and its spread over prompts (issue 40).

Per prompt and setting: acceptance rate, mean accepted length (tokens per round), target
passes per emitted token, and tokens/s on the wall-clock and on CPU time (measure.clock_for
picks the CPU clock when the machine was busy). Results are plain dicts (JSON-ready).
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Callable

from specdec.bench.clock import stopwatch
from specdec.bench.measure import machine_load
from specdec.engine.decoder import generate
from specdec.records.provenance import Clock, clock_for
from specdec.settings import Settings

METRICS = ("acceptance_rate", "mean_acceptance_length", "passes_per_token", "tokens_per_s")
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Arm:
    """One side of the comparison: its name as shown ("T = 0.3"), its pair and settings."""
    name: str
    pair: object
    settings: Settings


@dataclass(frozen=True)
class Spread:
    """One metric of one setting over prompts: mean, min–max and the interquartile range."""
    mean: float
    lo: float
    hi: float
    q1: float
    median: float
    q3: float
    n: int

    def place(self, x: float) -> str:
        """Where a single run falls: "below", "within" or "above" [lo, hi]."""
        return "below" if x < self.lo else "above" if x > self.hi else "within"


def one_run(pair, prompt, settings: Settings, seed: int) -> dict:
    """One prompt, one setting: the four metrics (None where a run drafted nothing)."""
    with stopwatch() as lap:
        run = generate(pair, prompt, settings, seed=seed, lean=True)
    m, tokens = run.metrics, len(run.token_ids)
    return {"acceptance_rate": m.acceptance_rate, "mean_acceptance_length": m.mean_acceptance_length,
            "passes_per_token": m.target_forwards_per_token,
            "tokens_per_s": tokens / lap.wall if lap.wall else None,
            "tokens_per_cpu_s": tokens / lap.cpu if lap.cpu else None, "tokens": tokens,
            "alpha": m.mean_beta}


def compare(arms: list[Arm], prompts: list, progress: Progress = lambda *_: None, seed: int = 0) -> dict:
    """Every prompt under every arm, interleaved (prompt i: A then B), prompt i with seed
    `seed + i` for all arms. Returns {"arms", "runs": {arm: [per prompt]}, "clock", "load"}."""
    runs: dict[str, list[dict]] = {a.name: [] for a in arms}
    load, total = machine_load(), len(prompts) * len(arms)
    for i, prompt in enumerate(prompts):
        for j, arm in enumerate(arms):
            progress(i * len(arms) + j, total, f"{arm.name} · {i + 1}/{len(prompts)}")
            runs[arm.name].append(one_run(arm.pair, prompt, arm.settings, seed + i))
            load = max(load, machine_load())
    progress(total, total, "done")
    return {"arms": [a.name for a in arms], "runs": runs, "clock": clock_for(load), "load": load,
            "prompts": len(prompts)}


def values(runs: list[dict], metric: str, clock: Clock = Clock.WALL) -> list[float]:
    """The metric's per-prompt values (tokens/s on `clock`), skipping runs without one."""
    field = "tokens_per_cpu_s" if metric == "tokens_per_s" and clock == Clock.CPU else metric
    return [r[field] for r in runs if r.get(field) is not None]


def spread(xs: list[float]) -> Spread | None:
    if not xs:
        return None
    q1, median, q3 = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) > 1 else (xs[0],) * 3
    return Spread(statistics.fmean(xs), min(xs), max(xs), q1, median, q3, len(xs))


def summary(result: dict) -> dict[str, dict[str, Spread | None]]:
    """{arm: {metric: Spread}} on the result's clock."""
    return {arm: {m: spread(values(result["runs"][arm], m, result["clock"])) for m in METRICS}
            for arm in result["arms"]}


def paired(result: dict, metric: str) -> tuple[int, int]:
    """(prompts where the first arm's value is higher, prompts with both values): a paired
    count, so one easy prompt cannot carry the average alone."""
    a, b = (result["runs"][name] for name in result["arms"][:2])
    field = "tokens_per_cpu_s" if metric == "tokens_per_s" and result["clock"] == Clock.CPU else metric
    both = [(x[field], y[field]) for x, y in zip(a, b) if x.get(field) is not None and y.get(field) is not None]
    return sum(x > y for x, y in both), len(both)


def mine(metrics, seconds: float | None) -> dict:
    """The learner's single run in the same four metrics (a specdec Metrics and its time)."""
    return {"acceptance_rate": metrics.acceptance_rate, "mean_acceptance_length": metrics.mean_acceptance_length,
            "passes_per_token": metrics.target_forwards_per_token,
            "tokens_per_s": metrics.tokens / seconds if seconds else None}
