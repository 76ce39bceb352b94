"""Try it on many prompts: the learner's setting (A) against one other setting (B) on N prompts
of one kind — the same prompts and seeds for both, runs interleaved (the target alone, A, B; the
target alone, A, B; …) so a slow spell of the machine hits all alike. One prompt is one draw; the
lesson is in the average and its spread over prompts (issue 40).

Per prompt and setting a `PromptRun`: acceptance rate, mean acceptance length, target passes
per emitted token, tokens/s on the wall-clock and on CPU time (the `Comparison`'s clock is
CPU time when the machine was busy: records/provenance.clock_for), and the speedup over the target
alone, which runs each prompt with the same seed just before the two settings (review 28: two
settings compared with each other said nothing of whether either pays).
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, replace
from typing import Callable

from specdec.bench.clock import stopwatch
from specdec.bench.measure import machine_load
from specdec.engine.decoder import generate
from specdec.records.provenance import Clock, Provenance, here
from specdec.settings import Mode, Settings
from specdec.wording import _

METRICS = ("acceptance_rate", "mean_acceptance_length", "target_forwards_per_token", "tokens_per_s", "speedup")
ON_CPU = {"tokens_per_s": "tokens_per_cpu_s", "speedup": "speedup_cpu"}     # a metric on CPU time
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Arm:
    """One side of the comparison: its name as shown ("T = 0.3"), its pair and settings."""
    name: str
    pair: object
    settings: Settings


@dataclass(frozen=True)
class PromptRun:
    """One prompt under one setting (None where a run drafted nothing or took no time)."""
    acceptance_rate: float | None
    mean_acceptance_length: float | None
    target_forwards_per_token: float | None
    tokens_per_s: float | None
    tokens_per_cpu_s: float | None = None
    tokens: int = 0
    alpha: float | None = None
    speedup: float | None = None        # tokens/s over the target alone's on the same prompt and seed
    speedup_cpu: float | None = None    # the same on CPU time

    def value(self, metric: str, clock: Clock = Clock.WALL) -> float | None:
        """The metric (one of METRICS); tokens/s and the speedup on `clock`."""
        return getattr(self, ON_CPU[metric] if clock == Clock.CPU and metric in ON_CPU else metric)

    def against(self, alone: "PromptRun") -> "PromptRun":
        """This run with its speedup over `alone` (the target alone on the same prompt), on both clocks."""
        def ratio(x, y):
            return x / y if x and y else None
        return replace(self, speedup=ratio(self.tokens_per_s, alone.tokens_per_s),
                       speedup_cpu=ratio(self.tokens_per_cpu_s, alone.tokens_per_cpu_s))


@dataclass(frozen=True)
class Comparison:
    """Every arm's runs, prompt by prompt in the same order (`runs[i]` is `arms[i]`'s; `alone`: the target
    alone's run of each prompt, the speedups' baseline)."""
    arms: tuple[str, ...]
    runs: tuple[tuple[PromptRun, ...], ...]
    prompts: int
    provenance: Provenance
    alone: tuple[PromptRun, ...] = ()

    def of(self, arm: str) -> tuple[PromptRun, ...]:
        return self.runs[self.arms.index(arm)]

    @property
    def clock(self) -> Clock:
        return self.provenance.clock


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


def one_run(pair, prompt, settings: Settings, seed: int) -> PromptRun:
    """One prompt, one setting."""
    with stopwatch() as lap:
        run = generate(pair, prompt, settings, seed=seed, lean=True)
    m, tokens = run.metrics, len(run.token_ids)
    return PromptRun(m.acceptance_rate, m.mean_acceptance_length, m.target_forwards_per_token,
                     tokens / lap.wall if lap.wall else None, tokens / lap.cpu if lap.cpu else None, tokens,
                     m.mean_beta)


def compare(arms: list[Arm], prompts: list, progress: Progress = lambda *_: None, seed: int = 0) -> Comparison:
    """Every prompt under every arm, interleaved (prompt i: the target alone, then A, then B), prompt i
    with seed `seed + i` for all; each arm's run with its speedup over the target alone's."""
    started, runs, alone = time.perf_counter(), [[] for _ in arms], []
    load, total, step = machine_load(), len(prompts) * (len(arms) + 1), 0
    plain = replace(arms[0].settings, mode=Mode.AUTOREGRESSIVE.value)
    for i, prompt in enumerate(prompts):
        progress(step, total, _("target alone") + f" · {i + 1}/{len(prompts)}")
        alone.append(one_run(arms[0].pair, prompt, plain, seed + i))
        step += 1
        for j, arm in enumerate(arms):
            progress(step, total, f"{arm.name} · {i + 1}/{len(prompts)}")
            runs[j].append(one_run(arm.pair, prompt, arm.settings, seed + i).against(alone[-1]))
            load, step = max(load, machine_load()), step + 1
    progress(total, total, "done")
    return Comparison(tuple(a.name for a in arms), tuple(map(tuple, runs)), len(prompts),
                      here(arms[0].pair, load, started), tuple(alone))


def values(runs, metric: str, clock: Clock = Clock.WALL) -> list[float]:
    """The metric's per-prompt values (tokens/s on `clock`), skipping runs without one."""
    return [x for x in (r.value(metric, clock) for r in runs) if x is not None]


def spread(xs: list[float]) -> Spread | None:
    if not xs:
        return None
    q1, median, q3 = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) > 1 else (xs[0],) * 3
    return Spread(statistics.fmean(xs), min(xs), max(xs), q1, median, q3, len(xs))


@dataclass(frozen=True)
class ArmSummary:
    """One setting over the prompts: each metric's Spread (None where no prompt had a value)."""
    arm: str
    acceptance_rate: Spread | None
    mean_acceptance_length: Spread | None
    target_forwards_per_token: Spread | None
    tokens_per_s: Spread | None                 # on the result's clock
    speedup: Spread | None = None               # over the target alone, on the result's clock

    def of(self, metric: str) -> Spread | None:
        return getattr(self, metric)


def summary(result: Comparison) -> tuple[ArmSummary, ...]:
    """Each arm's spreads, in the result's order, on the result's clock."""
    return tuple(ArmSummary(arm, *(spread(values(result.of(arm), m, result.clock)) for m in METRICS))
                 for arm in result.arms)


def paired(result: Comparison, metric: str) -> tuple[int, int]:
    """(prompts where the first arm's value is higher, prompts with both values): a paired
    count, so one easy prompt cannot carry the average alone."""
    a, b = (result.of(name) for name in result.arms[:2])
    pairs = [(x.value(metric, result.clock), y.value(metric, result.clock)) for x, y in zip(a, b)]
    both = [(x, y) for x, y in pairs if x is not None and y is not None]
    return sum(x > y for x, y in both), len(both)


def mine(metrics, seconds: float | None) -> PromptRun:
    """The learner's single run in the same four metrics (a specdec Metrics and its time)."""
    return PromptRun(metrics.acceptance_rate, metrics.mean_acceptance_length, metrics.target_forwards_per_token,
                     metrics.tokens / seconds if seconds else None)
