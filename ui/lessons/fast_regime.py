"""The regime lesson's numbers (no Streamlit): this machine's roofline against its measured pass
prices, and the same calculator for other machines and model sizes (specdec/bench/roofline.py)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from specdec import defaults
from specdec.bench import roofline
from specdec.bench.machine import Profile
from specdec.bench.pass_prices import PassPrices
from specdec.bench.points import Sweep
from specdec.records import codec
from specdec.records.provenance import Provenance
from specdec.trace.theory import expected_tokens, speedup_with_verify
from specdec.wording import _
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


def grows_early(h: Here, step_ms: float) -> str | None:
    """Where the measured pass grows below the roofline's ridge (v(2) more than 5% over a step where the ridge lies
    past 2 tokens), why, from the same numbers (review 43: "from about 3.6 tokens limited by computing" beside a
    measured v(2) = 1.16); None where it does not."""
    v2 = h.measured.get(2)
    if v2 is None or v2 <= 1.05 or h.ridge <= 2:
        return None
    return _("Measured, a pass grows from its second token (v(2) = {v2:.2f}), below the ridge of {ridge:.1f}: a "
             "one-token step takes {step:.1f} ms where reading the weights needs {read:.1f} and their arithmetic "
             "{compute:.1f}; the real kernel does not hide another token's work behind the reading, so each adds "
             "its own.").format(v2=v2, ridge=h.ridge, step=step_ms, read=h.read_ms, compute=h.compute_ms)


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


def gpu_measured(path: Path = GPU) -> PassPrices | None:
    """scripts/gpu_pass_cost.py's measurement, where one was taken and shipped (None: none, a
    file this version does not read, or one without a pass for every k the page prices)."""
    try:
        found = codec.from_json(PassPrices, path.read_bytes(), path.name)
    except (OSError, codec.RecordFileError):
        return None
    if not found.c or not all(found.price(k + 1) for k in defaults.K_SWEEP):
        return None
    return found


@dataclass(frozen=True)
class OnAGpu:
    """A k priced by the datacenter GPU's roofline beside the price a GPU measured."""
    k: int
    v: float                   # the roofline's (k + 1)-token pass
    v_measured: float
    speedup: float             # Theorem 3.8 at each price
    speedup_measured: float


def gpu_beside_roofline(measured: PassPrices, alpha: float, c: float) -> list[OnAGpu]:
    """Per k: the datacenter GPU's roofline price v(k + 1) for the 135M target in bf16 and the
    price measured on a GPU, with the speedup each leaves at the shipped α and `c`."""
    h100 = next(m for m in roofline.PUBLISHED if "H100" in m.name)
    return [OnAGpu(p.k, p.v, measured.price(p.k + 1), p.speedup,
                   speedup_with_verify(alpha, p.k, c, measured.price(p.k + 1)))
            for p in calculator(h100, 0.135, "bf16", alpha, c)]
