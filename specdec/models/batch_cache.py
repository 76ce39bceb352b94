"""The target's KV cache of many requests in one tensor per layer, for batched verification.

Each layer holds keys and values of shape (B, heads, T, d): one row per request, T slots. Rows
accept different numbers of drafts, so they do not stay aligned: a row keeps the list of its
slots in sequence order (`Row.slots`), a rejected draft's slot becomes a hole, and the attention
mask of the next pass hides every slot a row does not own (`mask`). A pass appends the same
number of slots to every row (the widest row's input); `compact` squeezes the holes out when
they outnumber the tokens. A request joins with the cache its prefill built alone (one row is
added) and leaves when it stops (its row is dropped): continuous batching (engine/serving.py).

`Row` stands in for a request's own DynamicCache in the decoder (`get_seq_length`, `crop`), so a
round's rollback is the same call whether the request runs alone or in a batch.
"""
from __future__ import annotations

import torch

from specdec.errors import InputError


class Row:
    """One request's view of the batch cache: its slots, in sequence order."""

    def __init__(self, batch: "BatchCache", slots: list[int]):
        self.batch, self.slots = batch, slots

    def get_seq_length(self) -> int:
        return len(self.slots)

    def crop(self, tokens_to_remove: int) -> None:
        """As DynamicCache.crop: a negative count drops that many of the last positions."""
        if tokens_to_remove > 0:
            raise ValueError("crop takes a negative count (the positions to drop)")
        if tokens_to_remove:
            del self.slots[tokens_to_remove:]

    @property
    def layers(self):
        raise InputError("tree drafting keeps scattered rows: a batch runs chain drafters only")


class BatchCache:
    def __init__(self):
        self.cache = None                 # a DynamicCache of batch len(self.rows), or None
        self.rows: list[Row] = []

    @property
    def width(self) -> int:
        """T: the slots every row has (owned or not)."""
        return self.cache.get_seq_length() if self.cache is not None else 0

    def _layers(self):
        return self.cache.layers

    def join(self, single) -> Row:
        """Add a request whose own DynamicCache (batch 1) holds its prompt; its row owns the
        first slots. The single cache is taken over (not copied again). A request with nothing
        cached yet (a one-token prompt) gets an empty row."""
        length = single.get_seq_length()
        if self.cache is None:
            self.cache = single
        elif _ready(single) or _ready(self.cache):
            if not _ready(self.cache):            # rows so far are empty: give them tensors
                self._empty_rows(like=single)
            self._pad_to(length)
            extra = self.width - length
            for mine, theirs in zip(self._layers(), single.layers):
                keys, values = (theirs.keys, theirs.values) if _ready(single) else (
                    mine.keys[:1, :, :0], mine.values[:1, :, :0])
                mine.keys = torch.cat([mine.keys, _pad(keys, extra)])
                mine.values = torch.cat([mine.values, _pad(values, extra)])
        row = Row(self, list(range(length)))
        self.rows.append(row)
        return row

    def _empty_rows(self, like) -> None:
        for mine, theirs in zip(self._layers(), like.layers):
            mine.lazy_initialization(theirs.keys, theirs.values)
            mine.keys = theirs.keys.new_zeros(len(self.rows), *theirs.keys.shape[1:2], 0, theirs.keys.shape[3])
            mine.values = theirs.values.new_zeros(len(self.rows), *theirs.values.shape[1:2], 0,
                                                  theirs.values.shape[3])

    def leave(self, row: Row) -> None:
        """Drop a request's row (a stopped request frees its cache)."""
        i = self.rows.index(row)
        self.rows.pop(i)
        if not self.rows:
            self.cache = None
            return
        if not _ready(self.cache):
            return
        keep = torch.tensor([j for j in range(len(self.rows) + 1) if j != i])
        for layer in self._layers():
            layer.keys, layer.values = layer.keys[keep], layer.values[keep]

    def _pad_to(self, width: int) -> None:
        extra = width - self.width
        if extra > 0:
            for layer in self._layers():
                layer.keys, layer.values = _pad(layer.keys, extra), _pad(layer.values, extra)

    def mask(self, lengths: list[int], width: int) -> torch.Tensor:
        """(B, 1, R, T + R) bool for a pass that feeds row b `lengths[b]` tokens (right-padded to
        R = width): a token sees its row's own slots and the row's new tokens up to itself; a
        padding token sees itself only (its output is never read)."""
        t = self.width
        mask = torch.zeros(len(self.rows), 1, width, t + width, dtype=torch.bool)
        causal = torch.ones(width, width, dtype=torch.bool).tril()
        for b, (row, n) in enumerate(zip(self.rows, lengths)):
            if row.slots:
                mask[b, 0, :n, torch.tensor(row.slots)] = True
            mask[b, 0, :n, t:t + n] = causal[:n, :n]
            mask[b, 0, range(n, width), range(t + n, t + width)] = True
        return mask

    def appended(self, lengths: list[int]) -> None:
        """After a pass appended R slots to every row: row b owns its first lengths[b] of them."""
        start = self.width - max(lengths)
        for row, n in zip(self.rows, lengths):
            row.slots += range(start, start + n)

    def causal(self) -> bool:
        """One row owning every slot: its next pass sees what a request alone sees, so it needs
        no mask (models/lean.py then runs the single-sequence pass)."""
        return len(self.rows) == 1 and self.rows[0].slots == list(range(self.width))

    def compact(self) -> None:
        """Squeeze the holes out: every row's slots become 0 .. len - 1. When they outnumber the
        tokens; a row alone at once (its rejected drafts' slots are the last: a crop, as alone)."""
        longest = max((len(r.slots) for r in self.rows), default=0)
        if self.cache is None or (len(self.rows) > 1 and self.width <= 2 * longest + 16):
            return
        if len(self.rows) == 1 and self.rows[0].slots == list(range(longest)):
            if self.width > longest:
                self.cache.crop(longest - self.width)
            return
        index = torch.tensor([r.slots + [r.slots[-1] if r.slots else 0] * (longest - len(r.slots))
                              for r in self.rows])                                 # (B, longest)
        for layer in self._layers():
            gather = index[:, None, :, None].expand(-1, layer.keys.shape[1], -1, layer.keys.shape[3])
            layer.keys, layer.values = layer.keys.gather(2, gather), layer.values.gather(2, gather)
        for row in self.rows:
            row.slots = list(range(len(row.slots)))


def _ready(cache) -> bool:
    """Has this cache tensors yet (a DynamicCache's layers are made by its first update)?"""
    return all(getattr(layer, "is_initialized", False) for layer in cache.layers) and bool(cache.layers)


def _pad(x: torch.Tensor, extra: int) -> torch.Tensor:
    """x (B, H, T, d) with `extra` zero slots after T."""
    if extra <= 0:
        return x
    return torch.cat([x, x.new_zeros(x.shape[0], x.shape[1], extra, x.shape[3])], dim=2)
