"""When speculation is fast: the measured sweeps put next to Leviathan's theory (the "When it is
fast" page): the k sweep, the draft-size trade-off and the temperature sweep.

Each calls `progress(done, total, label)` so a page can draw a bar and stop it, interleaves its
repeats (measure.interleaved) and returns a typed record with its provenance (points.py).
"""
from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass, replace
from typing import Callable

from specdec.bench.measure import (
    besides,
    c_paid,
    cost_ratio,
    draft_cost_in_run,
    drafter_cost,
    interleaved,
    paid_in,
    speedups,
    timed,
    verify_cost,
)
from specdec.bench.points import Point, Sweep, TempPoint, TempSweep
from specdec.defaults import REPEATS
from specdec.drafters.base import DRAFTERS, compared_kinds, drafts_with
from specdec.records.provenance import Clock, clock_for, here
from specdec.settings import Settings
from specdec.trace.theory import (
    expected_speedup,
    expected_tokens,
    profile_speedup,
    run_speedup,
    speedup_with_verify,
    tokens_from_profile,
)

Progress = Callable[[int, int, str], None]
NGRAM = "n-gram lookup"                  # the n-gram drafter's name in comparisons (its DrafterKind label)


def point(spec: list, base: list, c: float, k: int, load: float, v: float = 1.0,
          profile: list[int] | None = None, paid: list | None = None) -> Point:
    """spec, base: the repeats (Timed) of one setting and of the baseline; v: measured cost of
    the (k+1)-token verification pass in target steps; profile: drafts kept in each full round
    of the sweep's longest k (theory.tokens_from_profile); paid: each repeat's own prices
    (measure.Paid). Speedup: median and range over repeats."""
    m = spec[0].metrics                      # counts do not depend on timing: the first repeat
    alpha, clock = m.mean_beta or 0.0, clock_for(load)
    ups = {c_: speedups(spec, base, c_) or [0.0] for c_ in Clock}
    return Point(k=k, alpha=alpha, acceptance_rate=m.acceptance_rate or 0.0,
                 mean_acceptance_length=m.mean_acceptance_length or 0.0,
                 drafted_per_round=m.drafted / m.rounds if m.rounds else None, c=c,
                 speedup=statistics.median(ups[clock]), speedup_min=min(ups[clock]), speedup_max=max(ups[clock]),
                 clock=clock, speedup_wall=statistics.median(ups[Clock.WALL]),
                 speedup_cpu=statistics.median(ups[Clock.CPU]), repeats=len(ups[clock]), load=load,
                 expected_length=expected_tokens(alpha, k), bound=expected_speedup(alpha, k, c), verify_cost=v,
                 bound_with_verify=speedup_with_verify(alpha, k, c, v),
                 **({"profile_length": tokens_from_profile(profile, k),
                     "profile_speedup": profile_speedup(profile, k, c, v)} if profile else {}),
                 **(asdict(_paid(m.mean_acceptance_length or 1.0, k, paid)) if paid else {}),
                 tokens_per_s=statistics.median(s.tokens_per_s for s in spec),
                 baseline_tokens_per_s=statistics.median(b.tokens_per_s for b in base))


@dataclass(frozen=True)
class PaidRun:
    """The whole runs as they paid: Point's fields of the same names (medians over repeats)."""
    predicted_run: float
    prefill_steps: float
    base_prefill_steps: float
    round_overhead: float
    base_overhead: float


def _paid(tokens: float, k: int, paid: list) -> PaidRun:
    """The whole runs' speedup predicted from what they paid: `tokens` kept a round, and each
    repeat's own prices (a slow spell raises both its time and its prices) with the prompt's
    reading and the bookkeeping (theory.run_speedup); the median over repeats."""
    def median(f) -> float:
        return statistics.median(f(p) for p in paid)
    return PaidRun(predicted_run=median(lambda p: run_speedup(tokens, k, p.c, p.v, p.spec, p.base)),
                   prefill_steps=median(lambda p: p.spec.prefill), base_prefill_steps=median(lambda p: p.base.prefill),
                   round_overhead=median(lambda p: p.spec.per_round), base_overhead=median(lambda p: p.base.per_round))


def k_sweep(pair, prompts: list[str], ks: list[int], settings: Settings,
            progress: Progress, repeats: int = REPEATS) -> Sweep:
    """Measured tokens/round and wall-clock speedup for each k (repeats interleaved), with
    theory at measured α̂, c (as the runs paid it: a draft forward over a step of the
    autoregressive runs) and at the cost v_k of each (k+1)-token pass as the runs paid it."""
    started, (c, _, target_ms) = time.perf_counter(), cost_ratio(pair)
    runs = [("base", pair, replace(settings, mode="autoregressive"))] + \
        [(f"k = {k}", pair, replace(settings, k=k)) for k in ks]
    timings, load = interleaved(runs, prompts, repeats, progress)
    base, points, longest = timings["base"], [], max(ks)
    profile = [r.n_accepted for r in timings[f"k = {longest}"][0].rounds if r.drafted == longest]
    cs = [draft_cost_in_run([r for k in ks for r in timings[f"k = {k}"][i].rounds], base[i].rounds)
          for i in range(repeats)] if pair.draft is not None else []
    c = statistics.median(cs) if cs and None not in cs else c
    for k in ks:
        spec = timings[f"k = {k}"]
        paid = [paid_in(s, b, k, cs[i] if cs and cs[i] is not None else c)
                for i, (s, b) in enumerate(zip(spec, base))]
        paid = [p for p in paid if p is not None]
        v = statistics.median(p.v for p in paid) if paid else verify_cost(pair.target, pair.vocab_size, k, target_ms)
        points.append(point(spec, base, c, k, load, v, profile, paid))
    return Sweep(tuple(points), here(pair, load, started))


def draft_tradeoff(load, target: str, drafts: list[str], prompts: list[str], settings: Settings,
                   progress: Progress, repeats: int = REPEATS, exits: tuple[int, ...] = ()) -> Sweep:
    """For each draft and each compared drafter that runs none (n-gram lookup, suffix match, ...;
    drafters.base.compared_kinds): acceptance, c, measured speedup at one k. `exits`: exit layers
    of early-exit drafts (the target's own first L layers and head) to measure beside them — a
    family's "too big" draft where it ships none.

    `load(target, draft)` returns a Pair (the page passes its cached loader).
    """
    started, target_only = time.perf_counter(), load(target, None)
    entries = _entries({d: load(target, d) for d in drafts}, target_only, settings, exits)
    runs = [("base", target_only, replace(settings, mode="autoregressive"))] + entries
    timings, busy = interleaved(runs, prompts, repeats, progress)
    points = [_measured(label, pair, s, timings, busy) for label, pair, s in entries]
    return Sweep(tuple(points), here(target_only, busy, started))


def _entries(pairs: dict, target_only, settings: Settings, exits: tuple[int, ...]) -> list[tuple]:
    """(label, pair, settings) of each compared drafter: one per draft for a draft-model drafter
    (the cross-vocabulary one for a draft of another tokenizer), one per exit layer for early
    exit, one for any other."""
    out = []
    for kind in compared_kinds():
        s = replace(settings, drafter=kind.name)
        if kind.needs_draft_model:
            out += [(draft, pair, s) for draft, pair in pairs.items() if drafts_with(kind, pair.across_vocab)]
        elif kind.uses_exit_layer:
            out += [(kind.compared_as(replace(s, exit_layer=n)), target_only, replace(s, exit_layer=n))
                    for n in exits]
        else:
            out.append((kind.compared_as(s), target_only, s))
    return out


def _measured(label: str, pair, settings: Settings, timings: dict, busy: float) -> Point:
    """One entry's point: its c as the runs paid it (measure.c_paid; a probe of one step where
    no round ran a draft forward), what its runs paid besides their rounds (measure.besides), and
    its parameters: the draft model's, or those of the module one draft step runs (an early-exit
    view; none: 0)."""
    kind = DRAFTERS[settings.drafter]
    model = pair.draft if kind.needs_draft_model else kind.step_model(pair, settings)
    c = c_paid(timings[label], timings["base"])
    measured = point(timings[label], timings["base"], drafter_cost(pair, settings)[0] if c is None else c,
                     settings.k, busy)
    paid = besides(timings[label], timings["base"])
    return replace(measured, draft=label, drafter=kind.name,
                   params=0 if model is None else sum(p.numel() for p in model.parameters()),
                   exit_layer=settings.exit_layer if kind.uses_exit_layer else None,
                   **(asdict(paid) if paid else {}))


def temperature_sweep(pair, prompts: list[str], temps: list[float], settings: Settings,
                      progress: Progress) -> TempSweep:
    """α̂ (mean β) and acceptance rate against temperature."""
    started, points = time.perf_counter(), []
    for i, t in enumerate(temps):
        progress(i, len(temps), f"T = {t}")
        m = timed(pair, prompts, replace(settings, temperature=t)).metrics
        points.append(TempPoint(temperature=t, alpha=m.mean_beta or 0.0, acceptance_rate=m.acceptance_rate or 0.0,
                                mean_acceptance_length=m.mean_acceptance_length or 0.0))
    progress(len(temps), len(temps), "done")
    return TempSweep(tuple(points), here(pair, None, started))
