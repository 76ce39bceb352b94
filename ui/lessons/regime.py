"""The regime lesson's numbers (no Streamlit): this machine's roofline against its measured pass
prices, and the same calculator for other machines and model sizes (specdec/bench/roofline.py)."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from specdec import defaults
from specdec.bench import roofline
from specdec.bench.machine import Profile
from specdec.bench.points import Sweep
from specdec.records.provenance import Provenance
from specdec.trace.theory import expected_tokens, speedup_with_verify
from ui.lessons import shipped

KSWEEP = Path(__file__).resolve().parents[2] / "assets" / "results" / "ksweep-511dc4e49d2cbda9.json"
FORMATS = {"bf16": 2.0, "int4": 0.5 + 4 / 32}      # bytes a weight reads (int4: scales per 32)


@dataclass(frozen=True)
class Here:
    read_ms: float          # reading the weights once at the measured rate
    compute_ms: float       # one token's 2·P FLOPs at the measured rate
    ridge: float            # tokens per pass from which computing costs more than reading
    roof: dict[int, float]  # M -> the roofline's least time for a pass of M, in this machine's measured steps
    measured: dict[int, float]


def here(profile: Profile) -> Here:
    machine = roofline.here(profile.bandwidth_gbs, profile.gflops)
    model = roofline.Model("target", profile.params_m / 1e3, profile.weight_mb / profile.params_m)
    read = profile.weight_mb / 1e3 / profile.bandwidth_gbs * 1e3
    compute = 2 * profile.params_m / 1e3 / profile.gflops * 1e3
    # in measured steps, so that it bounds the measured v(M) = t(M) / t(1) from below: t(M) >= its roof
    roof = {m: roofline.pass_seconds(machine, model, m) * 1e3 / profile.step_ms for m in profile.v}
    return Here(read, compute, roofline.ridge(machine, model), roof, dict(profile.v))


def shipped_alpha() -> tuple[float, float, Provenance]:
    """(α, c, where measured) of the default pair's shipped k-sweep (mean α over k)."""
    sweep = shipped.read(KSWEEP, Sweep)
    return sum(p.alpha for p in sweep.points) / len(sweep.points), sweep.points[0].c, sweep.provenance


@dataclass(frozen=True)
class Priced:
    """A k priced by a machine's roofline."""
    k: int
    v: float                   # the (k + 1)-token pass, in one-token steps
    expected_length: float     # eq. (1) at α
    speedup: float             # Theorem 3.8 with the pass at v
    step_ms: float             # the one-token step there
    ridge: float               # tokens a pass from which computing outweighs reading


def calculator(machine: roofline.Machine, params_b: float, fmt: str, alpha: float, c: float,
               ks=defaults.K_SWEEP) -> list[Priced]:
    """Per k: the pass price v(k + 1) by the roofline and the speedup it leaves (Theorem 3.8
    with that price), for a model of `params_b` billion parameters stored as `fmt`."""
    model = roofline.Model(f"{params_b:g}B", params_b, FORMATS[fmt])
    step = roofline.pass_seconds(machine, model, 1) * 1e3
    return [Priced(k, roofline.v(machine, model, k + 1), expected_tokens(alpha, k),
                   speedup_with_verify(alpha, k, c, roofline.v(machine, model, k + 1)), step,
                   roofline.ridge(machine, model)) for k in ks]


GPU = Path(__file__).resolve().parents[2] / "assets" / "bench" / "gpu-pass-cost.json"


def gpu_measured(path: Path = GPU) -> dict | None:
    """scripts/gpu_pass_cost.py's measurement, where one was taken and shipped (None: none, or
    a file without the fields the page reads)."""
    try:
        saved = json.loads(path.read_text())
        v = {int(m): float(x) for m, x in saved["v"].items()}
        c = {str(name): float(x) for name, x in saved["c"].items()}
        device, dtype, date = str(saved["device"]), str(saved["dtype"]), str(saved["date"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if not c or not all(m + 1 in v for m in defaults.K_SWEEP):
        return None
    return {"device": device, "dtype": dtype, "date": date, "v": v, "c": c}


def gpu_beside_roofline(measured: dict, alpha: float, c: float) -> list[dict]:
    """Per k: the datacenter GPU's roofline price v(k + 1) for the 135M target in bf16 and the
    price measured on a GPU, with the speedup each leaves at the shipped α and `c`."""
    h100 = next(m for m in roofline.PUBLISHED if "H100" in m.name)
    predicted = calculator(h100, 0.135, "bf16", alpha, c)
    return [{**asdict(row), "v_measured": measured["v"][row.k + 1],
             "speedup_measured": speedup_with_verify(alpha, row.k, c, measured["v"][row.k + 1])}
            for row in predicted]
