"""AVX-512 VNNI for the integer kernels where the CPU has it, kept only when it checks out here.

kernel.c holds two copies of the group kernels (group.h): AVX2's vpmaddwd + vpaddd, and AVX-512
VNNI's vpdpwssd, which does both in one instruction. Integer sums are exact in any order, so both
must give the same bits; on a CPU with VNNI the library compares them on random layers of both
kinds and keeps VNNI only when its bits are equal and it is the faster on a SmolLM2-sized layer at
1, 5 and 9 rows, timed once per CPU model and library (build/intdot/vnni.json): every process on a
machine then runs one kernel. `kernel()` names what runs (the model card and the bench say it).
"""
from __future__ import annotations

import time

import torch

SHAPES = ((40, 96), (1536, 576))      # a small check with a tail of columns; a SmolLM2-sized layer


def _layers(n: int, k: int, generator: torch.Generator):
    from specdec.models.intdot.linear import q4_1_of, q4_1_records, q8_0_of, q8_0_records
    weight = torch.randn(n, k, generator=generator)
    return {"q4_1": q4_1_records(q4_1_of(weight)), "q8_0": q8_0_records(*q8_0_of(weight)[:2])}


def _products(lib, on: int, layers: dict, x: torch.Tensor) -> dict:
    from specdec.models.intdot.linear import product
    lib.intdot_vnni(on)
    return {kind: product(kind, records, x) for kind, records in layers.items()}


ROWS = (1, 5, 9)                      # a decoding step and two verification passes
TRIES = 15


def _timings(lib, layers: dict, x: torch.Tensor) -> dict[str, float]:
    """Seconds of the layers at ROWS rows with VNNI on and off, the fastest of TRIES alternating
    tries each (a burst of load then touches both, never one whole side)."""
    best = {"vnni": float("inf"), "avx2": float("inf")}
    for _ in range(TRIES):
        for name, on in (("vnni", 1), ("avx2", 0)):
            lib.intdot_vnni(on)
            start = time.perf_counter()
            for m in ROWS:
                _products(lib, on, layers, x[:m])
            best[name] = min(best[name], time.perf_counter() - start)
    return best


TIMED: dict[str, float] = {}          # "vnni", "avx2" -> seconds of the timed layers, as kept for this CPU


def choose(lib) -> bool:
    """Switch VNNI on where the CPU has it, its bits equal AVX2's and it is the faster; returns whether.
    The two are timed once per CPU model and library and kept in build/intdot/vnni.json, so every
    process on a machine runs the same kernel (timed at each load, two within a few percent flipped
    from one process to the next, and a profile measured with one priced the other's runs)."""
    if not lib.intdot_vnni(1):
        return False
    generator = torch.Generator().manual_seed(0)
    for n, k in SHAPES:
        layers = _layers(n, k, generator)
        x = torch.randn(max(ROWS), k, generator=generator) * 3
        on, off = _products(lib, 1, layers, x[:5]), _products(lib, 0, layers, x[:5])
        if not all(torch.equal(on[kind], off[kind]) for kind in layers):
            return bool(lib.intdot_vnni(0))
    TIMED.update(_kept(lambda: _timings(lib, layers, x)))
    return bool(lib.intdot_vnni(int(TIMED["vnni"] < TIMED["avx2"])))


def _kept(timed) -> dict[str, float]:
    """This CPU's and library's timings from the store, else `timed()` (kept there)."""
    from specdec.files import jsonstore
    from specdec.models.cpu import cpu_model
    from specdec.models.intdot import FOLDER, built
    store, key = FOLDER / "vnni.json", f"{cpu_model()} | {built().name}"
    found = jsonstore.entry(store, key, lambda e: set(e) == {"vnni", "avx2"} and all(
        jsonstore.number(v, 1e-9) for v in e.values()))
    if found is None:
        found = timed()
        jsonstore.put(store, key, found)
    return found
