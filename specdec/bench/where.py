"""Where speculation works (the page of that name): acceptance by kind of text, prompt length
and output position.

Runs are measured once per (pair, settings) and kept as lean traces in a `WhereSet` (one
`PromptResult` per prompt, with its provenance); every aggregate is computed from the pooled
rounds with the engine-standard definitions (metrics.summarize).
"""
from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass, replace

from specdec.bench.measure import besides, machine_load, timed
from specdec.defaults import REPEATS
from specdec.prompts import Prompt, as_input
from specdec.records.provenance import Clock, Provenance, clock_for, here
from specdec.settings import Settings
from specdec.trace.metrics import Metrics, summarize
from specdec.trace.run import Round


@dataclass(frozen=True)
class PromptResult:
    prompt: Prompt
    prompt_tokens: int
    rounds: tuple[Round, ...]    # lean traces of the speculative run (the same in every repeat)
    spec_tokens_per_s: tuple[float, ...]     # one per repeat, wall-clock
    base_tokens_per_s: tuple[float, ...]
    spec_cpu_tokens_per_s: tuple[float, ...] = ()   # the same on CPU time
    base_cpu_tokens_per_s: tuple[float, ...] = ()
    base_tokens: int | None = None           # the autoregressive run's tokens (None: an older record)
    prefill_steps: float | None = None       # what the runs paid besides their rounds (measure.Besides;
    base_prefill_steps: float | None = None  # None: an older record)
    round_overhead: float | None = None
    base_overhead: float | None = None

    @property
    def metrics(self) -> Metrics:
        return summarize(self.rounds)

    def rates(self, clock: Clock = Clock.WALL) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """(speculative, autoregressive) tokens/s per repeat on that clock."""
        if clock == Clock.CPU:
            return self.spec_cpu_tokens_per_s, self.base_cpu_tokens_per_s
        return self.spec_tokens_per_s, self.base_tokens_per_s

    def speedup_on(self, clock: Clock = Clock.WALL) -> float:
        """Median over the repeats of speculative over autoregressive tokens/s."""
        ups = [s / b for s, b in zip(*self.rates(clock)) if b]
        return statistics.median(ups) if ups else 0.0


@dataclass(frozen=True)
class WhereSet:
    results: tuple[PromptResult, ...]
    provenance: Provenance

    @property
    def load(self) -> float:
        return self.provenance.load or 0.0

    @property
    def clock(self) -> Clock:
        return clock_of(self.results, self.load)


@dataclass(frozen=True)
class KindPoint:
    """One kind of text, in a table's order: its rounds pooled, its speedup per repeat."""
    kind: str
    prompts: int
    acceptance_rate: float | None
    mean_acceptance_length: float | None
    speedup: float
    speedup_min: float
    speedup_max: float
    per_position: tuple[float, ...]
    histogram: tuple[int, ...]
    prefill_steps: float | None = None       # its prompts' runs pooled (pooled_besides; None: an older record)
    base_prefill_steps: float | None = None
    round_overhead: float | None = None
    base_overhead: float | None = None


@dataclass(frozen=True)
class GroupPoint:
    """Rounds pooled by a grouping (prompt length, output position)."""
    group: str
    rounds: int
    acceptance_rate: float | None
    mean_acceptance_length: float | None


def clock_of(results, load: float) -> Clock:
    """CPU time when the machine was busy and every result has it (provenance.clock_for)."""
    has_cpu = all(r.spec_cpu_tokens_per_s and r.base_cpu_tokens_per_s for r in results)
    return clock_for(load) if has_cpu else Clock.WALL


def run_set(pair, prompts: list[Prompt], settings: Settings, progress, chat: bool = False,
            repeats: int = REPEATS) -> WhereSet:
    """Speculative and autoregressive runs for every prompt (same seed, same sampling), timed
    `repeats` times each, interleaved (speculative, autoregressive, speculative, …) so a slow
    spell hits both; the provenance holds the highest machine load per core seen."""
    started, out, load = time.perf_counter(), [], machine_load()
    for i, p in enumerate(prompts):
        progress(i, len(prompts), p.label)
        text = as_input(p, chat)
        spec, base = [], []
        for _ in range(repeats):
            spec.append(timed(pair, [text], settings))
            base.append(timed(pair, [text], replace(settings, mode="autoregressive")))
        load = max(load, machine_load())
        rounds, paid = spec[0].rounds, besides(spec, base)
        n = rounds[0].prefix_len if rounds else 0           # the prompt, as the model read it
        out.append(PromptResult(p, n, rounds, tuple(t.tokens_per_s for t in spec),
                                tuple(t.tokens_per_s for t in base),
                                tuple(t.tokens_per_cpu_s for t in spec), tuple(t.tokens_per_cpu_s for t in base),
                                base[0].tokens, **(asdict(paid) if paid else {})))
    progress(len(prompts), len(prompts), "done")
    return WhereSet(tuple(out), here(pair, load, started))


@dataclass(frozen=True)
class Group:
    """The results one key put together: its name and their pooled rounds' Metrics."""
    name: str
    metrics: Metrics


@dataclass(frozen=True)
class GroupSpeedups:
    """The results one key put together: its name and the speedup of each repeat."""
    name: str
    speedups: tuple[float, ...]


def group_metrics(results, key) -> tuple[Group, ...]:
    """Pool the rounds of every result by key(result) and summarize each group (first seen first)."""
    pooled: dict[str, list] = {}
    for r in results:
        pooled.setdefault(key(r), []).extend(r.rounds)
    return tuple(Group(name, summarize(rounds)) for name, rounds in pooled.items())


def group_speedup(results, key, clock: Clock = Clock.WALL) -> tuple[GroupSpeedups, ...]:
    """Speedup per group and repeat on `clock`: summed time of both modes (time-weighted)."""
    pooled: dict[str, list[PromptResult]] = {}
    for r in results:
        pooled.setdefault(key(r), []).append(r)
    return tuple(GroupSpeedups(name, _repeat_speedups(rs, clock)) for name, rs in pooled.items())


def _repeat_speedups(rs: list[PromptResult], clock: Clock) -> tuple[float, ...]:
    tokens, rates = [r.metrics.tokens for r in rs], [r.rates(clock) for r in rs]
    out = []
    for j in range(min(len(spec) for spec, _ in rates)):
        spec = sum(t / s[j] for t, (s, _) in zip(tokens, rates) if s[j])
        base = sum(t / b[j] for t, (_, b) in zip(tokens, rates) if b[j])
        out.append(base / spec if spec else 0.0)
    return tuple(out)


def by_kind(results, clock: Clock = Clock.WALL) -> list[KindPoint]:
    """One point per kind of text: pooled acceptance, speedup median and range over repeats,
    what its runs paid besides their rounds (pooled_besides)."""
    metrics = {g.name: g.metrics for g in group_metrics(results, key=lambda r: r.prompt.kind)}
    speed = {g.name: g.speedups for g in group_speedup(results, key=lambda r: r.prompt.kind, clock=clock)}
    return [KindPoint(k, sum(r.prompt.kind == k for r in results), m.acceptance_rate, m.mean_acceptance_length,
                      statistics.median(speed[k]), min(speed[k]), max(speed[k]), tuple(m.per_position),
                      tuple(m.histogram), **pooled_besides([r for r in results if r.prompt.kind == k]))
            for k, m in metrics.items()]


def pooled_besides(rs: list[PromptResult]) -> dict[str, float]:
    """KindPoint's prefill_steps, base_prefill_steps, round_overhead and base_overhead over the
    prompts `rs`: each prompt's (in its own runs' steps) weighted by its tokens (the prefill a
    generated token) or its rounds (the bookkeeping; an autoregressive round is a token).
    {} where a prompt recorded none (an older record)."""
    if not rs or any(r.prefill_steps is None or not r.base_tokens for r in rs):
        return {}
    spec = [(r.metrics.tokens, r.metrics.rounds) for r in rs]

    def mean(values, weights) -> float:
        return sum(v * w for v, w in zip(values, weights)) / max(1, sum(weights))
    return {"prefill_steps": mean([r.prefill_steps for r in rs], [t for t, _ in spec]),
            "base_prefill_steps": mean([r.base_prefill_steps for r in rs], [r.base_tokens for r in rs]),
            "round_overhead": mean([r.round_overhead for r in rs], [n for _, n in spec]),
            "base_overhead": mean([r.base_overhead for r in rs], [r.base_tokens for r in rs])}


def groups(found: tuple[Group, ...]) -> list[GroupPoint]:
    return [GroupPoint(g.name, g.metrics.rounds, g.metrics.acceptance_rate, g.metrics.mean_acceptance_length)
            for g in found]


def length_bucket(results):
    """key function: 'short' / 'long' prompt, split at the median prompt length."""
    lengths = sorted(r.prompt_tokens for r in results)
    median = lengths[len(lengths) // 2] if lengths else 0
    return lambda r: "short prompt" if r.prompt_tokens < median else "long prompt"


def position_split(results, boundary: int = 16) -> tuple[Group, Group]:
    """Rounds that start within the first `boundary` generated tokens vs later ones."""
    early, late = [], []
    for r in results:
        start = r.rounds[0].prefix_len if r.rounds else 0
        for rnd in r.rounds:
            (early if rnd.prefix_len - start < boundary else late).append(rnd)
    return Group(f"tokens 1-{boundary}", summarize(early)), Group(f"tokens {boundary + 1}+", summarize(late))
