"""AVX-512 VNNI for the integer kernels where the CPU has it, kept only when it checks out here.

kernel.c holds two copies of the group kernels (group.h): AVX2's vpmaddwd + vpaddd, and AVX-512
VNNI's vpdpwssd, which does both in one instruction. Integer sums are exact in any order, so both
must give the same bits; on a CPU with VNNI the library compares them on random layers of both
kinds, times a SmolLM2-sized layer at 1 and 5 rows, and keeps VNNI only when its bits are equal
and it is the faster. `kernel()` names what runs (the model card and the bench say it).
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


def _fastest(lib, layers: dict, x: torch.Tensor, on: int) -> float:
    lib.intdot_vnni(on)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        _products(lib, on, layers, x)
        best = min(best, time.perf_counter() - start)
    return best


TIMED: dict[str, float] = {}          # "vnni", "avx2" -> seconds of the layers at 1 and 5 rows, at load


def choose(lib) -> bool:
    """Switch VNNI on where the CPU has it, its bits equal AVX2's and it is faster; returns whether.
    The two timings are kept in TIMED: on a CPU where they lie within a few percent, one process
    may keep either (the bits are the same)."""
    if not lib.intdot_vnni(1):
        return False
    generator = torch.Generator().manual_seed(0)
    for n, k in SHAPES:
        layers = _layers(n, k, generator)
        x = torch.randn(5, k, generator=generator) * 3
        on, off = _products(lib, 1, layers, x), _products(lib, 0, layers, x)
        if not all(torch.equal(on[kind], off[kind]) for kind in layers):
            return bool(lib.intdot_vnni(0))
    TIMED.update(vnni=sum(_fastest(lib, layers, x[:m], 1) for m in (1, 5)),
                 avx2=sum(_fastest(lib, layers, x[:m], 0) for m in (1, 5)))
    return bool(lib.intdot_vnni(int(TIMED["vnni"] < TIMED["avx2"])))
