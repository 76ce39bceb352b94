"""A small causal LM as the draft ("model"), with its own KV cache. It samples from the same
processed distribution q that the acceptance test uses (DESIGN.md §2)."""
from __future__ import annotations

from specdec.drafters.base import ChainDrafter, Proposal, draft_chain
from specdec.models.runtime import crop_cache, forward, new_cache
from specdec.rules.sampling import Sampling


class ModelDrafter(ChainDrafter):
    def __init__(self, model, vocab_size: int):
        self.model, self.vocab_size = model, vocab_size
        self.cache = new_cache(model)

    def cache_len(self) -> int:
        return self.cache.get_seq_length()

    def propose(self, seq: list[int], k: int, sampling: Sampling, generator, policy) -> Proposal:
        """Feed what the cache lacks, then sample d_1..d_k, one forward per token."""
        row = forward(self.model, seq[self.cache_len():], self.cache, self.vocab_size, keep=1)
        return draft_chain(row, lambda d: forward(self.model, [d], self.cache, self.vocab_size),
                           k, sampling, generator, policy)             # d_k is not fed yet

    def rollback(self, valid_len: int) -> None:
        crop_cache(self.cache, valid_len)
