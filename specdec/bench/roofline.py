"""Why a verification pass is cheap on one machine and not on another: the roofline of a pass.

A target pass over M tokens must (a) read every weight once — W bytes, whatever M is — and
(b) compute about 2·P multiply-adds' worth of FLOPs per token for P parameters. With a memory
rate B (bytes/s) and a compute rate F (FLOP/s) it takes at least

    t(M) = max(W / B, 2·P·M / F)

so v(M) = t(M) / t(1), the price of a pass of M tokens in one-token steps, stays at 1 while the
weights' reading dominates (M below the ridge M* = F·W / (2·P·B)) and then grows with M. Speculation
needs v(k + 1) near 1 (Leviathan et al. 2023 assume exactly 1). A small model on one CPU core has a
low ridge (a few tokens): its pass is compute-bound and v grows at once. A big model on a GPU
reads gigabytes per step at a very high FLOP rate: its ridge is in the hundreds of tokens and a
pass of k + 1 costs about one step. Real kernels fall short of both roofs; the lesson puts the
measured v(M) of this machine beside the bound.

The expected speedup of a round is then Theorem 3.8 with the pass priced at v(k + 1)
(trace/theory.speedup_with_verify): tokens per round (1 − α^(k+1)) / (1 − α) over a round's
cost k·c + v(k + 1), in target steps.
"""
from __future__ import annotations

from dataclasses import dataclass

from specdec.wording import N_


@dataclass(frozen=True)
class Machine:
    name: str
    bandwidth_gbs: float          # memory read rate, GB/s
    tflops: float                 # compute rate for the weights' format, TFLOP/s
    source: str                   # "measured here" or where the published figure comes from


@dataclass(frozen=True)
class Model:
    name: str
    params: float                 # parameters (billions) a token passes through
    bytes_per_param: float        # 0.5 + scales for 4-bit, 2 for bf16
    layers: int = 0               # transformer layers (0: not known): a layer floor's count
    kv_bytes: float = 0.0         # bytes of K and V (every layer) a pass reads per token of context


# Layers of the published models of each size: SmolLM2-135M, Llama 3.2 1B, Llama 3.1 8B and 70B, vicuna-68m
LAYERS = {0.068: 2, 0.135: 30, 1.0: 16, 8.0: 32, 70.0: 80}
# Their KV cache per token of context in 16 bits: K and V × layers × key-value heads × head size × 2 bytes
# (vicuna-68m 12 heads of 64; SmolLM2-135M 3 of 64; Llama 3.2 1B 8 of 64; Llama 3.1 8B and 70B 8 of 128)
KV_BYTES = {size: 2 * layers * heads * dim * 2 for size, (layers, heads, dim) in
            {0.068: (2, 12, 64), 0.135: (30, 3, 64), 1.0: (16, 8, 64), 8.0: (32, 8, 128), 70.0: (80, 8, 128)}.items()}


# Published peak figures (vendors' data sheets), stated as such: no run here measured them.
PUBLISHED = (
    Machine(N_("laptop CPU, 8 cores"), 89.6, 1.0,
            N_("published: 2 × 64-bit DDR5-5600 = 89.6 GB/s; ~1 TFLOP/s fp32 for 8 AVX2/FMA cores")),
    Machine(N_("NVIDIA H100 GPU"), 3350.0, 989.0,
            N_("published: NVIDIA H100 SXM data sheet, 3.35 TB/s HBM3, 989 TFLOP/s dense BF16")),
)
MODELS = tuple(Model(name, size, 2.0, LAYERS[size], KV_BYTES[size]) for name, size in (("135M", 0.135), ("1B", 1.0),
                                                                                         ("8B", 8.0), ("70B", 70.0)))


def pass_seconds(machine: Machine, model: Model, tokens: int, cached: int = 0) -> float:
    """The roofline's lower bound on one pass of `tokens` tokens that also reads `cached` tokens of KV cache
    (every request's context together; its attention's arithmetic is small beside the weights' and left out)."""
    read = (model.params * 1e9 * model.bytes_per_param + cached * model.kv_bytes) / (machine.bandwidth_gbs * 1e9)
    compute = 2 * model.params * 1e9 * tokens / (machine.tflops * 1e12)
    return max(read, compute)


def v(machine: Machine, model: Model, tokens: int) -> float:
    """A pass of `tokens` tokens in one-token steps, by the roofline."""
    return pass_seconds(machine, model, tokens) / pass_seconds(machine, model, 1)


def here(bandwidth_gbs: float, gflops: float) -> Machine:
    return Machine(N_("this machine, 1 core"), bandwidth_gbs, gflops / 1e3, N_("measured here"))


def ridge(machine: Machine, model: Model) -> float:
    """Tokens per pass at which computing starts to cost more than reading the weights."""
    return machine.tflops * 1e12 * model.bytes_per_param / (2 * machine.bandwidth_gbs * 1e9)

