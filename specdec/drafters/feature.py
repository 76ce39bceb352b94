"""Drafters over a FeatureDraft (EAGLE; the weights are in models/feature.py): a chain, and a
tree grown best-first (EAGLE-2). Both read the target's final hidden states, which the engine
hands over after every round (`observe`)."""
from __future__ import annotations

import torch

from specdec.drafters.base import EMPTY_TREE, ChainDrafter, FeatureReader, Proposal, TreeDrafter, draft_chain
from specdec.drafters.tree import Children, best_first, path_to
from specdec.models.feature import FeatureDraft
from specdec.models.runtime import crop_cache, new_cache
from specdec.rules.sampling import Sampling, probs_from_logits


class FeatureState(FeatureReader):
    """What both shapes share: the verified features, and a draft cache over real-feature pairs."""

    def __init__(self, draft: FeatureDraft, vocab_size: int):
        self.draft, self.vocab_size = draft, vocab_size
        self.cache = new_cache(draft.net)
        self.feats = torch.zeros(0, draft.net.config.hidden_size)   # (n, H): f_0..f_{n-1}
        self.real_pairs = 0              # cache rows built from real features (the rest: guesses)

    def cache_len(self) -> int:
        return self.cache.get_seq_length()

    def observe(self, start: int, feats: torch.Tensor) -> None:
        """The target's features for positions start, start+1, ... (all verified)."""
        self.feats = torch.cat([self.feats[:start], feats.float().cpu()])

    @torch.no_grad()
    def _step(self, feats: torch.Tensor, ids: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
        """Feed pairs (feats[i], ids[i]); (last h (1, H), logits of the last pair (1, V))."""
        device = self.draft.keep_ids.device
        x = torch.tensor([ids], dtype=torch.long, device=device)                  # (1, T)
        h, logits = self.draft.step(x, feats[None].to(device), self.cache)
        return h, logits[:, :self.vocab_size].float().cpu()

    def rollback(self, valid_len: int) -> None:
        """Keep the real-feature pairs that still belong to the sequence; drop the guesses."""
        self.feats = self.feats[:valid_len]
        crop_cache(self.cache, min(self.real_pairs, max(0, valid_len - 1)))


class FeatureDrafter(FeatureState, ChainDrafter):
    """A chain of drafts from a FeatureDraft: d_2, d_3, ... read the draft's own h."""

    def propose(self, seq: list[int], k: int, sampling: Sampling, generator, policy) -> Proposal:
        n = min(len(self.feats), len(seq) - 1)       # pairs (f_j, s_{j+1}) known for j < n
        if n == 0:                                   # the target has not read the prompt yet
            return Proposal([], torch.zeros(0, self.vocab_size), 0)
        start = self.cache_len()
        last = {"h": None}
        last["h"], row = self._step(self.feats[start:n], seq[start + 1:n + 1])
        self.real_pairs = n

        def guessed_pair(d: int) -> torch.Tensor:         # (h of the previous pair, d)
            last["h"], logits = self._step(last["h"].cpu(), [d])
            return logits
        return draft_chain(row, guessed_pair, k, sampling, generator, policy)


class FeatureTreeDrafter(FeatureState, TreeDrafter):
    """A tree of drafts from a FeatureDraft (EAGLE-2): best-first as drafters/tree.best_first.
    A node's q comes from feeding its path as pairs (h of the parent, node's token) after
    the real pairs in the cache — h of each expanded node is kept for its children — and
    cropping them off again."""

    def __init__(self, draft: FeatureDraft, vocab_size: int, width: int, budget: int, rule: Children):
        FeatureState.__init__(self, draft, vocab_size)
        TreeDrafter.__init__(self, width, budget)
        self.rule = rule

    def propose_tree(self, seq: list[int], depth: int, sampling: Sampling, generator):
        n = min(len(self.feats), len(seq) - 1)
        if n == 0:                                   # the target has not read the prompt yet
            return EMPTY_TREE
        start = self.cache_len()
        h_root, row = self._step(self.feats[start:n], seq[start + 1:n + 1])
        self.real_pairs, hidden = n, {-1: h_root.cpu()}

        def q_of(node: int, tokens: list[int], parents: list[int]) -> torch.Tensor:
            if node < 0:
                return probs_from_logits(row, sampling)[0]
            path = path_to(node, parents)
            feats = torch.cat([hidden[parents[a]] for a in path])                 # (d, H)
            h, logits = self._step(feats, [tokens[a] for a in path])
            crop_cache(self.cache, n)
            hidden[node] = h.cpu()
            return probs_from_logits(logits, sampling)[0]
        return best_first(q_of, depth, self.width, self.budget, self.rule, sampling, generator)
