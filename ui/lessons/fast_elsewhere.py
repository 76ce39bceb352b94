"""The calculator "Where would it pay?" (no Streamlit): a round's price on another machine.

Everything a round costs there comes from that machine's roofline (specdec/bench/roofline.py)
and the two models' sizes and weight formats — never from this CPU's measured prices:

    step(M) = max(bytes read / bandwidth, 2·params·M / compute rate) + fixed per-pass cost
    c       = draft step(1) / target step(1)         v(M) = target step(M) / target step(1)

Only the acceptance travels from the default pair's measurements (it depends on the models and
the text, not on the machine): α = E[β] of the shipped temperature sweep. The speedup per k is
Leviathan et al.'s Theorem 3.8 with the pass priced at v(k + 1) (trace/theory.speedup_with_verify).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from specdec import defaults
from specdec.bench import roofline
from specdec.bench.points import TempSweep
from specdec.records.provenance import Provenance
from specdec.trace.theory import expected_tokens, speedup_with_verify
from ui.lessons import shipped

TEMPS = Path(__file__).resolve().parents[2] / "assets" / "results" / "temps-d95aaea6b84ae3da.json"
FORMATS = {"bf16": 2.0, "int4": 0.5 + 4 / 32}      # bytes a weight reads (int4: a 16-bit scale per 32)
DRAFTS = (roofline.Model("68M", 0.068, 2.0), roofline.Model("135M", 0.135, 2.0), roofline.Model("1B", 1.0, 2.0))


@dataclass(frozen=True)
class Forecast:
    k: int
    v: float                  # the (k + 1)-token pass, in target steps
    expected_length: float    # eq. (1) at α
    speedup: float            # Theorem 3.8 with the pass at v


@dataclass(frozen=True)
class Calculation:
    step_ms: float            # the target's one-token step there, by the roofline
    draft_ms: float           # the draft's one-token step there
    c: float                  # draft_ms / step_ms: the draft's price on *that* machine
    ridge: float              # tokens a pass from which the target's computing outweighs its reading
    alpha: float
    rows: tuple[Forecast, ...]

    @property
    def best(self) -> Forecast:
        return max(self.rows, key=lambda r: r.speedup)


def model(params_b: float, fmt: str, name: str = "") -> roofline.Model:
    """A model of `params_b` billion parameters stored as `fmt` (a key of FORMATS)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown weight format {fmt!r}: one of {', '.join(FORMATS)}")
    return roofline.Model(name or f"{params_b:g}B", params_b, FORMATS[fmt])


def step_ms(machine: roofline.Machine, m: roofline.Model, tokens: int = 1, fixed_ms: float = 0.0) -> float:
    """One pass of `tokens` tokens of `m` on `machine`: the roofline's bound plus a fixed cost."""
    return roofline.pass_seconds(machine, m, tokens) * 1e3 + fixed_ms


def calculate(machine: roofline.Machine, target: roofline.Model, draft: roofline.Model, alpha: float,
              ks=defaults.K_SWEEP, fixed_ms: float = 0.0) -> Calculation:
    """Per k, the speedup a round would reach on `machine` for `target` drafted by `draft`."""
    if draft.params >= target.params:
        raise ValueError(f"a {draft.name} draft is not smaller than the {target.name} target")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"acceptance α = {alpha} is not between 0 and 1")
    one = step_ms(machine, target, 1, fixed_ms)
    draft_ms = step_ms(machine, draft, 1, fixed_ms)
    c = draft_ms / one
    rows = []
    for k in ks:
        v = step_ms(machine, target, k + 1, fixed_ms) / one
        rows.append(Forecast(k, v, expected_tokens(alpha, k), speedup_with_verify(alpha, k, c, v)))
    return Calculation(one, draft_ms, c, roofline.ridge(machine, target), alpha, tuple(rows))


def measured_alphas(path: Path = TEMPS) -> tuple[dict[float, float], Provenance | None]:
    """The default pair's α = E[β] per temperature (its shipped sweep, k = 4) and where it was
    measured; ({}, None) when the file is missing or broken."""
    sweep = shipped.read(path, TempSweep)
    if sweep is None:
        return {}, None
    return {p.temperature: p.alpha for p in sweep.points}, sweep.provenance
