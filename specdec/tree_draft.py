"""Drafting a tree instead of a chain (SpecInfer, EAGLE-2): several candidates per position.

A tree drafter grows a `DraftTree` below the root (the last token of the sequence) and
reports, for every node it expanded, the distribution q its children were chosen from.

- over a draft model ("tree"): best-first, as EAGLE-2 — a node's score is the product
  of the draft's probabilities along its path; the highest-scoring leaf above the depth
  limit k is expanded next, getting up to `width` children, until `budget` nodes exist.
  Children are either the top-`width` tokens of q (deterministic: each is verified as a
  point mass, accepted with probability p(x)) or `width` independent draws from q
  (sampled: verified with min(1, p/q) against the shrinking residual). Greedy runs use
  the top-`width` tokens. specdec/tree_verify.py holds both exact rules.
- over n-gram lookup ("ngram-tree"): every earlier occurrence of the last n tokens
  proposes what followed it; the continuations are merged into a trie (latest match
  first), so two matches that part ways become two branches. Deterministic children.

The draft model's KV cache only ever holds the sequence: a node is expanded by feeding
its path after the cached sequence and cropping it off again.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Callable

import torch

from specdec.models import crop_cache, forward, new_cache
from specdec.sampling import Sampling, probs_from_logits
from specdec.tree import DraftTree

RULES = ("top", "sampled")        # how a model tree picks a node's children


@dataclass(frozen=True)
class TreeProposal:
    tree: DraftTree
    node_q: dict[int, torch.Tensor]   # node (-1 = root) -> (V,) q its children were chosen from
    rule: str                          # "deterministic" | "sampled" (how children were chosen)
    forwards: int                      # draft forward passes spent


def ancestry(node: int, parents: list[int]) -> list[int]:
    """The nodes from the root's child down to `node` (empty for the root, -1)."""
    out = []
    while node >= 0:
        out.append(node)
        node = parents[node]
    return out[::-1]


def children_of(q: torch.Tensor, n: int, rule: str, sampling: Sampling, generator) -> list[int]:
    if rule == "sampled" and not sampling.greedy:
        return torch.multinomial(q, n, replacement=True, generator=generator).tolist()
    return q.topk(min(n, int((q > 0).sum()))).indices.tolist()


def best_first(q_of: Callable[[int, list[int], list[int]], torch.Tensor], depth: int, width: int,
               budget: int, rule: str, sampling: Sampling, generator) -> TreeProposal:
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
    kind = "sampled" if rule == "sampled" and not sampling.greedy else "deterministic"
    return TreeProposal(DraftTree(tuple(tokens), tuple(parents)), node_q, kind, len(node_q))


class ModelTreeDrafter:
    drafts_trees = True

    def __init__(self, model, vocab_size: int, width: int, budget: int, rule: str = "sampled"):
        self.model, self.vocab_size = model, vocab_size
        self.width, self.budget, self.rule = width, budget, rule
        self.cache = new_cache(model)

    def cache_len(self) -> int:
        return self.cache.get_seq_length()

    def propose_tree(self, seq: list[int], depth: int, sampling: Sampling,
                     generator) -> TreeProposal:
        def q_of(node: int, tokens: list[int], parents: list[int]) -> torch.Tensor:
            """q after seq + the node's path: fed after the cache, cropped off again. (V,)"""
            path = [tokens[a] for a in ancestry(node, parents)]
            row = forward(self.model, seq[self.cache_len():] + path, self.cache, self.vocab_size, keep=1)
            crop_cache(self.cache, len(seq))
            return probs_from_logits(row, sampling)[0]
        return best_first(q_of, depth, self.width, self.budget, self.rule, sampling, generator)

    def rollback(self, valid_len: int) -> None:
        crop_cache(self.cache, valid_len)


class NgramTreeDrafter:
    drafts_trees = True

    def __init__(self, vocab_size: int, width: int, budget: int, max_ngram: int = 3):
        self.vocab_size, self.width, self.budget, self.max_ngram = vocab_size, width, budget, max_ngram

    def cache_len(self) -> int:
        return 0

    def continuations(self, seq: list[int], depth: int) -> list[list[int]]:
        """What followed each earlier occurrence of the longest matching tail, latest first."""
        for n in range(min(self.max_ngram, len(seq) - 1), 0, -1):
            tail = seq[-n:]
            found = [seq[s + n:s + n + depth] for s in range(len(seq) - n - 1, -1, -1)
                     if seq[s:s + n] == tail]
            if found:
                return found
        return []

    def propose_tree(self, seq: list[int], depth: int, sampling: Sampling,
                     generator) -> TreeProposal:
        tokens, parents, at = [], [], {}                       # at[(parent, token)] = node
        for cont in self.continuations(seq, depth):
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
        return TreeProposal(DraftTree(tuple(tokens), tuple(parents)), {}, "deterministic", 0)

    def rollback(self, valid_len: int) -> None:
        pass
