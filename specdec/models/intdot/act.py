"""SiLU through act.c: an intdot model's MLP activation, so the model's own forward and the lean
pass's one-call layer (layer.c) compute the same bits (torch's silu differs in the last bit).

The activation module takes a subclass whose forward calls the C function (a class swap, as
norm.py does for RMS norms; nothing else changes)."""
from __future__ import annotations

import torch
from torch import nn

from specdec.models.intdot import library
from specdec.models.intdot.swap import Swap


def fits(module: nn.Module) -> bool:
    """transformers' SiLU activation module (the one Llama's MLP holds as act_fn)."""
    return type(module).__name__ == "SiLUActivation" or type(module) is nn.SiLU


def _forward(self, x: torch.Tensor) -> torch.Tensor:
    if x.dtype != torch.float32 or x.device.type != "cpu":
        return super(type(self), self).forward(x)
    flat = x.contiguous()
    out = torch.empty_like(flat)
    library().intdot_silu(flat.data_ptr(), out.data_ptr(), flat.numel())
    return out


SWAP = Swap("rows_act", _forward, fits)
in_c, use, reset = SWAP.in_c, SWAP.use, SWAP.reset
