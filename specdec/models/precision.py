"""The precision a memory-bound target's linear layers multiply in: float32, bfloat16 or int4.

Why. A one-token step of SmolLM2-135M streams every weight once, so its time follows the
bytes: measured on a 2-core Intel Xeon (AVX-512, AMX; 1 thread; 64 cached positions) a step
took 77 ms in float32 (538 MB of linear weights), 60 ms with bfloat16 weights and 34 ms with
the GGUF's own 4-bit blocks multiplied by torch's int4 kernel (5 rows: 109 / 67 / 55 ms).

- float32: the GGUF's weights dequantised exactly (the reference; kernels.py picks its layout).
- bfloat16: every linear layer, the LM head included, multiplies a bfloat16 copy of its weight.
- int4: each linear layer of a transformer block multiplies 4-bit weights in groups of 32, one
  scale and one offset per group (`aten._weight_int4pack_mm_for_cpu`). For a GGUF whose
  layers are Q4_1 — SmolLM2's are — these are the file's own blocks, read from the file
  (q4_1.q4_1_blocks): not a further loss. The scale and offset are held in bfloat16, the
  kernel's input type (Q4_1 stores them in float16). Other weights are rounded to such groups
  here. The LM head (Q8_0 in that file) multiplies in bfloat16.

Every layer takes and returns float32, so norms, attention and the residual stream stay in
float32 and the engine sees float32 logits. The Parameters stay untouched (same state_dict,
tied weights stay tied); the copy each precision multiplies is made once per weight. The
reduced-precision target is *the* target: the autoregressive baseline, transformers'
`generate()` on the same modules and the verification pass all run the same layers, and
the int4 and bfloat16 kernels give each row the same result whatever the rows beside it, and
attention.py does the same for attention: a verification pass computes, bit for bit, the
distribution one-token steps compute.
"""
from __future__ import annotations

from enum import StrEnum

import torch
import torch.nn.functional as F
from torch import nn

from specdec.models import attention, intdot
from specdec.models import packed as packing
from specdec.models.intdot import act as rows_act
from specdec.models.intdot import norm as rows_norm
from specdec.models.intdot.linear import IntDotLinear, groups_of
from specdec.models.intdot.linear import make as make_intdot


class Precision(StrEnum):
    """What a target's linear layers multiply in (the values are --precision's and the records' names)."""
    AUTO = "auto"                 # the default: the fastest of PRECISIONS on this CPU (kernels.choose)
    FLOAT32 = "float32"
    BFLOAT16 = "bfloat16"
    INT4 = "int4"
    INTDOT = "intdot"


PRECISIONS = (Precision.FLOAT32, Precision.BFLOAT16, Precision.INT4, Precision.INTDOT)
PRECISION_AUTO = Precision.AUTO
# oneDNN's bfloat16 linear gives a row the same result beside up to 32 others, not beyond (measured
# on the Xeon above); wider passes are cut into such pieces so every row matches a one-row step.
ROWS_SAME = 32
GROUP = 32                        # int4: entries of a row that share a scale and an offset (Q4_1's block)
LABELS = {"float32": "float32", "bfloat16": "bfloat16 weights", "int4": "int4 weights (groups of 32)",
          "intdot": "GGUF blocks × 16-bit activations, integer sums"}


def int4_available() -> bool:
    ops = torch.ops.aten
    return hasattr(ops, "_weight_int4pack_mm_for_cpu") and hasattr(ops, "_convert_weight_to_int4pack_for_cpu")


def available() -> tuple[str, ...]:
    """The precisions this torch build (int4) and this machine's C compiler (intdot) can run."""
    ready = {"int4": int4_available, "intdot": intdot.available}
    return tuple(p for p in PRECISIONS if ready.get(p, lambda: True)())


def int4_fits(module: nn.Linear) -> bool:
    n, k = module.weight.shape
    return k % GROUP == 0 and n % 16 == 0


class Bf16Linear(nn.Linear):
    """An nn.Linear multiplying a bfloat16 copy of its weight (float32 in and out), laid out once
    for oneDNN where the CPU multiplies bfloat16 natively: SmolLM2's LM head (49,152 × 576) took
    7.2 ms a row against 10.3 ms through F.linear, with the same results bit for bit (measured
    on the Intel Xeon of the module docstring; rows beside it change nothing up to ROWS_SAME)."""

    def copy(self) -> tuple[torch.Tensor, torch.Tensor | None, bool]:
        """(weight, bias, packed): the weight in oneDNN's layout when packed."""
        key = (self.weight.data_ptr(), self.weight._version)
        if self.__dict__.get("_copy_key") != key:
            bias = None if self.bias is None else self.bias.detach().bfloat16()
            weight, packed = self.weight.detach().bfloat16(), packing.bf16_available()
            if packed:
                weight = torch.ops.mkldnn._reorder_linear_weight(weight, None)
            self._copy = (weight, bias, packed)
            self._copy_key = key
        return self._copy

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight, bias, packed = self.copy()
        flat = x.reshape(-1, x.shape[-1]).to(torch.bfloat16)                           # (rows, K)
        out = torch.cat([_bf16_rows(rows, weight, bias, packed) for rows in flat.split(ROWS_SAME)])  # (rows, N)
        return out.float().reshape(*x.shape[:-1], self.out_features)


def _bf16_rows(rows: torch.Tensor, weight: torch.Tensor, bias, packed: bool) -> torch.Tensor:
    """(n, K) bfloat16 -> (n, N); oneDNN's packed kernel gets at least MIN_ROWS rows (zeros added)."""
    if not packed:
        return F.linear(rows, weight, bias)
    n = rows.shape[0]
    if n < packing.MIN_ROWS:
        rows = torch.cat([rows, rows.new_zeros(packing.MIN_ROWS - n, rows.shape[1])])
    return torch.ops.mkldnn._linear_pointwise(rows, weight, bias, "none", [], "")[:n]


class Int4Linear(nn.Linear):
    """An nn.Linear multiplying 4-bit weights in groups of GROUP (float32 in and out). `blocks`
    = (q, scale, low) from the GGUF when set before the first call, else rounded from the weight."""
    blocks: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None = None

    def packed(self) -> tuple[torch.Tensor, torch.Tensor]:
        if "_int4" not in self.__dict__:
            q, scale, low = self.blocks if self.blocks is not None else groups_of(self.weight)
            w = torch.ops.aten._convert_weight_to_int4pack_for_cpu(q.to(torch.int32), 2)   # (N, K/2)
            # The kernel computes (q - 8) * scale + offset: offset = low + 8 * scale.
            offsets = torch.stack([scale, low + 8 * scale], -1).transpose(0, 1)          # (K/G, N, 2)
            self._int4 = (w, offsets.contiguous().bfloat16())
            self.__dict__.pop("blocks", None)
        return self._int4

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w, offsets = self.packed()
        flat = x.reshape(-1, x.shape[-1]).to(torch.bfloat16)                           # (rows, K)
        out = torch.ops.aten._weight_int4pack_mm_for_cpu(flat, w, GROUP, offsets).float()  # (rows, N)
        if self.bias is not None:
            out = out + self.bias
        return out.reshape(*x.shape[:-1], self.out_features)


KINDS = {Bf16Linear: Precision.BFLOAT16, Int4Linear: Precision.INT4, IntDotLinear: Precision.INTDOT}


def _linears(model: nn.Module):
    return [(name, m) for name, m in model.named_modules() if isinstance(m, nn.Linear)]


def _reset(module: nn.Linear) -> None:
    for key in ("_copy", "_copy_key", "_int4", "blocks", "_records", "_records_key", "kind", "source"):
        module.__dict__.pop(key, None)
    module.__class__ = nn.Linear


def apply(model: nn.Module, precision: str, blocks: dict | None = None) -> None:
    """Make `model`'s linear layers multiply in `precision` (in place; float32 undoes it).
    `blocks`: module name -> (q, scale, low) of 4-bit groups read from a GGUF."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
    if precision != Precision.FLOAT32:
        packing.unpack_linears(model)
    for name, module in _linears(model):
        if type(module) in KINDS:
            _reset(module)
        if precision == Precision.FLOAT32 or module.weight.device.type != "cpu":
            continue
        head = module is model.get_output_embeddings()
        if precision == Precision.INTDOT:
            # the head as Q8_0 (SmolLM2's GGUF stores it so), every other layer as Q4_1
            make_intdot(module, "q8_0" if head else "q4_1", None if head else (blocks or {}).get(name),
                        gguf=head and bool(blocks))
        elif precision == Precision.INT4 and not head and int4_fits(module):
            module.__class__ = Int4Linear
            if blocks and name in blocks:
                module.blocks = blocks[name]
            module.packed()
        else:
            module.__class__ = Bf16Linear
            module.copy()
    _c_modules(model, precision == Precision.INTDOT)
    attention.use(model, precision != Precision.FLOAT32)     # rows as one-token steps compute them
    model.precision = Precision(precision)
    model.precision_source = "gguf" if precision in (Precision.INT4, Precision.INTDOT) and blocks else "rounded"


def _c_modules(model: nn.Module, on: bool) -> None:
    """intdot: norms and the MLPs' activation in one C call each (intdot/norm.py, act.py), the
    functions the lean pass's one-call layers use (intdot/layer.py); off: torch's own again."""
    for module in model.modules():
        (rows_norm.use if on else rows_norm.reset)(module)
        (rows_act.use if on else rows_act.reset)(module)


def draft_intdot(draft: nn.Module) -> int:
    """A draft beside an intdot target multiplies through the same kernels, every layer rounded to
    Q8_0 (blocks of 32 int8 weights). Measured with SmolLM2's feature draft (AMD EPYC, Zen 3,
    AVX2, 1 thread, 6 held-out chats x 48 tokens, T = 0): a draft step 6.9 -> 4.3 ms, its mean
    acceptance length 1.84 -> 1.83 at k = 2 and 2.24 -> 2.23 at k = 4 (Q4_1 layers: 3.8 ms but
    1.72 and 2.02). Its q moves a little; exactness does not depend on q (the engine verifies each
    draft with the target's p against the q it was drawn from). Returns how many layers changed;
    layers off the CPU or not float32 stay as they are."""
    changed = 0
    for _, module in _linears(draft):
        if type(module) is nn.Linear and module.weight.device.type == "cpu" and module.weight.dtype == torch.float32:
            make_intdot(module, "q8_0")
            changed += 1
    if changed:
        _c_modules(draft, True)
        for model in _pretrained(draft):          # rows in C: its lean pass then runs layer.c
            attention.use(model, True)
    draft.precision = Precision.INTDOT if changed else of(draft)
    return changed


def _pretrained(module: nn.Module) -> list:
    """The transformers models in `module` (itself, or a wrapper's, as a feature draft's net)."""
    from transformers import PreTrainedModel
    return [m for m in module.modules() if isinstance(m, PreTrainedModel) and hasattr(m, "set_attn_implementation")]


def of(model: nn.Module) -> str:
    return getattr(model, "precision", Precision.FLOAT32)


def weight_bytes(model: nn.Module) -> int:
    """Bytes of linear weights a one-token step reads in the model's precision (int4: half a
    byte per weight and 4 bytes of scale and offset per group of 32)."""
    total = 0
    for _, m in _linears(model):
        n = m.weight.numel()
        kind = KINDS.get(type(m))
        if kind == Precision.INTDOT:
            kind = m.kind
        total += n * {"bfloat16": 2, "int4": 0.5 + 4 / GROUP, "q4_1": 0.5 + 8 / GROUP,
                      "q8_0": 1 + 4 / GROUP}.get(kind, m.weight.element_size())
    return int(total)


def describe(model: nn.Module) -> str:
    precision = of(model)
    if precision == Precision.INT4:
        source = "the GGUF's Q4_1 blocks" if model.precision_source == "gguf" else "rounded from float weights"
        return f"int4 weights in groups of {GROUP} ({source}), LM head in bfloat16"
    if precision == Precision.INTDOT:
        return _describe_intdot(model)
    return LABELS[precision]


def _describe_intdot(model: nn.Module) -> str:
    """Which blocks the layers and the head multiply (the GGUF's own or rounded here), and the kernel."""
    layers = [m for _, m in _linears(model) if type(m) is IntDotLinear]
    how = f"× 16-bit activations, integer sums ({intdot.kernel()} kernel)"
    if layers and all(m.source == "gguf" for m in layers):
        return f"the GGUF's own Q4_1 layers and Q8_0 head {how}"
    return f"Q4_1 layers and Q8_0 head rounded from float weights {how}"
