"""Drafters compared (the page of that name): every embedded draft, each registered drafter that
runs no draft model (n-gram lookup, early exit, suffix match, ...) and the draft-length policies
on the same prompts against the same target; overall and per kind of text. The result is a
`DrafterTable` of `DrafterPoint`s (records/vocabulary.py's names) with its provenance."""
from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass, field, replace

from specdec.bench.measure import besides, c_paid, drafter_cost, machine_load, timed
from specdec.defaults import REPEATS
from specdec.drafters.base import compared_kinds, drafts_with
from specdec.prompts import Prompt, as_input
from specdec.records.provenance import Clock, Provenance, clock_for, here
from specdec.settings import Settings
from specdec.trace.metrics import summarize

ALL = "all"                   # the kind of a point over every prompt


@dataclass(frozen=True)
class Variant:
    label: str
    draft: str | None        # None: no draft model (n-gram lookup, early exit, ...)
    drafter: str = "model"
    policy: str = "constant"


@dataclass(frozen=True, kw_only=True)
class DrafterPoint:
    """One drafter on one kind of text (ALL: every prompt), in a table's order."""
    drafter: str                            # the variant's label
    kind: str
    acceptance_rate: float | None
    mean_acceptance_length: float | None
    drafted_per_round: float | None = None  # None: a record from before it was counted
    c: float
    speedup: float
    speedup_min: float
    speedup_max: float
    clock: Clock = Clock.WALL
    speedup_wall: float | None = None
    load: float
    repeats: int | None = None              # interleaved repeats behind the speedup (None: an older record)
    prefill_steps: float | None = None      # what its runs paid besides their rounds (measure.Besides;
    base_prefill_steps: float | None = None # None: an older record)
    round_overhead: float | None = None
    base_overhead: float | None = None


@dataclass(frozen=True)
class DrafterTable:
    points: tuple[DrafterPoint, ...]
    provenance: Provenance

    def overall(self) -> list[DrafterPoint]:
        return [p for p in self.points if p.kind == ALL]


@dataclass
class Pooled:
    """One run set's tokens, seconds and rounds, pooled over the prompts of one kind."""
    tokens: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    prefill_ms: float = 0.0
    rounds: list = field(default_factory=list)

    def tokens_per_s(self, clock: Clock = Clock.WALL) -> float:
        seconds = self.cpu_seconds if clock == Clock.CPU else self.seconds
        return self.tokens / seconds if seconds else 0.0


def variants(drafts: list[str], policy_draft: str, settings: Settings) -> list[Variant]:
    """Every compared drafter in menu order (drafters.base.compared_kinds): one that runs a draft
    model once per draft, every other once; then the draft-length policies on `policy_draft`."""
    out = []
    for kind in compared_kinds():
        if kind.needs_draft_model:           # a family's drafts share the target's vocabulary
            out += [Variant(d.split("/", 1)[-1], d, drafter=kind.name) for d in drafts
                    if drafts_with(kind, across_vocab=False)]
        else:
            out.append(Variant(kind.compared_as(settings), None, drafter=kind.name))
    out += [Variant(f"{policy_draft.split('/', 1)[-1]} · {p}", policy_draft, policy=p)
            for p in ("heuristic", "confidence")]
    return out


def _ups(spec: list[dict[str, Pooled]], base: list[dict[str, Pooled]], kind: str, clock: Clock) -> list[float]:
    return [s[kind].tokens_per_s(clock) / b[kind].tokens_per_s(clock) for s, b in zip(spec, base)
            if b[kind].tokens_per_s(clock)] or [0.0]


def _points(label: str, spec: list[dict[str, Pooled]], base: list[dict[str, Pooled]], c: float,
            load: float) -> list[DrafterPoint]:
    """spec, base: per repeat, the pooled runs by kind. Speedup: median and range over repeats,
    on CPU time when the machine was busy (clock_for), with the wall-clock median; what the runs
    paid besides their rounds (measure.besides)."""
    out, clock = [], clock_for(load)
    for kind in [ALL] + sorted(k for k in spec[0] if k != ALL):
        m = summarize(spec[0][kind].rounds)          # counts: the first repeat
        ups = _ups(spec, base, kind, clock)
        paid = besides([s[kind] for s in spec], [b[kind] for b in base])
        out.append(DrafterPoint(drafter=label, kind=kind, acceptance_rate=m.acceptance_rate,
                                mean_acceptance_length=m.mean_acceptance_length,
                                drafted_per_round=m.drafted / m.rounds if m.rounds else None, c=c,
                                speedup=statistics.median(ups), speedup_min=min(ups), speedup_max=max(ups),
                                repeats=len(ups),
                                clock=clock, speedup_wall=statistics.median(_ups(spec, base, kind, Clock.WALL)),
                                load=load, **(asdict(paid) if paid else {})))
    return out


def _by_kind(pair, prompts: list[Prompt], settings: Settings, chat: bool) -> dict[str, Pooled]:
    """Pooled tokens, seconds and rounds per kind (and ALL)."""
    out: dict[str, Pooled] = {}
    for p in prompts:
        t = timed(pair, [as_input(p, chat)], settings)
        for kind in (p.kind, ALL):
            acc = out.setdefault(kind, Pooled())
            acc.tokens += t.tokens
            acc.seconds += t.seconds
            acc.cpu_seconds += t.cpu_seconds
            acc.prefill_ms += t.prefill_ms
            acc.rounds += list(t.rounds)
    return out


def _c(pair, settings: Settings, spec: list[dict[str, Pooled]], base: list[dict[str, Pooled]]) -> float:
    """The variant's c as its runs paid it over every prompt (measure.c_paid), or a probe of one
    step where no round ran a draft forward (0 for a lookup)."""
    c = c_paid([s[ALL] for s in spec], [b[ALL] for b in base])
    return drafter_cost(pair, settings)[0] if c is None else c


def compare(load, target: str, all_variants: list[Variant], prompts: list[Prompt],
            settings: Settings, progress, repeats: int = REPEATS, chat: bool = False) -> DrafterTable:
    """Every variant against the target alone; repeats interleaved (repeat r of every run
    before repeat r + 1 of any), so a slow spell of the machine hits all alike. chat: send
    each prompt as a one-message chat (an instruct target)."""
    started = time.perf_counter()
    runs = [("target alone", load(target, None), replace(settings, mode="autoregressive"))] + \
        [(v.label, load(target, v.draft), replace(settings, drafter=v.drafter, policy=v.policy))
         for v in all_variants]
    pooled: list[list[dict]] = [[] for _ in runs]
    busiest = machine_load()
    for r in range(repeats):
        for i, (label, pair, s) in enumerate(runs):
            progress(r * len(runs) + i, repeats * len(runs), f"{label} (repeat {r + 1})")
            pooled[i].append(_by_kind(pair, prompts, s, chat))
            busiest = max(busiest, machine_load())
    progress(repeats * len(runs), repeats * len(runs), "done")
    points = []
    for (label, pair, s), spec in zip(runs[1:], pooled[1:]):
        points += _points(label, spec, pooled[0], _c(pair, s, spec, pooled[0]), busiest)
    return DrafterTable(tuple(points), here(runs[0][1], busiest, started))
