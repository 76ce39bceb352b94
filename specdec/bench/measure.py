"""Wall-clock measurements on this machine: step costs, cost ratio c, timed runs.

Shared by the "When it is fast" lesson, the model card and `python -m specdec bench`.
Timings are medians over repeats; a run in lean mode records counters only.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

import torch

from specdec.bench.clock import Lap, stopwatch
from specdec.engine.decoder import generate
from specdec.models.backend import TorchBackend
from specdec.records.provenance import Clock
from specdec.settings import Settings
from specdec.trace.metrics import summarize
from specdec.trace.theory import Overheads, run_speedup

# Bumped whenever the engine's own speed changes (2: a memory-bound target runs on prepacked
# weights, models/packed.py; 3: its draft on bfloat16 copies). Kept and shipped timings carry
# it in their key, so a result timed by an older engine is measured again instead of shown
# as today's.
TIMING_REVISION = 3


@torch.no_grad()
def step_ms(model, vocab: int, prefix: int = 64, reps: int = 30, tokens: int = 1) -> float:
    """Median ms of one forward of `tokens` new tokens after `prefix` cached ones, by a model
    (its own modules) or a target backend (models/backend.py: what the engine's runs use).

    tokens = 1 is a decoding step; tokens = k + 1 is a verification pass.
    """
    backend = model if hasattr(model, "new_cache") else TorchBackend(model, vocab)
    prefix = max(1, min(prefix, backend.context - tokens - 1))           # a short-context model
    cache = backend.new_cache()
    backend.forward([1 + i % (vocab - 1) for i in range(prefix)], cache, keep=1)
    times = []
    for i in range(reps):
        ids = [1 + (i + j) % (vocab - 1) for j in range(tokens)]
        t0 = time.perf_counter()
        backend.forward(ids, cache)
        times.append((time.perf_counter() - t0) * 1e3)
        cache.crop(-tokens)
    return statistics.median(times)


def verify_cost(model, vocab: int, k: int, one_step_ms: float) -> float:
    """v_k = ms of one (k+1)-token forward / `one_step_ms`, the model's measured 1-token step
    (Thm 3.8 assumes v_k = 1)."""
    return step_ms(model, vocab, tokens=k + 1) / one_step_ms


def pass_ms(rounds, drafted: int) -> float | None:
    """Median ms of the target passes over `drafted` + 1 tokens in these rounds; the first
    round is left out (it runs on cold caches, and in runs recorded before the prefill was its
    own step it also read the prompt)."""
    times = [r.verify_ms for r in rounds if r.index > 0 and r.drafted == drafted]
    return statistics.median(times) if times else None


def verify_cost_in_run(spec_rounds, base_rounds, k: int) -> float | None:
    """v_k as runs paid it: a (k+1)-token pass of speculative rounds over a 1-token step of
    autoregressive rounds timed alongside (the models share the CPU's caches there)."""
    spec_ms, step = pass_ms(spec_rounds, k), pass_ms(base_rounds, 0)
    return spec_ms / step if spec_ms and step else None


def v_paid(spec: list, base: list, k: int) -> float | None:
    """v_k as runs paid it over every repeat: the median of each speculative repeat's (verify_cost_in_run) against
    the autoregressive repeat timed beside it, as `c_paid` does for c (one repeat alone read 0.93 for a 2-token
    pass on a Zen 4: its plain repeat ran first, on cold caches). None: no repeat timed such a pass."""
    vs = [verify_cost_in_run(s.rounds, b.rounds, k) for s, b in zip(spec, base)]
    vs = [v for v in vs if v is not None]
    return statistics.median(vs) if vs else None


def draft_cost_in_run(spec_rounds, base_rounds) -> float | None:
    """c as runs paid it: the median ms of a draft forward in speculative rounds (the first
    round left out, as in pass_ms) over a 1-token step of autoregressive rounds timed alongside.
    Timed over a whole sweep, it holds up on a busy machine where a probe of 30 steps at one
    moment does not."""
    per = [r.draft_ms / r.draft_forwards for r in spec_rounds if r.index > 0 and r.draft_forwards]
    step = pass_ms(base_rounds, 0)
    return statistics.median(per) / step if per and step else None


def c_paid(spec: list, base: list) -> float | None:
    """The lab's one c: a draft forward as the runs paid it (draft_cost_in_run), the median over
    repeats, each speculative repeat (Timed, or anything with `rounds`) against the autoregressive
    repeat timed beside it. None: no round ran a draft forward (a lookup) or no step was timed."""
    cs = [draft_cost_in_run(s.rounds, b.rounds) for s, b in zip(spec, base)]
    cs = [c for c in cs if c is not None]
    return statistics.median(cs) if cs else None


def cost_ratio(pair) -> tuple[float, float, float]:
    """(c, draft step ms, target step ms on the pair's backend); c = 0 without a draft model."""
    target = step_ms(pair.passes, pair.vocab_size)
    if pair.draft is None:
        return 0.0, 0.0, target
    draft = step_ms(pair.draft, pair.vocab_size)
    return draft / target, draft, target


def drafter_cost(pair, settings: Settings) -> tuple[float, float, float]:
    """(c, draft step ms, target step ms) of the drafter these settings use: one step of the
    module its kind drafts with (DrafterKind.step_model: the draft model, the early-exit view),
    or c = 0 for a drafter that runs none (n-gram lookup) or a pair without the model it needs."""
    from specdec.drafters.registry import DRAFTERS
    model = DRAFTERS[settings.drafter].step_model(pair, settings)
    target = step_ms(pair.passes, pair.vocab_size)
    if model is None:
        return 0.0, 0.0, target
    draft = step_ms(model, pair.vocab_size)
    return draft / target, draft, target


@dataclass(frozen=True)
class Timed:
    """One timed set of runs (every prompt once): what a repeat of a measurement is."""
    tokens: int
    seconds: float       # wall-clock
    rounds: tuple        # the runs' rounds, pooled (lean traces; none for a row without rounds)
    texts: tuple         # generated text per prompt
    cpu_seconds: float = 0.0    # CPU time of the same runs (clock.py)
    prefill_ms: float = 0.0     # wall-clock the runs spent reading their prompts (both models)
    outputs: tuple = ()         # token ids per prompt (the bench's greedy check compares them)
    target_forwards: int | None = None   # None: not counted (llama.cpp)

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.seconds if self.seconds else 0.0

    @property
    def tokens_per_cpu_s(self) -> float:
        return self.tokens / self.cpu_seconds if self.cpu_seconds else 0.0

    def rate(self, clock: Clock) -> float:
        """tokens/s on the wall or the CPU clock."""
        return self.tokens_per_cpu_s if clock == Clock.CPU else self.tokens_per_s

    @property
    def metrics(self):
        return summarize(self.rounds)


def rate(repeats: list[Timed], clock: Clock = Clock.WALL) -> float:
    """tokens/s of a measurement's repeats: the first's tokens (counts do not depend on timing)
    over the median time, on the wall or the CPU clock."""
    times = [t.cpu_seconds if clock == Clock.CPU else t.seconds for t in repeats]
    return repeats[0].tokens / statistics.median(times) if repeats and statistics.median(times) else 0.0


def machine_load() -> float:
    """The 1-minute load average per CPU core (about 1 = every core busy)."""
    import os
    return os.getloadavg()[0] / (os.cpu_count() or 1)


WIDE_SPREAD = 1.25       # max / min of repeated speedups above this: the timing is unreliable


def interleaved(runs: list[tuple[str, object, Settings]], prompts: list, repeats: int,
                progress=lambda *_: None) -> tuple[dict[str, list["Timed"]], float]:
    """Each (name, pair, settings) timed `repeats` times, interleaved: repeat r of every run
    before repeat r + 1 of any, so a slow spell hits all alike. Also the highest machine
    load per core seen between runs (provenance.BUSY_LOAD and above: the machine was busy)."""
    out: dict[str, list[Timed]] = {name: [] for name, _, _ in runs}
    load = machine_load()
    for r in range(repeats):
        for i, (name, pair, settings) in enumerate(runs):
            progress(r * len(runs) + i, repeats * len(runs), f"{name} (repeat {r + 1})")
            out[name].append(timed(pair, prompts, settings))
            load = max(load, machine_load())
    progress(repeats * len(runs), repeats * len(runs), "done")
    return out, load


def speedups(spec: list["Timed"], base: list["Timed"], clock: Clock = Clock.WALL) -> list[float]:
    """Per repeat: speculative tokens/s over the baseline's tokens/s of the same repeat."""
    return [s.rate(clock) / b.rate(clock) for s, b in zip(spec, base) if b.rate(clock)]


def timed(pair, prompts: list[str], settings: Settings) -> Timed:
    """Generate for every prompt (seed = its index, lean traces) and time the whole set."""
    tokens, total, rounds, texts, prefill = 0, Lap(), [], [], 0.0
    for i, prompt in enumerate(prompts):
        with stopwatch() as lap:
            run = generate(pair, prompt, settings, seed=i, lean=True)
        total.wall, total.cpu = total.wall + lap.wall, total.cpu + lap.cpu
        tokens += len(run.token_ids)
        rounds += run.rounds
        texts.append(run.text)
        prefill += run.prefill.target_ms + run.prefill.draft_ms if run.prefill else 0.0
    return Timed(tokens, total.wall, tuple(rounds), tuple(texts), total.cpu, prefill)


@dataclass(frozen=True)
class Paid:
    """The prices one repeat of a speculative setting paid, in that repeat's own one-token
    steps (the autoregressive runs timed beside it): theory.run_speedup's inputs."""
    c: float               # a draft forward
    v: float               # the (k + 1)-token pass
    spec: Overheads        # what the speculative runs paid besides
    base: Overheads        # what the autoregressive runs paid besides


def paid_in(spec: Timed, base: Timed, k: int, c: float) -> Paid | None:
    """One repeat's prices (None: a run without k-draft rounds or a one-token step to time).
    c is this run's own draft forward where it has one (a round's first draft step reads the
    tokens the last round emitted, the others one token: long drafts pay less a step), else `c`."""
    step, v = pass_ms(base.rounds, 0), verify_cost_in_run(spec.rounds, base.rounds, k)
    if not step or not v:
        return None
    own = draft_cost_in_run(spec.rounds, base.rounds)
    return Paid(c if own is None else own, v, overheads([spec], step), overheads([base], step))


def overheads(runs: list[Timed], step: float) -> Overheads:
    """What these runs paid besides passes and draft steps (theory.Overheads), in steps of
    `step` ms, on the wall clock the rounds are timed with; the median over repeats."""
    prefill, rest, steps = [], [], []
    for t in runs:
        passes = sum(r.draft_ms + r.verify_ms for r in t.rounds)
        prefill.append(t.prefill_ms / step / max(1, t.tokens))
        rest.append((1e3 * t.seconds - t.prefill_ms - passes) / step / max(1, len(t.rounds)))
        steps.append(sum(r.target_forwards for r in t.rounds) / max(1, t.tokens))
    return Overheads(statistics.median(prefill), max(0.0, statistics.median(rest)), statistics.median(steps))


@dataclass(frozen=True)
class Besides:
    """What speculative runs and the autoregressive runs timed beside them paid besides their
    rounds, in steps (Point's fields of the same names; theory.Overheads)."""
    prefill_steps: float         # reading the prompt, speculative runs, per generated token
    base_prefill_steps: float    # the same, autoregressive runs
    round_overhead: float        # the engine's bookkeeping a round, speculative runs
    base_overhead: float         # the same, autoregressive runs (a round: a token)


def besides(spec: list, base: list) -> Besides | None:
    """`Besides` for repeats of speculative runs and of the autoregressive ones timed beside them
    (Timed, or anything with tokens, seconds, prefill_ms and rounds): each repeat in the steps of
    the autoregressive repeat beside it, the median over repeats. None: no step was timed."""
    paid = [(overheads([s], step), overheads([b], step)) for s, b in zip(spec, base)
            if (step := pass_ms(b.rounds, 0))]
    if not paid:
        return None

    def median(f) -> float:
        return statistics.median(f(s, b) for s, b in paid)
    return Besides(median(lambda s, b: s.prefill), median(lambda s, b: b.prefill),
                   median(lambda s, b: s.per_round), median(lambda s, b: b.per_round))


def whole_run(spec: Timed, base: Timed, k: int, c: float) -> float | None:
    """theory.run_speedup for one speculative run set against its autoregressive one: the
    tokens its rounds kept, priced as both paid (paid_in). None: nothing to price."""
    paid = paid_in(spec, base, k, c)
    if paid is None or not spec.rounds:
        return None
    return run_speedup(spec.tokens / len(spec.rounds), k, paid.c, paid.v, paid.spec, paid.base)
