"""Drafting a tree instead of a chain (SpecInfer, EAGLE-2): several candidates per position.

A tree drafter grows a `DraftTree` below the root (the last token of the sequence) and
reports, for every node it expanded, the distribution q its children were chosen from.

- over a draft model ("tree"): best-first, as EAGLE-2 — a node's score is the product
  of the draft's probabilities along its path; the highest-scoring leaf above the depth
  limit k is expanded next, getting up to `width` children, until `budget` nodes exist.
  Children are either the top-`width` tokens of q (deterministic: each is verified as a
  point mass, accepted with probability p(x)) or `width` independent draws from q
  (sampled: verified with min(1, p/q) against the shrinking residual). Greedy runs use
  the top-`width` tokens. specdec/rules/tree.py holds both exact rules.
- over n-gram lookup ("ngram-tree"): ngram.py.

The draft model's KV cache only ever holds the sequence: a node is expanded by feeding
its path after the cached sequence and cropping it off again.
"""
from __future__ import annotations

import heapq
from enum import StrEnum
from typing import Callable

import torch

from specdec.drafters.base import OwnCache, TreeDrafter, TreeProposal
from specdec.models.runtime import crop_cache, forward
from specdec.rules.draft_tree import DraftTree, ancestors
from specdec.rules.sampling import Sampling, probs_from_logits
from specdec.rules.tree import TreeRule


class Children(StrEnum):
    """Settings.tree_children: how a model tree picks a node's children."""
    TOP = "top"             # the top-w tokens of q (each verified as a point mass)
    SAMPLED = "sampled"     # w independent draws from q (top-w at T = 0)


RULES = tuple(Children)


def path_to(node: int, parents: list[int]) -> list[int]:
    """The nodes from the root's child down to `node` (empty for the root, -1)."""
    return ancestors(node, parents)[::-1]


def children_of(q: torch.Tensor, n: int, rule: Children, sampling: Sampling, generator) -> list[int]:
    if rule == Children.SAMPLED and not sampling.greedy:
        return torch.multinomial(q, n, replacement=True, generator=generator).tolist()
    return q.topk(min(n, int((q > 0).sum()))).indices.tolist()


def best_first(q_of: Callable[[int, list[int], list[int]], torch.Tensor], depth: int, width: int,
               budget: int, rule: Children, sampling: Sampling, generator) -> TreeProposal:
    """Grow a tree: expand the highest-scoring node (score = product of q along its path)
    until `budget` nodes exist. q_of(node, tokens, parents) is q at a node (-1 = root)."""
    tokens, parents, node_q = [], [], {}
    frontier = [(-1.0, -1, 0)]                               # (-score, node, depth)
    while frontier and len(tokens) < budget:
        neg, node, d = heapq.heappop(frontier)
        q = node_q[node] = q_of(node, tokens, parents)
        for x in children_of(q, min(width, budget - len(tokens)), rule, sampling, generator):
            tokens.append(x)
            parents.append(node)
            if d + 1 < depth:
                heapq.heappush(frontier, (neg * float(q[x]), len(tokens) - 1, d + 1))
    kind = TreeRule.SAMPLED if rule == Children.SAMPLED and not sampling.greedy else TreeRule.DETERMINISTIC
    return TreeProposal(DraftTree(tuple(tokens), tuple(parents)), node_q, kind, len(node_q))


class ModelTreeDrafter(OwnCache, TreeDrafter):
    def __init__(self, model, vocab_size: int, width: int, budget: int, rule: Children = Children.SAMPLED):
        OwnCache.__init__(self, model, vocab_size)
        TreeDrafter.__init__(self, width, budget)
        self.rule = rule

    def propose_tree(self, seq: list[int], depth: int, sampling: Sampling,
                     generator) -> TreeProposal:
        def q_of(node: int, tokens: list[int], parents: list[int]) -> torch.Tensor:
            """q after seq + the node's path: fed after the cache, cropped off again. (V,)"""
            path = [tokens[a] for a in path_to(node, parents)]
            row = forward(self.model, seq[self.cache_len():] + path, self.cache, self.vocab_size, keep=1)
            crop_cache(self.cache, len(seq))
            return probs_from_logits(row, sampling)[0]
        return best_first(q_of, depth, self.width, self.budget, self.rule, sampling, generator)
