"""The speed lessons' measurements as typed records (issue 50): a k sweep and a draft-size
trade-off are `Sweep`s of `Point`s, the temperature sweep a `TempSweep` of `TempPoint`s. Every
field is a quantity of records/vocabulary.py — the names the bench's `Row` uses for the same
thing (`bound`, `bound_with_verify`, `predicted_run`, `mean_acceptance_length`) — and every
result carries its `Provenance`. Fields that only some points have (a draft's name, a profile)
are None elsewhere; a table leaves out a column that is None in every row."""
from __future__ import annotations

from dataclasses import dataclass

from specdec.records.provenance import Clock, Provenance


@dataclass(frozen=True, kw_only=True)
class Point:
    """One measured setting: a k of the k sweep, a draft of the trade-off (in a table's order)."""
    draft: str | None = None               # the trade-off's draft model, or a drafter's name in comparisons
    drafter: str | None = None             # the trade-off's drafter (a DRAFTERS name)
    params: int | None = None              # its parameters (0: n-gram lookup)
    k: int
    alpha: float
    acceptance_rate: float
    mean_acceptance_length: float
    drafted_per_round: float | None = None # None: a record from before it was counted
    c: float
    speedup: float                         # median over repeats, on `clock`
    speedup_min: float
    speedup_max: float
    clock: Clock
    speedup_wall: float
    speedup_cpu: float
    repeats: int
    load: float
    expected_length: float                 # eq. (1) at α̂
    bound: float                           # Theorem 3.8 at α̂, k and c
    verify_cost: float                     # v_k as the runs paid it
    bound_with_verify: float
    profile_length: float | None = None    # the k sweep: from the longest k's acceptance profile
    profile_speedup: float | None = None
    predicted_run: float | None = None     # the k sweep: the whole runs, as they paid
    prefill_steps: float | None = None
    base_prefill_steps: float | None = None
    round_overhead: float | None = None
    base_overhead: float | None = None
    tokens_per_s: float
    baseline_tokens_per_s: float
    exit_layer: int | None = None          # an early-exit draft's layers


@dataclass(frozen=True)
class Sweep:
    """A k sweep (one point per k) or a draft-size trade-off (one per draft)."""
    points: tuple[Point, ...]
    provenance: Provenance


@dataclass(frozen=True, kw_only=True)
class TempPoint:
    temperature: float
    alpha: float
    acceptance_rate: float
    mean_acceptance_length: float


@dataclass(frozen=True)
class TempSweep:
    points: tuple[TempPoint, ...]
    provenance: Provenance
