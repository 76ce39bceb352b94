"""The forward pass with a KV cache, and the cache helpers every round uses (a leaf: no loading).

Rollback goes through the public `DynamicCache.crop`; a tree round, which keeps a non-contiguous
set of rows, indexes each layer's key/value tensors (`keep_positions`).
"""
from __future__ import annotations

import contextlib
import threading

import torch

from specdec.errors import InputError
from specdec.models import lean
from specdec.models.reduced_vocab import ReducedVocabLM, scatter_logits


@torch.no_grad()
def forward(model, ids: list[int], cache, vocab_size: int, keep: int = 0) -> torch.Tensor:
    """Feed `ids` after what `cache` holds; returns (T, vocab_size) float32 logits on CPU for
    the last T = `keep` positions (0 = all): the LM head runs on those rows only."""
    device = next(model.parameters()).device
    x = torch.tensor([ids], dtype=torch.long, device=device)          # (1, len(ids))
    if lean.fits(model):                                              # the same numbers, less time
        logits = lean.forward(model, x, cache, keep)
    elif isinstance(model, ReducedVocabLM) and lean.fits(model.inner):   # its body and head, then its ids
        logits = scatter_logits(lean.forward(model.inner, model.to_draft[x], cache, keep), model.keep_ids,
                                model.config.vocab_size)
    else:
        logits = model(input_ids=x, cache=cache, use_cache=True, logits_to_keep=keep).logits
    return logits[0, :, :vocab_size].float().cpu()                    # (T, V)


@torch.no_grad()
def forward_batch(model, ids: torch.Tensor, cache, positions: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    """A batch's pass (engine/batch.py): ids (B, R) at positions (B, R) under `mask` (B, 1, R,
    T + R), or None for one request that sees its whole cache -> logits (B, R, V), on the lean
    pass where it applies (for one request: the very pass `forward` runs), else the model's own."""
    if mask is None and lean.fits(model):
        return lean.forward(model, ids, cache)
    if mask is not None and lean.batch_fits(model):
        return lean.forward_rows(model, ids, cache, positions, mask)
    return model(input_ids=ids, attention_mask=mask, position_ids=positions, cache=cache, use_cache=True).logits


@contextlib.contextmanager
def final_hidden_states(model, batched: bool = False):
    """Collects the decoder body's final hidden states (T, H) of every forward this thread runs
    inside the block (batched: all sequences, (B, T, H)) (a hook on the body's output, so the
    model's own logits are untouched).
    The model is shared: the app's sessions run it from several threads at once, and a hook
    sees every thread's forwards, so it keeps only those of the thread that opened the block."""
    seen: list[torch.Tensor] = []
    owner = threading.get_ident()

    def grab(module, args, out) -> None:
        if threading.get_ident() == owner:
            states = out.last_hidden_state.float().cpu()
            seen.append(states if batched else states[0])
    lean_seen = _LeanStates(seen, batched)
    hook = model.get_decoder().register_forward_hook(grab)
    before = lean.collect(model, lean_seen)              # passes that skip the body's hooks
    try:
        yield seen
    finally:
        hook.remove()
        lean.collect(model, before)


class _LeanStates:
    """Receives lean.forward's final hidden states (1, T, H) as the hook would."""

    def __init__(self, seen: list, batched: bool):
        self.seen, self.batched = seen, batched

    def append(self, states: torch.Tensor) -> None:
        states = states.float().cpu()
        self.seen.append(states if self.batched else states[0])


def forward_with_features(model, ids: list[int], cache, vocab_size: int,
                          keep: int) -> tuple[torch.Tensor, torch.Tensor]:
    """`forward`, plus the final hidden states of all fed positions, (T, H) float32 on CPU."""
    with final_hidden_states(model) as seen:
        logits = forward(model, ids, cache, vocab_size, keep)
    return logits, seen[-1]


def new_cache(model):
    """A cache every round can roll back. A sliding-window layer (Gemma 3: 5 layers in 6 see the
    last 512 positions) forgets what falls out of its window, and its crop refuses once the window
    is full; such a model gets layers that keep every position, and its own mask still shows each
    layer only its window (the same logits: tests/test_gemma3.py compares with no cache at all)."""
    from transformers import DynamicCache
    cache = DynamicCache(config=model.config)
    if any(getattr(layer, "is_sliding", False) for layer in cache.layers):
        return DynamicCache(ddp_cache_data=[(None, None)] * len(cache.layers))     # empty full layers
    return cache


def keep_positions(cache, keep: list[int]) -> None:
    """Keep only these cached positions, in this order (a tree round keeps its accepted path).
    DynamicCache has no public gather, so each layer's key/value tensors (B, heads, T, d)
    are indexed directly; a cache without per-layer `keys`/`values` gets a clear error."""
    for layer in getattr(cache, "layers", []):
        if not hasattr(layer, "keys") or not hasattr(layer, "values"):
            raise InputError("tree drafting needs a dynamic KV cache with per-layer keys and "
                             f"values; this model uses {type(layer).__name__}: choose a chain drafter")
        if getattr(layer, "keys", None) is None or layer.keys.numel() == 0:
            continue
        index = torch.tensor(keep, device=layer.keys.device)
        layer.keys, layer.values = layer.keys[..., index, :], layer.values[..., index, :]


def crop_cache(cache, valid_len: int) -> None:
    """Keep the first `valid_len` positions (public DynamicCache.crop: negative = drop last n)."""
    extra = cache.get_seq_length() - valid_len
    if extra > 0:
        cache.crop(-extra)


def keep_rows(cache, prefix_len: int, rows: list[int]) -> None:
    """Keep the first `prefix_len` positions and then `rows` (ascending): a chain's accepted
    drafts follow the prefix, so its rollback is the public crop; a tree's path may skip rows."""
    if rows == list(range(prefix_len, prefix_len + len(rows))):
        crop_cache(cache, prefix_len + len(rows))
    else:
        keep_positions(cache, list(range(prefix_len)) + rows)
