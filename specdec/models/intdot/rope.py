"""Rotary position embedding through rope.c: q and k of a pass in one call, the same bits as
transformers' `apply_rotary_pos_emb` (elementwise products and sums, each rounded once; tested
equal bit for bit), so the lean pass may use it while the model's own forward uses torch."""
from __future__ import annotations

import torch

from specdec.models.intdot import library


def fits(q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> bool:
    """q (1, T, Hq, D), k (1, T, Hk, D), cos / sin (1, T, D): float32 on the CPU, one sequence."""
    return (library() is not None and q.shape[0] == 1 and cos.shape[0] == 1 and cos.shape[-1] == q.shape[-1]
            and all(t.dtype == torch.float32 and t.device.type == "cpu" for t in (q, k, cos, sin)))


def rotated(q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor):
    """(q, k) rotated, as (1, H, T, D) views like apply_rotary_pos_emb's results."""
    q, k, cos, sin = (t.contiguous() for t in (q, k, cos, sin))
    qo, ko = torch.empty_like(q), torch.empty_like(k)
    _one, rows, heads, dim = q.shape
    library().intdot_rope(q.data_ptr(), k.data_ptr(), qo.data_ptr(), ko.data_ptr(), cos.data_ptr(), sin.data_ptr(),
                          rows, heads, k.shape[2], dim)
    return qo.transpose(1, 2), ko.transpose(1, 2)
