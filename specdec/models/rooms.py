"""A KV cache that grows in place: each DynamicLayer's keys and values are the first rows of
buffers with room to spare (doubling), so a pass writes its own rows instead of copying the whole
cache (lean.py's passes; torch.cat took 5 ms of a 50 ms SmolLM2 step at 400 cached positions)."""
from __future__ import annotations

import functools
import weakref

import torch

ROOMS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # cache layer -> (keys, values) buffers


def append(cache, index: int, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """cache.update(k, v, index), writing in place (k, v: (B, Hkv, T, d)): see reserve."""
    room = reserve(cache, index, k.shape[-2])
    if room is None:
        return cache.update(k, v, index)
    keys, values, n = room
    t = k.shape[-2]
    keys[..., n:n + t, :] = k
    values[..., n:n + t, :] = v
    return keys[..., :n + t, :], values[..., :n + t, :]


def reserve(cache, index: int, t: int, empty: torch.Tensor | None = None):
    """Room for t more positions in layer `index`'s cache: (keys, values, n), buffers (B, Hkv,
    cap, d) whose first n rows are the cache; the layer's keys and values become their first
    n + t rows, which the caller writes. None where the cache is not a DynamicLayer of that form
    (then cache.update serves); `empty` (1, Hkv, 0, d) starts a layer that holds nothing yet.

    Why: a DynamicLayer's keys and values become the first rows of buffers with room to grow
    (doubling), so a pass writes its own rows instead of copying the whole cache (torch.cat took
    5 ms of a 50 ms SmolLM2 step at 400 cached positions). Crops keep the views; anything that
    replaces the tensors (a tree's gather, a batch, the model's own forward) is copied into new
    room on the next pass."""
    layers = getattr(cache, "layers", None)
    layer = layers[index] if layers is not None and index < len(layers) else None
    if empty is not None and type(layer) is _dynamic() and not layer.is_initialized:
        cache.update(empty, empty, index)
    if type(layer) is not _dynamic() or not layer.is_initialized or layer.keys.dim() != 4:
        return None
    n = layer.keys.shape[-2]
    room = ROOMS.get(layer)
    if room is None or not (_starts(layer.keys, room[0]) and _starts(layer.values, room[1])) \
            or n + t > room[0].shape[-2]:
        room = (_grown(layer.keys, n + t), _grown(layer.values, n + t))
        ROOMS[layer] = room
    layer.keys, layer.values = room[0][..., :n + t, :], room[1][..., :n + t, :]
    return room[0], room[1], n


@functools.cache
def _dynamic() -> type:
    from transformers.cache_utils import DynamicLayer
    return DynamicLayer


def _starts(view: torch.Tensor, room: torch.Tensor) -> bool:
    """True when `view` is room[..., :n, :] (what a crop of our own view leaves)."""
    return view.data_ptr() == room.data_ptr() and view.stride() == room.stride() and \
        view.shape[:-2] == room.shape[:-2] and view.shape[-1] == room.shape[-1]


def _grown(tensor: torch.Tensor, need: int) -> torch.Tensor:
    """(B, heads, 2·need or 256, d) holding `tensor`'s positions first."""
    room = tensor.new_empty(*tensor.shape[:-2], max(256, 2 * need), tensor.shape[-1])
    room[..., :tensor.shape[-2], :] = tensor
    return room
