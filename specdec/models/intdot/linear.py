"""Linear layers that multiply through the integer kernels (kernel.c): Q4_1 or Q8_0 weight
records times activations quantised per row in blocks of 32 (16-bit); float32 in and out.

A layer's weights become one record per output column (kernel.c's layout): from the GGUF's
own Q4_1 blocks where they are given (precision.py reads them), else rounded here to Q4_1
(`q4_1_of`) or Q8_0 (`q8_0_of`: exact where the weights were Q8_0 blocks, as SmolLM2's head is).
Layers whose input width is not a multiple of 32 get zero columns added: zeros add nothing to
an integer sum. The Parameters stay untouched.
"""
from __future__ import annotations

import torch
from torch import nn

from specdec.models.intdot import QK, kernel, library

Blocks = tuple[torch.Tensor, torch.Tensor, torch.Tensor]          # q uint8 (N, K), scale, low (N, K/32)
GROUP_COLUMNS = 8                                                  # kernel.c's interleaved groups


def padded(k: int) -> int:
    return -(-k // QK) * QK


def _pad(t: torch.Tensor, k: int) -> torch.Tensor:
    return t if t.shape[-1] == k else torch.nn.functional.pad(t, (0, k - t.shape[-1]))


def groups_of(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """float (N, K) -> q uint8 (N, K) in 0..15, scale (N, K/QK), low (N, K/QK):
    weight ≈ q * scale + low per group (min/max rounding, as Q4_1 does)."""
    n, k = weight.shape
    g = weight.detach().float().reshape(n, k // QK, QK)                     # (N, K/G, G)
    low, high = g.amin(-1), g.amax(-1)
    scale = ((high - low) / 15).clamp_min(1e-12)
    q = ((g - low[..., None]) / scale[..., None]).round().clamp(0, 15).to(torch.uint8)
    return q.reshape(n, k), scale, low


def q4_1_of(weight: torch.Tensor) -> Blocks:
    """float (N, K) -> 4-bit blocks with min/max rounding (Q4_1's own rule), K padded to 32."""
    return groups_of(_pad(weight.detach().float(), padded(weight.shape[1])))


def q8_0_of(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, bool]:
    """float (N, K) -> (q int8 (N, K'), d float (N, K'/32), exact): d = max|w| / 127 per block.
    `exact` when q * d gives the weights back bit for bit (weights that were Q8_0 blocks)."""
    w = _pad(weight.detach().float(), padded(weight.shape[1]))
    n, k = w.shape
    g = w.reshape(n, k // QK, QK)                                                   # (N, K/32, 32)
    d = g.abs().amax(-1) / 127                                                      # (N, K/32)
    safe = torch.where(d > 0, d, torch.ones_like(d))
    q = (g / safe[..., None]).round().clamp(-127, 127)
    exact = torch.equal(q * d[..., None], g)
    return q.to(torch.int8).reshape(n, k), d, exact


def q4_1_records(blocks: Blocks) -> torch.Tensor:
    """(q, scale, low) -> uint8 (N, K/2 + 8 K/32): per column its nibbles, scales and lows;
    whole groups of 8 columns interleaved (kernel.c's GROUP layout), the last N % 8 one by one."""
    q, scale, low = blocks
    n, k = q.shape
    whole = n - n % GROUP_COLUMNS
    g = q.to(torch.uint8).reshape(n, k // QK, QK)
    nibbles = (g[..., :QK // 2] | (g[..., QK // 2:] << 4)).reshape(n, k // 2)       # llama.cpp's order
    floats = torch.cat([scale.float(), low.float()], 1).contiguous().view(torch.uint8)
    tail = torch.cat([nibbles, floats], 1)[whole:]
    groups = g[:whole].reshape(-1, GROUP_COLUMNS, k // QK, 2, 8, 2)          # (G, c, b, half, j, e)
    packed = groups[:, :, :, 0] | (groups[:, :, :, 1] << 4)                    # (G, c, b, j, e)
    packed = packed.permute(0, 2, 3, 1, 4).reshape(-1, k // QK, 128)          # (G, b, j c e) bytes
    blocks = torch.cat([packed, _per_block(scale[:whole])], 2).reshape(len(packed), -1)    # (G, b (qs d))
    head = torch.cat([blocks, _per_block(low[:whole]).reshape(len(packed), -1)], 1)
    return torch.cat([head.reshape(whole, -1), tail]).contiguous()


def q8_0_records(q: torch.Tensor, d: torch.Tensor) -> torch.Tensor:
    """q int8 (N, K), d (N, K/32) -> uint8 (N, K + 4 K/32), whole groups of 8 columns
    interleaved (kernel.c's GROUP layout), the last N % 8 one by one."""
    n, k = q.shape
    whole = n - n % GROUP_COLUMNS
    tail = torch.cat([q.view(torch.uint8), d.float().contiguous().view(torch.uint8)], 1)[whole:]
    groups = q.view(torch.uint8)[:whole].reshape(-1, GROUP_COLUMNS, k // QK, 16, 2)     # (G, c, b, p, e)
    packed = groups.permute(0, 2, 3, 1, 4).reshape(-1, k // QK, 256)                     # (G, b, p c e) bytes
    head = torch.cat([packed, _per_block(d[:whole])], 2).reshape(len(packed), -1)          # (G, b (qs d))
    return torch.cat([head.reshape(whole, -1), tail]).contiguous()


def _per_block(values: torch.Tensor) -> torch.Tensor:
    """(G·8, nb) floats -> (G, nb, 8·4) bytes: per group and block, the 8 columns' values."""
    nb = values.shape[1]
    grouped = values.float().reshape(-1, GROUP_COLUMNS, nb).transpose(1, 2).contiguous()   # (G, nb, 8)
    return grouped.view(torch.uint8).reshape(-1, nb, GROUP_COLUMNS * 4)


def quantised(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """x float32 (M, K) -> xq int16 (M, K), xd, xs float32 (M, K/32) (kernel.c's activations:
    16-bit integers per block of 32, their scales and scaled sums)."""
    m, k = x.shape
    xq = torch.empty(m, k, dtype=torch.int16)
    xd, xs = torch.empty(m, k // QK, dtype=torch.float32), torch.empty(m, k // QK, dtype=torch.float32)
    library().intdot_quantise(x.data_ptr(), xq.data_ptr(), xd.data_ptr(), xs.data_ptr(), m, k)
    return xq, xd, xs


def product(kind: str, records: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """x (..., K) float -> (..., N) float32 through `records` (N columns of `kind`)."""
    flat = _pad(x.reshape(-1, x.shape[-1]).float(), _width(kind, records)).contiguous()   # (M, K')
    m, k = flat.shape
    xq, xd, xs = quantised(flat)
    y = torch.empty(m, records.shape[0], dtype=torch.float32)                      # (M, N)
    lib, n = library(), records.shape[0]
    if kind == "q4_1":
        lib.intdot_q4_1(records.data_ptr(), xq.data_ptr(), xd.data_ptr(), xs.data_ptr(), y.data_ptr(), m, n, k)
    else:
        lib.intdot_q8_0(records.data_ptr(), xq.data_ptr(), xd.data_ptr(), y.data_ptr(), m, n, k)
    return y.reshape(*x.shape[:-1], records.shape[0])


def _width(kind: str, records: torch.Tensor) -> int:
    """K' (a multiple of 32) from a record's size: K/2 + K/4 bytes (Q4_1) or K + K/8 (Q8_0)."""
    size = records.shape[1]
    return size * 4 // 3 if kind == "q4_1" else size * 8 // 9


class IntDotLinear(nn.Linear):
    """An nn.Linear multiplying through the integer kernels. `kind` "q4_1" or "q8_0";
    `source` "gguf" (the file's own blocks) or "rounded"."""
    kind = "q4_1"
    source = "rounded"

    def records(self) -> torch.Tensor:
        key = (self.weight.data_ptr(), self.weight._version)
        if self.__dict__.get("_records_key") != key:
            self._records = self._made()
            self._records_key = key
        return self._records

    def _made(self) -> torch.Tensor:
        blocks = self.__dict__.pop("blocks", None)
        if self.kind == "q8_0":
            q, d, exact = q8_0_of(self.weight)
            self.source = "gguf" if exact and self.source == "gguf" else "rounded"
            return q8_0_records(q, d)
        if blocks is None:
            self.source = "rounded"
        return q4_1_records(blocks if blocks is not None else q4_1_of(self.weight))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = product(self.kind, self.records(), x)
        return out + self.bias if self.bias is not None else out


def make(module: nn.Linear, kind: str, blocks: Blocks | None = None, gguf: bool = False) -> None:
    """Turn `module` into an IntDotLinear of `kind` (in place), its records made now."""
    kernel()                                  # the instruction set is chosen before any product
    module.__class__ = IntDotLinear
    module.kind = kind
    module.source = "gguf" if (blocks is not None or gguf) else "rounded"
    if blocks is not None:
        module.blocks = blocks
    module.records()


def stacked(layers: list[IntDotLinear]) -> torch.Tensor | None:
    """The records of bias-free layers of one kind and input width, stacked (one product serves
    them all: columns never mix, so each layer's slice is its own product bit for bit, where every
    layer but the last has whole groups of 8 columns)."""
    if len({(m.kind, m.in_features) for m in layers}) != 1 or any(m.bias is not None for m in layers):
        return None
    if any(m.out_features % GROUP_COLUMNS for m in layers[:-1]):      # a group would straddle two layers
        return None
    return torch.cat([m.records() for m in layers])
