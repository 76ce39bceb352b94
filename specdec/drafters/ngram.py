"""Drafting without a model: prompt lookup (n-gram matching), as a chain or as a trie.

An earlier occurrence of the sequence's last n tokens proposes what followed it; q is a point
mass, so the target accepts a draft d with probability p(d) (DESIGN.md §1). The chain takes
the latest match; the tree merges every match's continuation into a trie (latest first), so
two matches that part ways become two branches.
"""
from __future__ import annotations

import torch

from specdec.drafters.base import ChainDrafter, DrafterKind, Proposal, Shape, TreeDrafter, TreeProposal, register
from specdec.rules.draft_tree import DraftTree
from specdec.rules.sampling import Sampling
from specdec.rules.tree import TreeRule
from specdec.wording import N_


def continuations(seq: list[int], depth: int, max_ngram: int, min_ngram: int = 1) -> list[list[int]]:
    """What followed each earlier occurrence of the longest matching tail (n from max_ngram
    down to min_ngram), latest first, each at most `depth` tokens; [] if nothing matches."""
    for n in range(min(max_ngram, len(seq) - 1), min_ngram - 1, -1):
        tail = seq[-n:]
        found = [seq[s + n:s + n + depth] for s in range(len(seq) - n - 1, -1, -1)
                 if seq[s:s + n] == tail]
        if found:
            return found
    return []


class NgramDrafter(ChainDrafter):
    def __init__(self, vocab_size: int, max_ngram: int = 3, min_ngram: int = 1):
        self.vocab_size, self.max_ngram, self.min_ngram = vocab_size, max_ngram, min_ngram

    def lookup(self, seq: list[int], k: int) -> list[int]:
        """Continuation (≤ k tokens) of the latest earlier match of the last n tokens."""
        found = continuations(seq, k, self.max_ngram, self.min_ngram)
        return found[0] if found else []

    def propose(self, seq: list[int], k: int, sampling: Sampling, generator, policy) -> Proposal:
        tokens = self.lookup(seq, k)
        probs = torch.zeros(len(tokens), self.vocab_size)                # (m, V) one-hot rows
        probs[torch.arange(len(tokens)), tokens] = 1.0
        return Proposal(tokens, probs, 0)


class PointMassDrafter(NgramDrafter):
    """Proposes given tokens (a person's typed continuation): q is a point mass on each, so
    the target accepts d with probability p(d). Once the sequence leaves the given tokens
    (the target wrote something else), it proposes nothing more."""

    def __init__(self, vocab_size: int, prompt_len: int, tokens: list[int]):
        super().__init__(vocab_size)
        self.prompt_len, self.tokens = prompt_len, list(tokens)

    def lookup(self, seq: list[int], k: int) -> list[int]:
        done = seq[self.prompt_len:]
        if done != self.tokens[:len(done)]:
            return []
        return self.tokens[len(done):len(done) + k]


class NgramTreeDrafter(TreeDrafter):
    def __init__(self, vocab_size: int, width: int, budget: int, max_ngram: int = 3):
        super().__init__(width, budget)
        self.vocab_size, self.max_ngram = vocab_size, max_ngram

    def propose_tree(self, seq: list[int], depth: int, sampling: Sampling,
                     generator) -> TreeProposal:
        tokens, parents, at = [], [], {}                       # at[(parent, token)] = node
        for cont in continuations(seq, depth, self.max_ngram):
            parent = -1
            for x in cont:
                if (parent, x) not in at:
                    siblings = sum(1 for (p, _) in at if p == parent)
                    if siblings >= self.width or len(tokens) >= self.budget:
                        break
                    tokens.append(x)
                    parents.append(parent)
                    at[(parent, x)] = len(tokens) - 1
                parent = at[(parent, x)]
        return TreeProposal(DraftTree(tuple(tokens), tuple(parents)), {}, TreeRule.DETERMINISTIC, 0)


register(DrafterKind("ngram-tree", N_("tree of n-gram matches"), False, shape=Shape.TREE, rank=2,
                     build=lambda pair, s: NgramTreeDrafter(pair.vocab_size, s.tree_width, s.tree_budget)))
register(DrafterKind("ngram", N_("n-gram lookup"), False, lambda pair, s: NgramDrafter(pair.vocab_size), rank=3,
                     tree_form="ngram-tree", hf_assistant="prompt_lookup_num_tokens", finds=True))
