"""A tree of drafts and the attention mask that verifies all of it in one target pass.

Nodes are numbered in the order they were drafted; `parents[i]` is the node i hangs
from, or -1 for children of the root (the last token the target has not seen yet).
In the verifying pass the input is [pending tokens (not yet in the cache), nodes]:
pending tokens attend causally, and every node attends to the cache, the pending tokens,
its ancestors and itself — never to a sibling's branch. Positions follow depth, so each
branch sees exactly the positions a plain chain would have given it.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch


def ancestors(node: int, parents) -> list[int]:
    """`node` and its ancestors, deepest first ([] for the root, -1): the one parent walk that
    trees under construction (drafters), DraftTree and the recorded trace.Tree all use."""
    out = []
    while node >= 0:
        out.append(node)
        node = parents[node]
    return out


@dataclass(frozen=True)
class DraftTree:
    tokens: tuple[int, ...]       # node i's token
    parents: tuple[int, ...]      # -1: a child of the root

    def depth(self, i: int) -> int:
        """1 for the root's children."""
        return len(ancestors(i, self.parents))

    def children(self, i: int) -> list[int]:
        """The nodes hanging from node i (-1: the root), in drafting order."""
        return [j for j, parent in enumerate(self.parents) if parent == i]

    def ancestors(self, i: int) -> list[int]:
        """Node i and its ancestors, deepest first."""
        return ancestors(i, self.parents)


def tree_mask(cached: int, pending: int, tree: DraftTree) -> torch.Tensor:
    """(pending + N, cached + pending + N) bool: True where a row may attend to a column."""
    n = len(tree.tokens)
    rows, width = pending + n, cached + pending + n
    mask = torch.zeros(rows, width, dtype=torch.bool)
    mask[:, :cached] = True
    mask[:pending, cached:cached + pending] = torch.ones(pending, pending, dtype=torch.bool).tril()
    mask[pending:, cached:cached + pending] = True
    for i in range(n):
        mask[pending + i, [cached + pending + a for a in tree.ancestors(i)]] = True
    return mask


def tree_positions(cached: int, pending: int, tree: DraftTree) -> torch.Tensor:
    """(pending + N,) position ids: pending tokens in order, then root position + depth."""
    root = cached + pending - 1
    nodes = [root + tree.depth(i) for i in range(len(tree.tokens))]
    return torch.tensor(list(range(cached, cached + pending)) + nodes, dtype=torch.long)
