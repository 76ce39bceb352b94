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

A draft beside such a target streams its weights from memory too: the target's pass evicts
them every round. Its layers are packed in bfloat16 (`pack_draft`), half the bytes, where
the CPU multiplies bfloat16 natively (AVX512-BF16 / AMX): measured with SmolLM2's feature
draft, 19.4 -> 11.5 ms of drafting a round at k = 4 (1 thread), its mean acceptance length
unchanged (1.925 vs 1.916 on 8 chats). Its q moves by about 0.4 % of the largest logit;
exactness does not depend on q (the engine verifies every draft with the target's p and
resamples from the residual of the same q it drafted from).
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


def bf16_available() -> bool:
    """True when oneDNN multiplies bfloat16 natively on this CPU (else it would emulate it)."""
    return available() and torch.ops.mkldnn._is_mkldnn_bf16_supported()


def _packable(weight: torch.Tensor, x: torch.Tensor) -> bool:
    grads = torch.is_grad_enabled() and (weight.requires_grad or x.requires_grad)
    return weight.device.type == "cpu" and weight.dtype == x.dtype == torch.float32 and not grads


class PackedLinear(nn.Linear):
    """An nn.Linear whose CPU float32 inference multiplies by a prepacked copy of its weight
    (float32, or bfloat16 when `pack_dtype` says so; inputs and outputs stay float32)."""
    pack_dtype = torch.float32

    def packed(self) -> torch.Tensor:
        key = (self.weight.data_ptr(), self.weight._version, self.pack_dtype)
        if self.__dict__.get("_pack_key") != key:
            weight = self.weight.detach().to(self.pack_dtype)
            self._pack = torch.ops.mkldnn._reorder_linear_weight(weight, None)
            self._pack_key = key
        return self._pack

    layouts: dict[int, str] = {}     # rows -> "plain" | "packed", timed per machine (kernels.py)

    def layout_for(self, rows: int) -> str:
        """The layout timed for the smallest measured pass of at least `rows` rows (packed if none)."""
        if not self.layouts:
            return "packed"
        fits = [r for r in self.layouts if r >= rows]
        return self.layouts[min(fits) if fits else max(self.layouts)]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not _packable(self.weight, x) or x.numel() == 0:
            return F.linear(x, self.weight, self.bias)
        rows = x.numel() // x.shape[-1]
        if self.pack_dtype == torch.float32 and self.layout_for(rows) == "plain":
            return F.linear(x, self.weight, self.bias)
        flat = x.reshape(rows, x.shape[-1]).contiguous()                      # (rows, in)
        if rows < MIN_ROWS:
            flat = torch.cat([flat, flat.new_zeros(MIN_ROWS - rows, flat.shape[1])])  # (3, in)
        kind = self.pack_dtype
        bias = None if self.bias is None else self.bias.detach().to(kind)
        out = torch.ops.mkldnn._linear_pointwise(flat.to(kind), self.packed(), bias, "none", [], "")
        return out[:rows].float().reshape(*x.shape[:-1], self.out_features)  # (..., out)


def pack_linears(model: nn.Module, dtype: torch.dtype = torch.float32) -> int:
    """Turn every plain nn.Linear of `model` held on the CPU in float32 into a PackedLinear
    (in place) whose copy is laid out now in `dtype`; returns how many were packed."""
    if not (bf16_available() if dtype == torch.bfloat16 else available()):
        return 0
    count = 0
    for module in model.modules():
        if type(module) is nn.Linear and module.weight.device.type == "cpu" \
                and module.weight.dtype == torch.float32:
            module.__class__ = PackedLinear
            if dtype != torch.float32:
                module.pack_dtype = dtype
            module.packed()
            count += 1
    return count


def packed_count(model: nn.Module, dtype: torch.dtype | None = None) -> int:
    """Packed layers of `model` (those packed in `dtype` when given)."""
    return sum(isinstance(m, PackedLinear) and dtype in (None, m.pack_dtype) for m in model.modules())


def linear_bytes(model: nn.Module) -> int:
    return sum(m.weight.numel() * m.weight.element_size() for m in model.modules()
               if isinstance(m, nn.Linear))


def memory_bound(model: nn.Module) -> bool:
    """True when the model's linear weights are too large for the CPU's caches."""
    return linear_bytes(model) >= MIN_BYTES


def pack_draft(target: nn.Module, draft: nn.Module | None) -> int:
    """Pack a draft's linear layers in bfloat16 beside a memory-bound (or packed) target on the CPU."""
    on_cpu = next(target.parameters()).device.type == "cpu"
    if draft is None or not on_cpu or not (packed_count(target) or memory_bound(target)):
        return 0
    return pack_linears(draft, torch.bfloat16)


def unpack_linears(model: nn.Module) -> None:
    """Undo pack_linears: plain nn.Linear again, packed copies dropped."""
    for module in model.modules():
        if type(module) is PackedLinear:
            for key in ("_pack", "_pack_key", "pack_dtype", "layouts"):
                module.__dict__.pop(key, None)
            module.__class__ = nn.Linear
