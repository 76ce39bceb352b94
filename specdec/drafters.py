"""Drafters behind one small interface: propose up to k tokens, then roll back.

- ModelDrafter: a small causal LM with its own KV cache, sampling from the same
  processed distribution q that the acceptance test uses.
- NgramDrafter: prompt lookup (no model): find the latest earlier occurrence of the
  sequence's last n tokens and propose what followed it. q is a point mass.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from specdec.models import forward, new_cache
from specdec.sampling import Sampling, choose, probs_from_logits


@dataclass(frozen=True)
class Proposal:
    tokens: list[int]          # d_1..d_m, m <= k
    probs: torch.Tensor        # (m, V) q_1..q_m
    forwards: int              # draft forward passes spent


class ModelDrafter:
    def __init__(self, model, vocab_size: int):
        self.model, self.vocab_size = model, vocab_size
        self.cache = new_cache(model)

    def cache_len(self) -> int:
        return self.cache.get_seq_length()

    def propose(self, seq: list[int], k: int, sampling: Sampling, generator, policy) -> Proposal:
        """Feed what the cache lacks, then sample d_1..d_k, one forward per token."""
        row = forward(self.model, seq[self.cache_len():], self.cache, self.vocab_size, keep=1)
        tokens, rows, forwards = [], [], 1
        for i in range(k):
            q = probs_from_logits(row, sampling)[0]                     # (V,)
            tokens.append(choose(q, sampling, generator))
            rows.append(q)
            if i + 1 == k or not policy.keep_drafting(float(q[tokens[-1]])):
                break
            row = forward(self.model, tokens[-1:], self.cache, self.vocab_size)
            forwards += 1
        return Proposal(tokens, torch.stack(rows), forwards)            # d_k is not fed yet

    def rollback(self, valid_len: int) -> None:
        """Crop the cache to the first `valid_len` positions (public DynamicCache.crop)."""
        extra = self.cache_len() - valid_len
        if extra > 0:
            self.cache.crop(-extra)


class NgramDrafter:
    def __init__(self, vocab_size: int, max_ngram: int = 3, min_ngram: int = 1):
        self.vocab_size, self.max_ngram, self.min_ngram = vocab_size, max_ngram, min_ngram

    def cache_len(self) -> int:
        return 0

    def lookup(self, seq: list[int], k: int) -> list[int]:
        """Continuation (≤ k tokens) of the latest earlier match of the last n tokens."""
        for n in range(min(self.max_ngram, len(seq) - 1), self.min_ngram - 1, -1):
            tail = seq[-n:]
            for start in range(len(seq) - n - 1, -1, -1):
                if seq[start:start + n] == tail:
                    return seq[start + n:start + n + k]
        return []

    def propose(self, seq: list[int], k: int, sampling: Sampling, generator, policy) -> Proposal:
        tokens = self.lookup(seq, k)
        probs = torch.zeros(len(tokens), self.vocab_size)                # (m, V) one-hot rows
        probs[torch.arange(len(tokens)), tokens] = 1.0
        return Proposal(tokens, probs, 0)

    def rollback(self, valid_len: int) -> None:
        pass
