"""Linear layers whose weights are laid out once for oneDNN, so a pass of a few rows reads
each weight matrix once: the verification pass of k + 1 tokens then costs about one step.

Why. SmolLM2-135M on this CPU is memory-bound: a one-token step streams 538 MB of float32
weights. torch's default float32 linear (MKL sgemm) repacks the weight matrix on every call
when the input has a few rows, so verifying k + 1 = 5 tokens cost 1.7 one-token steps and
3 tokens 2.0 (1 thread, 100 cached positions). oneDNN's prepacked layout
(`torch.ops.mkldnn._reorder_linear_weight`, the layout torch.compile's weight freezing
uses) is made once at load; then 1 / 3 / 5 / 9 rows cost 51 / 53 / 51 / 61 ms against
57 / 116 / 95 / 105 ms unpacked (2 threads: 43 / 45 / 43 / 48 ms against 58 / 126 / 77 /
89). oneDNN is slowest at one or two rows, so those are padded with zero rows to three.

The Parameters are untouched (same tensors, same state_dict, tied weights stay tied). The
packed copy is remade when a weight changes in place; training (grad enabled), a weight off
the CPU or not float32 takes the ordinary path. Outputs equal F.linear's up to float32
rounding (a different summation order), the same kind of difference a (k+1)-row pass already
has from one-row steps (DESIGN.md §2).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

MIN_ROWS = 3     # oneDNN's few-row kernel is fastest from three rows up here (measured above)
# Packing pays only where the weights stream from memory. Measured (1 thread, one-token step):
# SmolLM2-135M (513 MB of linear weights) 57 -> 51 ms; but the cache-resident stdlib target
# (23 MB) 7.5 -> 10.3 ms and the SmolLM2 feature draft (43 MB) lost 9 % end to end.
MIN_BYTES = 128 * 2**20


def available() -> bool:
    """True when this torch build has oneDNN's packed linear."""
    ops = torch.ops.mkldnn
    return torch.backends.mkldnn.is_available() and hasattr(ops, "_linear_pointwise") \
        and hasattr(ops, "_reorder_linear_weight")


def _packable(weight: torch.Tensor, x: torch.Tensor) -> bool:
    grads = torch.is_grad_enabled() and (weight.requires_grad or x.requires_grad)
    return weight.device.type == "cpu" and weight.dtype == x.dtype == torch.float32 and not grads


class PackedLinear(nn.Linear):
    """An nn.Linear whose CPU float32 inference multiplies by a prepacked copy of its weight."""

    def packed(self) -> torch.Tensor:
        key = (self.weight.data_ptr(), self.weight._version)
        if self.__dict__.get("_pack_key") != key:
            self._pack = torch.ops.mkldnn._reorder_linear_weight(self.weight.detach(), None)
            self._pack_key = key
        return self._pack

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not _packable(self.weight, x) or x.numel() == 0:
            return F.linear(x, self.weight, self.bias)
        rows = x.numel() // x.shape[-1]
        flat = x.reshape(rows, x.shape[-1]).contiguous()                      # (rows, in)
        if rows < MIN_ROWS:
            flat = torch.cat([flat, flat.new_zeros(MIN_ROWS - rows, flat.shape[1])])  # (3, in)
        out = torch.ops.mkldnn._linear_pointwise(flat, self.packed(), self.bias, "none", [], "")
        return out[:rows].reshape(*x.shape[:-1], self.out_features)          # (..., out)


def pack_linears(model: nn.Module) -> int:
    """Turn every plain nn.Linear of `model` held on the CPU in float32 into a PackedLinear
    (in place) and lay its weight out now; returns how many were packed."""
    if not available():
        return 0
    count = 0
    for module in model.modules():
        if type(module) is nn.Linear and module.weight.device.type == "cpu" \
                and module.weight.dtype == torch.float32:
            module.__class__ = PackedLinear
            module.packed()
            count += 1
    return count


def packed_count(model: nn.Module) -> int:
    return sum(isinstance(m, PackedLinear) for m in model.modules())


def linear_bytes(model: nn.Module) -> int:
    return sum(m.weight.numel() * m.weight.element_size() for m in model.modules()
               if isinstance(m, nn.Linear))


def pack_if_memory_bound(model: nn.Module) -> int:
    """pack_linears for a model whose linear weights are too large for the CPU's caches."""
    return pack_linears(model) if linear_bytes(model) >= MIN_BYTES else 0


def unpack_linears(model: nn.Module) -> None:
    """Undo pack_linears: plain nn.Linear again, packed copies dropped."""
    for module in model.modules():
        if type(module) is PackedLinear:
            module.__dict__.pop("_pack", None)
            module.__dict__.pop("_pack_key", None)
            module.__class__ = nn.Linear
