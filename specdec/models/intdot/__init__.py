"""Integer dot-product kernels for a model's linear layers (kernel.c), row-by-row attention
(attend.c), RMS normalisation (norm.c), the rotary embedding (rope.c), SiLU (act.c) and a whole
decoder layer made of them (layer.c), built here with the system's C compiler and loaded with
ctypes.

Why. On a CPU a small model's step streams its weights, and a verification pass of k + 1 rows
should cost about one step. The GGUF's own blocks (Q4_1 in SmolLM2's layers, Q8_0 in its head)
times activations quantised per row in blocks of 32 (to 16-bit integers) sum in integers
inside a block, so a row's result cannot depend on the rows beside it: row-exact by
construction, on every CPU, without a timing or a probe to trust (kernel.c says how).

The library is compiled once per source, compiler and instruction set into build/intdot/
(about a second; AVX2 + FMA where the CPU has them, plain C elsewhere) and reused. Without a
C compiler `available()` is False and the other precisions serve (precision.py).
"""
from __future__ import annotations

import ctypes
import functools
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from specdec.files import atomic
from specdec.files.digest import text_key

NAMES = ("kernel.c", "attend.c", "norm.c", "rope.c", "act.c", "layer.c")
SOURCES = tuple(Path(__file__).with_name(name) for name in NAMES)
HEADERS = ("simd.h", "group.h")
FOLDER = Path(__file__).resolve().parents[3] / "build" / "intdot"
FLAGS = ("-O3", "-ffp-contract=off", "-fno-fast-math", "-shared", "-fPIC")
QK = 32                                    # entries of a block (weights and activations)


def cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def isa() -> str:
    """"avx2" where the CPU has AVX2 and FMA (the vector kernel), else "portable"."""
    return "avx2" if {"avx2", "fma"} <= cpu_flags() else "portable"


def _compiler() -> str | None:
    return shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")


def _build(cc: str) -> Path:
    """The library for this source, compiler and ISA: built once into build/intdot/, then found.
    Where that folder cannot be written (a read-only install) it is built into a temporary
    folder for this process, and stderr says so once."""
    flags = (*FLAGS, *(("-mavx2", "-mfma") if isa() == "avx2" else ()))
    version = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30).stdout
    text = b"".join(source.read_bytes() for source in (*SOURCES, *(SOURCES[0].with_name(h) for h in HEADERS)))
    key = text_key(text + " ".join(flags).encode() + version.encode(), 16)
    out = FOLDER / f"intdot-{isa()}-{key}.so"
    if out.is_file():
        return out
    try:
        FOLDER.mkdir(parents=True, exist_ok=True)
        with atomic.replacing(out) as tmp:
            _compile(cc, flags, tmp)
        return out
    except OSError as err:
        print(f"specdec: {FOLDER} cannot be written ({err.strerror or err}); the integer kernels are "
              "compiled for this run only", file=sys.stderr, flush=True)
        out = Path(tempfile.mkdtemp(prefix="specdec-intdot-")) / out.name
        _compile(cc, flags, out)
        return out


def _compile(cc: str, flags: tuple, out: Path) -> None:
    subprocess.run([cc, *flags, "-o", str(out), *map(str, SOURCES), "-lm"], check=True, capture_output=True,
                   timeout=120)


@functools.cache
def built() -> Path:
    """The library file for these sources, compiler and ISA (its name carries their hash)."""
    return _build(_compiler())


def build_id() -> str:
    """What a timing of these kernels depends on: the library's name, or "none" where it is not built."""
    return built().stem if available() else "none"


@functools.cache
def library() -> ctypes.CDLL | None:
    """The loaded kernels, or None where they cannot be built here (no compiler, a read-only
    build/ without a kept library, a compiler error)."""
    cc = _compiler()
    if cc is None:
        return None
    try:
        lib = ctypes.CDLL(str(built()))
    except (OSError, subprocess.SubprocessError):
        return None
    ptr, i64 = ctypes.c_void_p, ctypes.c_int64
    lib.intdot_quantise.argtypes = [ptr, ptr, ptr, ptr, i64, i64]
    lib.intdot_q4_1.argtypes = [ptr, ptr, ptr, ptr, ptr, i64, i64, i64]
    lib.intdot_q8_0.argtypes = [ptr, ptr, ptr, ptr, i64, i64, i64]
    lib.intdot_rope.argtypes = [ptr, ptr, ptr, ptr, ptr, ptr, i64, i64, i64, i64]
    lib.intdot_rmsnorm.argtypes = [ptr, ptr, ptr, i64, i64, ctypes.c_float]
    lib.intdot_attend.argtypes = [ptr, i64, i64, ptr, i64, ptr, i64, i64, i64, i64, i64, ptr, ptr, ptr,
                                  ctypes.c_float, ptr, ptr]
    lib.intdot_silu.argtypes = [ptr, ptr, i64]
    lib.intdot_layer.argtypes = [ptr, ptr, i64, ptr, ptr, ptr, ptr, i64, i64]
    lib.intdot_layer.restype = ctypes.c_int
    for name in ("intdot_q4_1_bytes", "intdot_q8_0_bytes"):
        getattr(lib, name).argtypes, getattr(lib, name).restype = [i64], i64
    lib.intdot_vnni.argtypes, lib.intdot_vnni.restype = [ctypes.c_int], ctypes.c_int
    return lib


@functools.cache
def _chosen() -> bool:
    from specdec.models.intdot import vnni
    return vnni.choose(library())


def kernel() -> str:
    """The instruction set the products run on here: "AVX-512 VNNI", "AVX2" or "portable C"
    (VNNI only where the CPU has it and it checked out, vnni.py)."""
    if isa() != "avx2":
        return "portable C"
    return "AVX-512 VNNI" if library() is not None and _chosen() else "AVX2"


def vnni_over_avx2() -> float | None:
    """How much faster VNNI ran than AVX2 in the timing kept for this CPU (vnni.py; AVX2's time over
    VNNI's: below 1, slower), the choice `kernel()` names; None where no VNNI was timed."""
    from specdec.models.intdot import vnni
    if isa() != "avx2" or library() is None:
        return None
    _chosen()
    return vnni.TIMED["avx2"] / vnni.TIMED["vnni"] if vnni.TIMED else None


def available() -> bool:
    return library() is not None
