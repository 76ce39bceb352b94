"""The calculator "Where would it pay?" (no Streamlit): a round's price on another machine.

Everything a round costs there comes from that machine's roofline (specdec/bench/roofline.py)
and the two models' sizes and weight formats — never from this CPU's measured prices:

    step(M) = max(bytes read / bandwidth, 2·params·M / compute rate, layers · layer floor)
    c       = draft step(1) / target step(1)         v(M) = target step(M) / target step(1)

The layer floor is the shortest time a layer's kernels take however little they read (launching
them): an assumption the learner chooses, 0 for the roofline alone. A big target's layers take
far longer; a small, deep draft's step is set by it.

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
DRAFTS = tuple(roofline.Model(name, size, 2.0, roofline.LAYERS[size], roofline.KV_BYTES[size])
               for name, size in (("68M", 0.068), ("135M", 0.135), ("1B", 1.0)))
FLOORS_US = (0, 10, 20, 40)          # the layer floors offered, µs (0: the roofline alone)
CONTEXT = 1024          # tokens a request holds (a chat and its answer so far): its KV cache read each pass


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
    floor_us: float = 0.0     # the shortest a layer takes (0: the roofline alone)

    @property
    def best(self) -> Forecast:
        return max(self.rows, key=lambda r: r.speedup)


def model(params_b: float, fmt: str, name: str = "") -> roofline.Model:
    """A model of `params_b` billion parameters stored as `fmt` (a key of FORMATS)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown weight format {fmt!r}: one of {', '.join(FORMATS)}")
    return roofline.Model(name or f"{params_b:g}B", params_b, FORMATS[fmt], roofline.LAYERS.get(params_b, 0),
                          roofline.KV_BYTES.get(params_b, 0.0))


def step_ms(machine: roofline.Machine, m: roofline.Model, tokens: int = 1, floor_us: float = 0.0,
            cached: int = 0) -> float:
    """One pass of `tokens` tokens of `m` on `machine` reading `cached` tokens of KV cache: the roofline's
    bound, or its layers at the floor where that is longer."""
    return max(roofline.pass_seconds(machine, m, tokens, cached) * 1e3, m.layers * floor_us / 1e3)


def calculate(machine: roofline.Machine, target: roofline.Model, draft: roofline.Model, alpha: float,
              ks=defaults.K_SWEEP, floor_us: float = 0.0, context: int = 0) -> Calculation:
    """Per k, the speedup a round would reach on `machine` for `target` drafted by `draft`, each
    layer taking at least `floor_us` µs, each pass reading the request's KV cache of `context` tokens."""
    if draft.params >= target.params:
        raise ValueError(f"a {draft.name} draft is not smaller than the {target.name} target")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"acceptance α = {alpha} is not between 0 and 1")
    one = step_ms(machine, target, 1, floor_us, context)
    draft_ms = step_ms(machine, draft, 1, floor_us, context)
    c = draft_ms / one
    rows = []
    for k in ks:
        v = step_ms(machine, target, k + 1, floor_us, context) / one
        rows.append(Forecast(k, v, expected_tokens(alpha, k), speedup_with_verify(alpha, k, c, v)))
    return Calculation(one, draft_ms, c, roofline.ridge(machine, target), alpha, tuple(rows), floor_us)


BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


def batched(machine: roofline.Machine, target: roofline.Model, draft: roofline.Model, alpha: float, k: int,
            batches=BATCHES, floor_us: float = 0.0, context: int = 0) -> tuple[tuple[int, float], ...]:
    """Per batch size B, speculation's speedup over plain batched decoding on `machine` by its roofline: a round
    drafts k steps of B rows and checks B·(k + 1) rows in one target pass, against a plain pass of B rows, each
    request keeping eq. (1)'s tokens a round. Every pass reads the weights once and each request's KV cache of
    `context` tokens: the cache's reading grows with B as the weights' does not, so it keeps a big batch's pass
    a read for longer (MagicDec, Chen et al. 2024, on long contexts)."""
    tokens = expected_tokens(alpha, k)
    out = []
    for b in batches:
        cached = b * context
        plain = step_ms(machine, target, b, floor_us, cached)
        round_ms = k * step_ms(machine, draft, b, floor_us, cached) + step_ms(machine, target, b * (k + 1), floor_us,
                                                                              cached)
        out.append((b, tokens * plain / round_ms))
    return tuple(out)


def stops_paying(points: tuple[tuple[int, float], ...]) -> int | None:
    """The first batch size at which speculation no longer pays (None: it pays at every size given)."""
    return next((b for b, x in points if x < 1.0), None)


def measured_alphas(path: Path = TEMPS) -> tuple[dict[float, float], Provenance | None]:
    """The default pair's α = E[β] per temperature (its shipped sweep, k = 4) and where it was
    measured; ({}, None) when the file is missing or broken."""
    sweep = shipped.read(path, TempSweep)
    if sweep is None:
        return {}, None
    return {p.temperature: p.alpha for p in sweep.points}, sweep.provenance
