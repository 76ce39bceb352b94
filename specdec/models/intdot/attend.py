"""Row-by-row attention through attend.c: one call for every query row and head of a sequence.

The same numbers whoever calls it (the lean pass, the model's own forward, a tree, a batch's
sequence), and a row's result does not depend on the rows beside it. Used by attention.py for
float32 CPU tensors whose head dimension is contiguous, when the library is built.
"""
from __future__ import annotations

import torch

from specdec.models.intdot import library


def fits(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor) -> bool:
    return (library() is not None and all(t.dtype == torch.float32 and t.device.type == "cpu"
                                          for t in (query, key, value))
            and query.stride(-1) == 1 and key.stride(-1) == 1 and value.stride(-1) == 1
            and key.stride(-2) == key.shape[-1] and value.stride(-2) == value.shape[-1])


def attend(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, seen: list, scale: float) -> torch.Tensor:
    """query (1, H, q, d), key / value (1, Hkv, L, d), seen: per row a count of the first keys or
    a tensor of key indices -> (1, q, H, d)."""
    _one, heads, rows, dim = query.shape
    counts = torch.tensor([s if isinstance(s, int) else len(s) for s in seen], dtype=torch.int64)
    index = offsets = None
    if not all(isinstance(s, int) for s in seen):
        lists = [torch.arange(s) if isinstance(s, int) else s.to(torch.int64) for s in seen]
        index = torch.cat(lists).contiguous()
        offsets = torch.cumsum(counts, 0) - counts
    out = torch.empty(rows, heads, dim, dtype=torch.float32)
    scratch = torch.empty(max(int(counts.max()), 1), dtype=torch.float32)
    pointer = lambda t: None if t is None else t.data_ptr()  # noqa: E731
    library().intdot_attend(query.data_ptr(), query.stride(1), query.stride(2), key.data_ptr(), key.stride(1),
                            value.data_ptr(), value.stride(1), heads, heads // key.shape[1], rows, dim,
                            counts.data_ptr(), pointer(offsets), pointer(index), scale, out.data_ptr(),
                            scratch.data_ptr())
    return out[None]
