"""Attention that gives every row the result a one-token step would: verification then computes
bit for bit the distribution autoregressive decoding computes.

Why. A (k+1)-row pass and k+1 one-row steps differ in summation order (DESIGN.md §2): in
float32 the logits move by about 1e-4. With bfloat16 matmul inputs (precision.py) each such
difference can flip a rounding, and on SmolLM2 the logits of a 5-row pass and of one-row steps
differed by up to 0.9, enough to change a greedy token in one chat of six. The linear layers in
bfloat16 and int4 give each row the same result whatever the rows beside it; torch's fused
attention does not (one query row takes another path than several). So here each query row is
multiplied on its own against exactly the keys it sees (a prefix, or a tree node's ancestors,
gathered in cache order): the same call, on the same numbers, as the one-row step at that
position. Where the C library is built (intdot/attend.c) every row and head of a sequence goes
in one call with the same arithmetic (fixed order, no fused or reordered float steps), else torch
computes each row as below: per row and layer about one extra small matmul (a 5-row pass of
SmolLM2: ~2 ms of ~50). Measured on a 2-core AMD EPYC (Zen 3, 1 thread), the intdot target's
5-row pass went from 2.00 to 1.79 one-token steps with the C call.

Registered with transformers' attention interface as "specdec_rows" (masks as for "sdpa").
"""
from __future__ import annotations

import weakref

import torch

from specdec.models.intdot.attend import attend as rows_in_c
from specdec.models.intdot.attend import fits as rows_fit

NAME = "specdec_rows"


def _visible(mask: torch.Tensor | None, q: int, length: int, b: int = 0) -> list[torch.Tensor | int]:
    """Per query row of sequence b: the count of a visible prefix, or the indices of visible keys."""
    if mask is None:                                    # causal: rows are the last q positions
        return [length - q + i + 1 for i in range(q)]
    rows = mask[b, 0] if mask.dtype == torch.bool else mask[b, 0] == 0                  # (q, L)
    counts, prefix = rows.sum(-1), rows.cumprod(-1).sum(-1)
    return [int(c) if int(c) == int(p) else rows[i].nonzero()[:, 0]
            for i, (c, p) in enumerate(zip(counts.tolist(), prefix.tolist()))]


def rows_attention(module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                   attention_mask: torch.Tensor | None, scaling: float | None = None,
                   dropout: float = 0.0, **kwargs) -> tuple[torch.Tensor, None]:
    """query (B, H, q, d), key / value (B, Hkv, L, d) -> (B, q, H, d), one query row at a time
    (a batch of requests: each sequence against its own visible keys, engine/batch.py)."""
    batch, heads, q, dim = query.shape
    if batch > 1 and attention_mask is None:
        raise ValueError("row-by-row attention over a batch needs the batch's mask")
    out = [_one_sequence(query[b:b + 1], key[b:b + 1], value[b:b + 1], attention_mask, b, scaling)
           for b in range(batch)]
    return torch.cat(out), None


def _one_sequence(query, key, value, attention_mask, b: int, scaling: float | None) -> torch.Tensor:
    """query (1, H, q, d), key / value (1, Hkv, L, d) of sequence b -> (1, q, H, d)."""
    _one, heads, q, dim = query.shape
    kv_heads, length = key.shape[1], key.shape[2]
    scale = dim ** -0.5 if scaling is None else scaling
    if rows_fit(query, key, value):                      # one C call for every row and head
        return rows_in_c(query, key, value, _visible(attention_mask, q, length, b), scale)
    groups = query.view(kv_heads, heads // kv_heads, q, dim)                     # (Hkv, G, q, d)
    out = []
    for i, seen in enumerate(_visible(attention_mask, q, length, b)):
        if isinstance(seen, int):
            k, v = key[0, :, :seen], value[0, :, :seen]                          # (Hkv, n, d)
        else:
            k, v = key[0, :, seen], value[0, :, seen]
        scores = torch.matmul(groups[:, :, i], k.transpose(1, 2)) * scale          # (Hkv, G, n)
        out.append(torch.matmul(scores.softmax(-1), v))                            # (Hkv, G, d)
    return torch.stack(out).reshape(q, heads, dim)[None]                           # (1, q, H, d)


def register() -> str:
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask
    AttentionInterface.register(NAME, rows_attention)
    AttentionMaskInterface.register(NAME, sdpa_mask)
    return NAME


_BEFORE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # model -> the attention it had


def use(model, on: bool) -> None:
    """Switch `model` to row-by-row attention (on) or back to the attention it had before."""
    current = model.config._attn_implementation
    if on and current != NAME:
        _BEFORE[model] = current
        model.set_attn_implementation(register())
    elif not on and current == NAME:
        model.set_attn_implementation(_BEFORE.pop(model, "sdpa"))
