"""Where speculation works: acceptance by kind of text, prompt length and output position.

Runs are measured once per (pair, settings) and kept as lean traces; every aggregate is
computed from the pooled rounds with the engine-standard definitions (metrics.summarize).
`to_json` / `from_json` give the results a JSON form (rounds as the trace schema reads them),
so they can be kept on disk and shipped like the other pages' measurements.
"""
from __future__ import annotations

import dataclasses
import statistics
from dataclasses import dataclass, replace

from specdec.bench.measure import machine_load, timed
from specdec.defaults import REPEATS
from specdec.prompts import Prompt, as_input
from specdec.records.provenance import Clock, clock_for
from specdec.settings import Settings
from specdec.trace.metrics import Metrics, summarize
from specdec.trace.run import Round
from specdec.trace.schema import decode


@dataclass(frozen=True)
class PromptResult:
    prompt: Prompt
    prompt_tokens: int
    rounds: tuple[Round, ...]    # lean traces of the speculative run (the same in every repeat)
    spec_tokens_per_s: tuple[float, ...]     # one per repeat, wall-clock
    base_tokens_per_s: tuple[float, ...]
    spec_cpu_tokens_per_s: tuple[float, ...] = ()   # the same on CPU time (none in older files)
    base_cpu_tokens_per_s: tuple[float, ...] = ()

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


def clock_of(results: list[PromptResult], load: float) -> str:
    """CPU time when the machine was busy and every result has it (measure.clock_for)."""
    has_cpu = all(r.spec_cpu_tokens_per_s and r.base_cpu_tokens_per_s for r in results)
    return clock_for(load) if has_cpu else Clock.WALL


def run_set(pair, prompts: list[Prompt], settings: Settings, progress, chat: bool = False,
            repeats: int = REPEATS) -> tuple[list[PromptResult], float]:
    """Speculative and autoregressive runs for every prompt (same seed, same sampling), timed
    `repeats` times each, interleaved (speculative, autoregressive, speculative, …) so a slow
    spell hits both; also the highest machine load per core seen (see measure.BUSY_LOAD)."""
    out, load = [], machine_load()
    for i, p in enumerate(prompts):
        progress(i, len(prompts), p.label)
        text = as_input(p, chat)
        spec, base = [], []
        for _ in range(repeats):
            spec.append(timed(pair, [text], settings))
            base.append(timed(pair, [text], replace(settings, mode="autoregressive")))
        load = max(load, machine_load())
        rounds = spec[0].rounds
        n = rounds[0].prefix_len if rounds else 0           # the prompt, as the model read it
        out.append(PromptResult(p, n, rounds, tuple(t.tokens_per_s for t in spec),
                                tuple(t.tokens_per_s for t in base),
                                tuple(t.tokens_per_cpu_s for t in spec), tuple(t.tokens_per_cpu_s for t in base)))
    progress(len(prompts), len(prompts), "done")
    return out, load


def to_json(results: list[PromptResult], load: float) -> dict:
    return {"results": [dataclasses.asdict(r) for r in results], "load": load}


def from_json(data: dict) -> tuple[list[PromptResult], float]:
    """The inverse of to_json; a damaged file raises trace_schema.TraceError."""
    results = [decode(PromptResult, r, f"where[{i}]") for i, r in enumerate(data["results"])]
    return results, float(data["load"])


def group_metrics(results: list[PromptResult], key) -> dict[str, Metrics]:
    """Pool the rounds of every result by key(result) and summarize each group."""
    groups: dict[str, list] = {}
    for r in results:
        groups.setdefault(key(r), []).extend(r.rounds)
    return {name: summarize(rounds) for name, rounds in groups.items()}


def group_speedup(results: list[PromptResult], key, clock: Clock = Clock.WALL) -> dict[str, list[float]]:
    """Speedup per group and repeat on `clock`: summed time of both modes (time-weighted)."""
    groups: dict[str, list[PromptResult]] = {}
    for r in results:
        groups.setdefault(key(r), []).append(r)
    out = {}
    for name, rs in groups.items():
        tokens, rates = [r.metrics.tokens for r in rs], [r.rates(clock) for r in rs]
        repeats = min(len(spec) for spec, _ in rates)
        out[name] = []
        for j in range(repeats):
            spec = sum(t / s[j] for t, (s, _) in zip(tokens, rates) if s[j])
            base = sum(t / b[j] for t, (_, b) in zip(tokens, rates) if b[j])
            out[name].append(base / spec if spec else 0.0)
    return out


def length_bucket(results: list[PromptResult]):
    """key function: 'short' / 'long' prompt, split at the median prompt length."""
    lengths = sorted(r.prompt_tokens for r in results)
    median = lengths[len(lengths) // 2] if lengths else 0
    return lambda r: "short prompt" if r.prompt_tokens < median else "long prompt"


def position_split(results: list[PromptResult], boundary: int = 16) -> dict[str, Metrics]:
    """Rounds that start within the first `boundary` generated tokens vs later ones."""
    early, late = [], []
    for r in results:
        start = r.rounds[0].prefix_len if r.rounds else 0
        for rnd in r.rounds:
            (early if rnd.prefix_len - start < boundary else late).append(rnd)
    return {f"tokens 1-{boundary}": summarize(early), f"tokens {boundary + 1}+": summarize(late)}


def kind_caption(rows: list[dict]) -> str:
    """What the per-kind acceptance shows, computed (one kind, a tie, or a spread)."""
    from specdec.wording import _
    measured = [r for r in rows if r["acceptance rate"] is not None]
    if not measured:
        return _("Nothing was drafted in these runs.")
    if len(measured) == 1:
        r = measured[0]
        return _("Only one kind was run ({kind}): {rate:.0%} of its drafts survived. Select more "
                 "kinds to compare them.").format(kind=r["kind"], rate=r["acceptance rate"])
    best = max(measured, key=lambda r: r["acceptance rate"])
    worst = min(measured, key=lambda r: r["acceptance rate"])
    if best["acceptance rate"] - worst["acceptance rate"] < 0.02:
        return _("All kinds accept about the same share of drafts here ({lo:.0%}–{hi:.0%}).").format(
            lo=worst["acceptance rate"], hi=best["acceptance rate"])
    return _("Drafts survive most on **{best}** text ({best_rate:.0%}) and least on **{worst}** "
             "({worst_rate:.0%}); the per-position curves show how fast a run of drafts breaks once "
             "it starts.").format(
        best=best["kind"], best_rate=best["acceptance rate"], worst=worst["kind"],
        worst_rate=worst["acceptance rate"])
