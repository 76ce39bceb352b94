"""Which kernel multiplies a memory-bound model's linear layers, chosen by timing on this machine.

The fastest float32 linear for a pass of a few rows differs by CPU: on a 2-core AMD EPYC (AVX2)
oneDNN's prepacked layout (packed.py) made a one-token step of SmolLM2-135M 51 ms against 57 ms
for torch's plain linear, while on a 2-core Intel Xeon (AVX-512, AMX) plain took 55 ms and packed
92 ms (5 rows: 97 against 116; 17 rows: 136 against 141). So no rule of thumb: at load, a model
whose layers are packed runs a pass of each size the engine uses — one row (autoregressive steps,
drafting from the target) and a verification pass of k + 1 or a tree's nodes — with each layout,
and each PackedLinear then takes the faster layout for the rows it is given. The choice is kept
in build/kernels.json per CPU model, torch version and layer shapes, so it is timed once.

Both layouts compute the same float32 product (summation order aside, as any (k+1)-row pass
differs from one-row steps: DESIGN.md §2). `SPECDEC_KERNELS=plain|packed` forces one layout;
`measure` (the default) times them.
"""
from __future__ import annotations

import json
import os
import platform
import statistics
import time
from pathlib import Path

import torch
from torch import nn

from specdec.models.packed import PackedLinear

LAYOUTS = ("plain", "packed")
ROWS = (1, 5, 17)                  # a step; a chain pass at k = 4; a tree of 16 nodes
PREFIX = 64                        # cached positions before a timed pass
REPEATS = 7
STORE = Path(__file__).resolve().parents[2] / "build" / "kernels.json"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _key(model: nn.Module) -> str:
    shapes = sorted({tuple(m.weight.shape) for m in model.modules() if isinstance(m, PackedLinear)})
    return (f"{cpu_model()} | torch {torch.__version__} | {len(shapes)} shapes {shapes[:4]} | "
            f"threads {torch.get_num_threads()}")


def set_layout(model: nn.Module, table: dict[int, str]) -> None:
    """Give every PackedLinear of `model` the layout to use per row count (see PackedLinear.layout_for)."""
    table = {int(rows): layout for rows, layout in table.items()}
    for module in model.modules():
        if isinstance(module, PackedLinear) and module.pack_dtype == torch.float32:
            module.layouts = table


@torch.no_grad()
def pass_ms(model: nn.Module, rows: int, repeats: int = REPEATS) -> float:
    """Median ms of a `rows`-token forward after PREFIX cached positions."""
    from transformers import DynamicCache
    times = []
    for _ in range(repeats):
        cache = DynamicCache(config=model.config)
        model(input_ids=torch.zeros(1, PREFIX, dtype=torch.long), cache=cache, use_cache=True, logits_to_keep=1)
        t0 = time.perf_counter()
        model(input_ids=torch.zeros(1, rows, dtype=torch.long), cache=cache, use_cache=True, logits_to_keep=rows)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times[1:])


def measure(model: nn.Module) -> dict:
    """Time every layout at every row count; the table keeps the faster one per count."""
    ms = {}
    for layout in LAYOUTS:
        set_layout(model, {rows: layout for rows in ROWS})
        ms[layout] = {rows: round(pass_ms(model, rows), 2) for rows in ROWS}
    table = {rows: min(LAYOUTS, key=lambda layout: ms[layout][rows]) for rows in ROWS}
    return {"table": table, "ms": ms, "cpu": cpu_model(), "torch": torch.__version__,
            "threads": torch.get_num_threads()}


def _read() -> dict:
    try:
        saved = json.loads(STORE.read_text())
    except (OSError, ValueError):
        return {}
    return saved if isinstance(saved, dict) else {}


def _write(key: str, choice: dict) -> None:
    STORE.parent.mkdir(parents=True, exist_ok=True)
    tmp = STORE.with_name(f"{STORE.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({**_read(), key: choice}, indent=1) + "\n")
    tmp.replace(STORE)


def choose(model: nn.Module) -> dict:
    """The layouts this model runs with (forced, kept from an earlier timing, or timed now)."""
    forced = os.environ.get("SPECDEC_KERNELS", "measure")
    if forced in LAYOUTS:
        choice = {"table": {rows: forced for rows in ROWS}, "forced": True}
    else:
        key = _key(model)
        choice = _read().get(key)
        if not (isinstance(choice, dict) and set(choice.get("table", {}).values()) <= set(LAYOUTS)):
            choice = measure(model)
            _write(key, choice)
    choice = {**choice, "table": {int(rows): layout for rows, layout in choice["table"].items()}}   # JSON keys
    set_layout(model, choice["table"])
    model.kernel_choice = choice
    return choice


def describe(model: nn.Module) -> str:
    """One line: which layout the model's linear layers use for which passes."""
    choice = getattr(model, "kernel_choice", None)
    if not choice:
        return "plain float32 (torch's linear)"
    table = {int(r): layout for r, layout in choice["table"].items()}
    parts = [f"{rows} row{'s' if rows > 1 else ''}: {layout}" for rows, layout in sorted(table.items())]
    how = "forced" if choice.get("forced") else f"timed on {choice.get('cpu', 'this CPU')}"
    return f"float32, {', '.join(parts)} ({how})"
