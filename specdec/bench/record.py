"""The bench's result as typed records: what `python -m specdec bench --json` writes, the
terminal's table prints and the fast page reads.

A `Bench` holds the pair and drafter benched, the costs (c, step times), where and how it was
measured (its `Provenance`: records/provenance.py), one `Setting` per (temperature, k) — each of
`Row`s named by a `RowKind` — and any batch sweeps (`BatchSweep`). `Bench.to_json` /
`Bench.from_json` round-trip it in the one JSON form of every measurement (records/codec.py); a
file is untrusted, so it is checked like a trace (trace/schema.py: every field's type from the
records' hints, finite numbers, bounded texts) and then for meaning (known rows and drafter, both
engine rows in every setting). Anything else is one `BenchFileError` naming where.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum

from specdec.drafters.registry import DRAFTERS
from specdec.records import codec
from specdec.records.provenance import Clock, Provenance
from specdec.settings import Mode

MAX_BYTES = 8 * 2**20
MAX_LINE = 1000                   # characters in one of the head's texts (names, CPU, kernels)


class BenchFileError(codec.RecordFileError):
    """A file that is not a bench this app wrote: the message says where and why."""


class RowKind(StrEnum):
    """What a row measured. The values are the rows' names in files and tables; a tree row's
    name adds its budget and width (runner.tree_row)."""
    AR = "engine autoregressive"
    SPEC = "engine speculative"
    HF = "transformers generate"
    ASSISTED_K = "transformers assisted (k, constant)"
    ASSISTED_DEFAULTS = "transformers assisted (library defaults)"
    SPEC_DEFAULTS = "engine speculative (library defaults)"
    USER_LOADED = "transformers generate (as a user loads it)"
    LLAMA = "llama.cpp generate"
    LLAMA_LOOKUP = "llama.cpp prompt lookup (k)"
    AR_TORCH = "engine autoregressive (torch)"          # a target on another backend: the engine on torch
    SPEC_TORCH = "engine speculative (torch)"
    GENAI = "onnxruntime-genai generate"                # the runtime's own loop on the same ONNX build
    TREE = "engine tree"

    @classmethod
    def of(cls, name: str) -> RowKind:
        """The kind of a row's name; ValueError for a name no bench writes."""
        return cls.TREE if name.startswith(f"{cls.TREE.value} (") else cls(name)


# rows that depend on k (a tree's budget too); the others are shared by every k of a temperature
PER_K = (RowKind.SPEC, RowKind.ASSISTED_K, RowKind.LLAMA_LOOKUP, RowKind.SPEC_TORCH)


@dataclass(frozen=True)
class Row:
    row: str                                       # its name: a RowKind's value, or a tree row's
    tokens_per_s: float                            # median over repeats, wall-clock
    tokens: int = 0                                # emitted over all prompts (one repeat)
    seconds: tuple[float, ...] = ()                # wall-clock total of each repeat
    cpu_seconds: tuple[float, ...] = ()            # CPU time of each repeat (clock.py)
    tokens_per_cpu_s: float | None = None          # None: a file from before the CPU clock
    target_forwards_per_token: float | None = None # None: not counted (llama.cpp)
    speedup: float | None = None                   # over the setting's baseline, on `clock`
    clock: Clock = Clock.WALL
    speedup_wall: float | None = None
    speedup_cpu: float | None = None
    speedup_vs_engine_ar: float | None = None      # against the engine's own autoregressive row
    acceptance_rate: float | None = None           # None: a row without rounds (no drafts)
    mean_acceptance_length: float | None = None
    alpha: float | None = None                     # α̂, the mean β of the drafted positions
    bound: float | None = None                     # Theorem 3.8 at α̂, k and c (engine speculative)
    measured_over_bound: float | None = None
    bound_with_verify: float | None = None         # the same with the measured pass price v
    measured_over_bound_with_verify: float | None = None
    predicted_run: float | None = None             # the whole runs, as they paid (measure.whole_run)
    measured_over_predicted_run: float | None = None

    @property
    def kind(self) -> RowKind:
        return RowKind.of(self.row)


@dataclass(frozen=True)
class Mismatch:
    """A prompt whose greedy outputs differ between two rows that must agree."""
    prompt: int
    row: str
    reference: str
    position: int                                  # the first differing token
    gap: float | None = None                       # the target's top-2 gap there
    why: str = ""


@dataclass(frozen=True)
class Setting:
    """One (temperature, k) table."""
    k: int
    temperature: float
    rows: tuple[Row, ...]
    verify_cost: float | None = None               # v: a (k+1)-token pass in target steps, as paid in the runs
    verify_cost_alone: float | None = None         # the same pass timed alone
    ceiling: float | None = None                   # what v alone scales the bound by
    baseline: str | None = None                    # the row speedups are over (the faster plain way)
    clock: Clock = Clock.WALL
    engine_slower_than_user_load: bool = False
    identical: bool | None = None                  # T = 0: greedy outputs agree (None: not compared)
    mismatches: tuple[Mismatch, ...] = ()
    not_compared: dict = field(default_factory=dict)   # row -> why its outputs are not compared

    def row(self, kind: RowKind) -> Row | None:
        """The first row of this kind (None: not run)."""
        return next((r for r in self.rows if r.kind == kind), None)


@dataclass(frozen=True)
class BatchRow:
    batch: int
    mode: Mode
    tokens: int
    passes: int
    forwards_per_token: float
    tokens_per_s: float
    tokens_per_s_min: float
    tokens_per_s_max: float
    latency_s: float
    ttft_s: float
    pass_ms: float
    draft_ms: float
    pass_rows: float
    clock: Clock = Clock.WALL
    seconds: tuple[float, ...] = ()
    cpu_seconds: tuple[float, ...] = ()
    speedup: float | None = None                   # speculative rows: over autoregressive at the same size

    def __post_init__(self):
        # both from a request's arrival (vocabulary.py): a row whose first token came after its last
        # timed them from two origins (an older build counted latency from admission)
        if self.ttft_s > self.latency_s + 1e-9:
            raise codec.RecordFileError(f"batch {self.batch}, {self.mode}: time to first token {self.ttft_s:.3g} s "
                                        f"exceeds latency {self.latency_s:.3g} s (measure it again)")


@dataclass(frozen=True)
class BatchSweep:
    """batching.batch_bench's result: B requests at once, autoregressive vs speculative."""
    rows: tuple[BatchRow, ...]
    k: int
    temperature: float
    drafter: str
    max_new_tokens: int
    prompts: int
    requests: int
    repeats: int
    load: float
    clock: Clock
    crossover: int | None                          # the smallest size where speculation did not pay
    provenance: Provenance = Provenance()


@dataclass(frozen=True)
class Bench:
    target: str
    draft: str | None                              # None: a drafter that needs no draft model
    prompts: int
    max_new_tokens: int
    repeats: int
    c: float          # a draft forward as the runs paid it (measure.c_paid); else draft_step_ms / target_step_ms
    settings: tuple[Setting, ...]
    drafter: str = "model"
    exit_layer: int | None = None                  # the early-exit drafter's
    library_drafting: str | None = None            # transformers' counterpart (None: it has none)
    draft_step_ms: float | None = None
    target_step_ms: float | None = None
    verify_cost_alone: dict = field(default_factory=dict)   # str(k) -> the pass price timed alone
    skipped_rows: tuple[str, ...] = ()
    skipped_why: str | None = None
    provenance: Provenance = Provenance()          # where and how it was measured
    batch: tuple[BatchSweep, ...] = ()

    def to_json(self, indent: int | None = None) -> str:
        return codec.to_json(self, indent)

    @property
    def c_probed(self) -> bool:
        """Is c the one-step probe (draft_step_ms / target_step_ms), not what the runs paid? A bench
        from before the lab's one c (measure.c_paid), or one whose rounds ran no draft forward."""
        probe = self.draft_step_ms / self.target_step_ms if self.draft_step_ms and self.target_step_ms else None
        return probe is not None and abs(self.c - probe) < 1e-9

    @staticmethod
    def from_json(raw: str | bytes) -> Bench:
        """A file's bench, or BenchFileError saying where it is wrong."""
        if len(raw) > MAX_BYTES:
            raise BenchFileError(f"the file is larger than {MAX_BYTES // 2**20} MB")
        try:
            bench = codec.from_json(Bench, raw, "bench")
        except codec.RecordFileError as err:
            raise BenchFileError(str(err)) from None
        check(bench)
        return bench


def _known(name: str) -> bool:
    try:
        return bool(RowKind.of(name))
    except ValueError:
        return False


def _need(ok: bool, where: str, what: str) -> None:
    if not ok:
        raise BenchFileError(f"{where}: {what}")


def check(bench: Bench) -> None:
    """What the types cannot say: a known drafter, short head texts, rows the bench writes, and
    the two engine rows (every bench has them) in every setting."""
    _need(bench.drafter in DRAFTERS, "bench.drafter", f"unknown drafter {bench.drafter[:40]!r}")
    _need(bool(bench.settings), "bench.settings", "a bench has at least one setting")
    texts = (bench.target, bench.draft, bench.library_drafting, *dataclasses.astuple(bench.provenance))
    _need(all(not isinstance(t, str) or len(t) <= MAX_LINE for t in texts), "bench",
          f"a name or machine line longer than {MAX_LINE} characters")
    for i, s in enumerate(bench.settings):
        for j, r in enumerate(s.rows):
            _need(_known(r.row), f"bench.settings[{i}].rows[{j}].row", f"{r.row[:60]!r} is not a row the bench writes")
        _need(s.row(RowKind.AR) is not None and s.row(RowKind.SPEC) is not None, f"bench.settings[{i}].rows",
              "a setting without the engine's autoregressive and speculative rows")
