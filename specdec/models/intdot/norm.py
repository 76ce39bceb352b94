"""RMS normalisation through norm.c: one call a norm instead of six torch operations.

An intdot model's RMSNorm modules take a subclass whose forward calls the C function (the
class swap of swap.py: the Parameters stay untouched, the same module serves the lean
pass, the model's own forward, trees and batches, so every path computes the same numbers).
"""
from __future__ import annotations

import torch
from torch import nn

from specdec.models.intdot import library
from specdec.models.intdot.swap import Swap


def fits(module: nn.Module) -> bool:
    """An RMSNorm of transformers' form: a weight over the last dimension and variance_epsilon."""
    return (type(module).__name__.endswith("RMSNorm") and isinstance(getattr(module, "weight", None), torch.Tensor)
            and module.weight.dim() == 1 and isinstance(getattr(module, "variance_epsilon", None), float)
            and module.weight.dtype == torch.float32 and module.weight.device.type == "cpu")


def _forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
    x = hidden_states.float().contiguous()
    out = torch.empty_like(x)
    k = x.shape[-1]
    library().intdot_rmsnorm(x.data_ptr(), self.weight.data_ptr(), out.data_ptr(), x.numel() // k, k,
                             self.variance_epsilon)
    return out.to(hidden_states.dtype)


SWAP = Swap("rows_norm", _forward, fits)
in_c, use, reset = SWAP.in_c, SWAP.use, SWAP.reset
