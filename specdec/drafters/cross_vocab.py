"""A draft model with ANOTHER tokenizer, verified exactly: the token-level intersection rule
(TLI) of Timor et al. 2025, "Lossless Speculative Decoding Algorithms for Heterogeneous
Vocabularies" (arXiv 2502.05202, Algorithm 4).

Which rule runs: the draft may propose only tokens that both vocabularies hold with the same
bytes (the intersection, models/vocab_bridge.py). Its q is its own distribution restricted to the
intersection, then processed with the run's temperature, top-k and top-p (restricting first keeps
q a distribution even when top-p's nucleus lies outside the intersection), written over the
TARGET's ids with zeros elsewhere. The engine's usual test — accept with min(1, p/q), resample the
residual, add the bonus — is exact for any such q, so the output follows the target exactly; the
rounds record q and p like any other. Greedy drafts the argmax over the intersection.

What it costs: every round the target's sequence is turned into bytes and re-tokenised by the
draft's tokenizer (about 1 ms for a few hundred tokens here); the draft's KV cache is rolled back
to the longest common prefix of its token ids, since a merge across the boundary (' wor' + 'ld' ->
' world') changes the last draft tokens. Drafts outside the intersection are never proposed: the
mass the draft puts there is lost (acceptance is lower than the same draft would reach with its
own vocabulary). Special tokens never cross: a target special (a chat template's) maps to the
draft's special of the same name, or is dropped from the draft's context; neither side's specials
are ever proposed. When the draft's context window is full it proposes nothing (rounds become
plain target steps).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from specdec.drafters.base import ChainDrafter, DrafterKind, Proposal, draft_chain, register
from specdec.errors import InputError
from specdec.models.backend import TorchBackend
from specdec.models.pair import context_window
from specdec.models.runtime import crop_cache, forward, new_cache
from specdec.models.vocab_bridge import Bridge, bridge
from specdec.rules.sampling import Sampling
from specdec.wording import N_

if TYPE_CHECKING:
    from specdec.models.pair import Pair
    from specdec.settings import Settings


def common_prefix(a: list[int], b: list[int]) -> int:
    """How many leading ids two sequences share."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class CrossVocabDrafter(ChainDrafter):
    """Drafts with a model of another vocabulary; q lives on the target's ids."""

    def __init__(self, model, link: Bridge, vocab_size: int):
        self.model, self.link, self.vocab_size = model, link, vocab_size      # vocab_size: the target's
        self.draft_vocab = model.config.vocab_size
        self.context = context_window(model.config)
        self.cache = new_cache(model)
        self.fed: list[int] = []         # the draft ids its cache holds, in order
        self.seen = 0                    # target positions those ids cover

    def cache_len(self) -> int:
        """Target positions the draft has read (its own cache counts draft tokens: len(self.fed))."""
        return self.seen

    def rollback(self, valid_len: int) -> None:
        """Only the count: the draft's cache is cut at the next sync, where the re-tokenised
        sequence shows how many of its ids still hold."""
        self.seen = min(self.seen, valid_len)

    def prefill(self, ids: list[int]) -> int:
        want = self.link.context(ids)
        if not want:
            return 0
        self.sync(want, len(ids))
        return 1

    def sync(self, want: list[int], covers: int) -> torch.Tensor:
        """Feed the draft `want` (a sequence re-tokenised, covering `covers` target positions),
        reusing its cache up to the longest common prefix; its logits for the next token (1, V_draft)."""
        same = min(common_prefix(self.fed, want), len(want) - 1)       # at least one id to feed
        crop_cache(self.cache, same)
        row = forward(self.model, want[same:], self.cache, self.draft_vocab, keep=1)   # (1, V_draft)
        self.fed, self.seen = list(want), covers
        return row

    def on_target(self, row: torch.Tensor) -> torch.Tensor:
        """(1, V_draft) draft logits -> (1, V) over the target's ids: the intersection's logits
        at their target ids, -inf elsewhere (the restriction; the engine's processing follows)."""
        out = torch.full((1, self.vocab_size), float("-inf"))                            # (1, V)
        out[0, self.link.target_ids] = row[0, self.link.draft_ids]
        return out

    def feed(self, target_id: int) -> torch.Tensor:
        """Give the draft the token it proposed, in its own vocabulary; the next (1, V) row."""
        draft_id = self.link.to_draft[target_id]
        self.fed.append(draft_id)
        return self.on_target(forward(self.model, [draft_id], self.cache, self.draft_vocab))

    def propose(self, seq: list[int], k: int, sampling: Sampling, generator, policy) -> Proposal:
        want = self.link.context(seq)                              # re-tokenised, every round
        k = min(k, self.context - len(want))                       # the draft's window, in its tokens
        if k <= 0 or not want:
            return Proposal([], torch.zeros(0, self.vocab_size), 0)
        row = self.on_target(self.sync(want, len(seq)))
        return draft_chain(row, self.feed, k, sampling, generator, policy)      # d_k is not fed yet


def cross_vocab_drafter(pair: "Pair", settings: "Settings") -> CrossVocabDrafter:
    """The pair's draft with its own tokenizer (the target's when both share one)."""
    if pair.reads_features:
        raise InputError(N_("{draft} reads the target's features, so it drafts in the target's own vocabulary: "
                            "choose the model drafter for it, or a draft model with another tokenizer for "
                            "this one (e.g. stdlib/draft-4l)"), draft=pair.draft_name)
    draft_tok = pair.draft_tokenizer or pair.tokenizer
    link = bridge(pair.tokenizer, draft_tok, pair.target_name, pair.draft_name or "draft")
    return CrossVocabDrafter(pair.draft, link, pair.vocab_size)


class DraftSteps(TorchBackend):
    """The draft's forward as the bench times one step (bench/measure.py feeds ids of the target's
    vocabulary: each is folded into the draft's own)."""

    def forward(self, ids: list[int], cache, keep: int = 0, features: bool = False):
        return super().forward([i % self.vocab_size for i in ids], cache, keep, features)


def draft_steps(pair: "Pair", settings: "Settings") -> DraftSteps | None:
    """What one draft step runs (its cost model): the draft model, in its own vocabulary."""
    return None if pair.draft is None else DraftSteps(pair.draft, pair.draft_vocab_size)


register(DrafterKind("cross-vocab", N_("draft model with another tokenizer (token-level intersection)"), True,
                     cross_vocab_drafter, rank=5, keeps_cache=True, bridges_vocab=True, step_model=draft_steps,
                     hf_assistant="assistant_tokenizer"))
