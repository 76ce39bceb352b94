"""How a memory-bound model's linear layers multiply — precision and layout — chosen by timing.

The fastest way to run a step differs by CPU: on a 2-core AMD EPYC (AVX2) oneDNN's prepacked
float32 layout (packed.py) made a one-token step of SmolLM2-135M 51 ms against 57 ms for
torch's plain linear, while on a 2-core Intel Xeon (AVX-512, AMX) plain took 55 ms and packed
92 ms, and 4-bit weights (precision.py) 34 ms. So no rule of thumb: at load, a model whose
weights stream from memory runs a pass of each size the engine uses — one row (autoregressive
steps, drafting from the target) and a verification pass of k + 1 or a tree's nodes — in each
candidate: float32 in both layouts, bfloat16, int4 weights and intdot (the GGUF's blocks in
integer sums, intdot/; on a 2-core AMD EPYC, Zen 3, AVX2: a step 35.6 ms against 70 for int4).
The precision with the fastest one-token step wins (the autoregressive baseline is then as fast as this machine runs the
model, and speculation has to beat that); in float32 each PackedLinear then takes the faster
layout for the rows it is given (both layouts compute the same float32 product, summation order
aside). The choice is kept in build/kernels.json per CPU model, torch version, layer shapes,
threads and candidates, so it is timed once.

`precision` (load_pair's argument, `--precision`) asks for one precision instead of "auto";
`SPECDEC_KERNELS=plain|packed` forces a float32 layout.
"""
from __future__ import annotations

import functools
import os
import statistics
import time
from pathlib import Path

import torch
from torch import nn

from specdec.files import jsonstore
from specdec.models import intdot
from specdec.models import precision as precisions
from specdec.models.cpu import cpu_model
from specdec.models.packed import PackedLinear, available, pack_linears, packed_count
from specdec.models.precision import Precision
from specdec.models.runtime import crop_cache, forward, new_cache

LAYOUTS = ("plain", "packed")
ROWS = (1, 5, 17)                  # a step; a chain pass at k = 4; a tree of 16 nodes
PREFIX = 64                        # cached positions before a timed pass
REPEATS = 5
PASS = "lean pass"                 # what was timed (lean.py); a timing of another pass is timed again
STORE = Path(__file__).resolve().parents[2] / "build" / "kernels.json"


def _key(model: nn.Module) -> str:
    shapes = sorted({tuple(m.weight.shape) for m in model.modules() if isinstance(m, nn.Linear)})
    isa = torch.backends.cpu.get_cpu_capability()            # what torch dispatches to (ATEN_CPU_CAPABILITY caps it)
    return (f"{cpu_model()} | {isa} | torch {torch.__version__} | {len(shapes)} shapes {shapes[:4]} | "
            f"threads {torch.get_num_threads()} | {PASS}")


def set_layout(model: nn.Module, table: dict[int, str]) -> None:
    """Give every PackedLinear of `model` the layout to use per row count (see PackedLinear.layout_for)."""
    table = {int(rows): layout for rows, layout in table.items()}
    for module in model.modules():
        if isinstance(module, PackedLinear) and module.pack_dtype == torch.float32:
            module.layouts = table


@torch.no_grad()
def pass_ms(model: nn.Module, rows: int, repeats: int = REPEATS) -> float:
    """Median ms of a `rows`-token forward after PREFIX cached positions (the cache is cut back
    to PREFIX after each pass, so the prefix is fed once)."""
    cache, vocab = new_cache(model), model.config.vocab_size
    forward(model, [0] * PREFIX, cache, vocab, keep=1)              # the engine's own pass (lean.py)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        forward(model, [0] * rows, cache, vocab, keep=rows)
        times.append((time.perf_counter() - t0) * 1e3)
        crop_cache(cache, PREFIX)
    return statistics.median(times[1:])


def set_precision(model: nn.Module, precision: str, blocks=None) -> None:
    """float32: packed layers where oneDNN has them (layouts per row count); else precision.apply.
    `blocks`: a callable giving the GGUF's 4-bit blocks, called only for int4 and intdot."""
    precisions.apply(model, Precision.FLOAT32)
    if precision == Precision.FLOAT32:
        if available():
            pack_linears(model)
    else:                                   # apply() unpacks the float32 layouts first
        gguf = precision in (Precision.INT4, Precision.INTDOT) and blocks is not None
        precisions.apply(model, precision, blocks() if gguf else None)


def _timings(model: nn.Module, precision: str) -> dict[str, dict[int, float]]:
    """{"float32/plain": {rows: ms}, ...} or {precision: {rows: ms}}."""
    if precision == Precision.FLOAT32 and packed_count(model):
        out = {}
        for layout in LAYOUTS:
            set_layout(model, {rows: layout for rows in ROWS})
            out[f"float32/{layout}"] = {rows: round(pass_ms(model, rows), 2) for rows in ROWS}
        return out
    return {precision: {rows: round(pass_ms(model, rows), 2) for rows in ROWS}}


def bandwidth_gbs(size: int = 512 * 2**20, repeats: int = 3) -> float:
    """This machine's streaming read rate: GB/s summing a buffer far larger than the caches
    (one thread, as the engine decodes)."""
    buf = torch.ones(size // 4)
    buf.sum()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        buf.sum()
        best = min(best, time.perf_counter() - t0)
    return round(size / best / 1e9, 2)


def measure(model: nn.Module, candidates: tuple[str, ...], blocks=None) -> dict:
    """Time every candidate at every row count; the fastest one-token step picks the precision,
    and in float32 the table keeps the faster layout per row count."""
    ms: dict[str, dict[int, float]] = {}
    weight_mb = {}
    for precision in candidates:
        set_precision(model, precision, blocks)
        ms.update(_timings(model, precision))
        weight_mb[precision] = round(precisions.weight_bytes(model) / 1e6, 1)
    step = {p: min(v[1] for name, v in ms.items() if name.split("/")[0] == p) for p in candidates}
    chosen = min(candidates, key=step.get)
    table = {rows: min(LAYOUTS, key=lambda layout: ms[f"float32/{layout}"][rows]) for rows in ROWS} \
        if chosen == Precision.FLOAT32 and "float32/plain" in ms else {}
    return {"precision": chosen, "table": table, "ms": ms, "weight_mb": weight_mb, "bandwidth_gbs": bandwidth_gbs(),
            "cpu": cpu_model(), "torch": torch.__version__, "threads": torch.get_num_threads()}


def bandwidth_line(choice: dict) -> str | None:
    """How near the chosen one-token step is to the machine's memory limit (None if not timed)."""
    mb, gbs = choice.get("weight_mb", {}).get(choice.get("precision")), choice.get("bandwidth_gbs")
    steps = [row for name, row in choice.get("ms", {}).items() if name.split("/")[0] == choice.get("precision")]
    if not (mb and gbs and steps):
        return None
    step = min({int(r): v for r, v in row.items()}[1] for row in steps)
    floor = mb / 1e3 / gbs * 1e3
    return (f"a one-token step reads {mb:.0f} MB of weights in {step:.1f} ms ({mb / step:.1f} GB/s; this "
            f"machine streams {gbs:.1f} GB/s, so {floor:.1f} ms would be the limit: {step / floor:.1f}x it)")


def _read() -> dict:
    return jsonstore.read(STORE)


def _write(key: str, choice: dict) -> None:
    """The store with this choice added, written whole (a failed write keeps the old timings)."""
    jsonstore.put(STORE, key, choice)


def _valid(choice, candidates: tuple[str, ...]) -> bool:
    """A kept choice as `measure` writes it: every field the app formats has its type."""
    num = jsonstore.number
    return (isinstance(choice, dict) and choice.get("precision") in candidates
            and isinstance(choice.get("table"), dict) and set(choice["table"].values()) <= set(LAYOUTS)
            and all(str(r).isdigit() for r in choice["table"])
            and isinstance(choice.get("weight_mb"), dict) and all(num(v) for v in choice["weight_mb"].values())
            and isinstance(choice.get("ms"), dict) and all(
                isinstance(row, dict) and all(str(r).isdigit() and num(v) for r, v in row.items())
                for row in choice["ms"].values())
            and num(choice.get("bandwidth_gbs", 0.0)))


def choose(model: nn.Module, precision: str = Precision.AUTO, blocks=None) -> dict:
    """Set how `model` multiplies (forced, kept from an earlier timing, or timed now) and return
    the choice. `blocks`: a callable giving the GGUF's 4-bit blocks (read only if int4 is tried)."""
    forced = _forced_layout()
    candidates = _candidates(precision, forced)
    blocks = functools.cache(blocks) if blocks is not None else None      # read at most once
    choice = _pick(model, candidates, forced, blocks)
    choice = {**choice, "table": {int(rows): layout for rows, layout in choice["table"].items()}}   # JSON keys
    _apply(model, choice, blocks)
    return choice


def _forced_layout() -> str | None:
    """SPECDEC_KERNELS=plain or packed pins every pass size's float32 layout (tests and
    comparisons); unset (or "measure"): None, the layouts are timed."""
    forced = os.environ.get("SPECDEC_KERNELS", "measure")
    return forced if forced in LAYOUTS else None


def _candidates(precision: str, forced: str | None) -> tuple[str, ...]:
    """The precisions to choose among: a pinned layout is a float32 one."""
    if forced and precision in (Precision.AUTO, Precision.FLOAT32):
        return (Precision.FLOAT32,)
    return precisions.available() if precision == Precision.AUTO else (precision,)


def _pick(model: nn.Module, candidates: tuple[str, ...], forced: str | None, blocks) -> dict:
    """Nothing to time (a pinned layout, or one precision other than float32), else the timing."""
    if forced and candidates == (Precision.FLOAT32,):
        return {"precision": Precision.FLOAT32, "table": {rows: forced for rows in ROWS}, "forced": True}
    if candidates != (Precision.FLOAT32,) and len(candidates) == 1:
        return {"precision": candidates[0], "table": {}, "forced": True}
    return _kept_or_timed(model, candidates, blocks)


def _kept_or_timed(model: nn.Module, candidates: tuple[str, ...], blocks) -> dict:
    """The choice kept on disk for this model and these candidates, else timed now and kept."""
    key = f"{_key(model)} | {'/'.join(candidates)}"
    if Precision.INTDOT in candidates:                   # new kernels, new timings
        key += f" | {intdot.build_id()}"
    choice = jsonstore.entry(STORE, key, lambda c: _valid(c, candidates))
    if choice is None:
        choice = measure(model, candidates, blocks)
        _write(key, choice)
    return choice


def _apply(model: nn.Module, choice: dict, blocks) -> None:
    """Put the choice into the model, and tag it there for choice_of / describe."""
    set_precision(model, choice["precision"], blocks)
    if choice["precision"] == Precision.FLOAT32 and choice["table"]:
        set_layout(model, choice["table"])
    model.kernel_choice = choice


def choice_of(model: nn.Module) -> dict:
    """What choose() set on the model ({} when it was not run: a cache-resident model)."""
    return getattr(model, "kernel_choice", None) or {}


def bandwidth_of(model: nn.Module) -> str | None:
    return bandwidth_line(choice_of(model))


def describe(model: nn.Module) -> str:
    """One line: the precision the model's linear layers multiply in, and in float32 which
    layout serves which passes."""
    choice = choice_of(model)
    if not choice:
        return "float32 (torch's plain linear)"
    how = "chosen" if choice.get("forced") else f"the fastest step timed on {choice.get('cpu', 'this CPU')}"
    if choice["precision"] != Precision.FLOAT32:
        return f"{precisions.describe(model)} ({how})"
    table = {int(r): layout for r, layout in choice["table"].items()}
    parts = [f"{rows} row{'s' if rows > 1 else ''}: {layout}" for rows, layout in sorted(table.items())]
    return f"float32, {', '.join(parts) or 'plain'} ({how})"
