"""SiLU through act.c: an intdot model's MLP activation, so the model's own forward and the lean
pass's one-call layer (layer.c) compute the same bits (torch's silu differs in the last bit).

The activation module takes a subclass whose forward calls the C function (a class swap, as
norm.py does for RMS norms; nothing else changes)."""
from __future__ import annotations

import functools

import torch
from torch import nn

from specdec.models.intdot import library


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


@functools.cache
def _rows_class(cls: type) -> type:
    return type(f"Rows{cls.__name__}", (cls,), {"forward": _forward, "rows_act": True})


def in_c(module: nn.Module) -> bool:
    return getattr(type(module), "rows_act", False)


def use(module: nn.Module) -> None:
    if fits(module) and not in_c(module):
        module.__class__ = _rows_class(type(module))


def reset(module: nn.Module) -> None:
    if in_c(module):
        module.__class__ = type(module).__bases__[0]
