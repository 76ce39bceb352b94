"""Immutable records of what the engine did: one `Round` per draft -> verify round (its
drafted positions or tree, its final token, its caches) and the `Prefill` before round 1.

Distributions (`Dist`) are stored as full vectors when the vocabulary has at most
`FULL_VOCAB_LIMIT` tokens (the embedded family has 4096), otherwise as the top
`TOP_N` tokens plus the remaining mass. A whole run (run.py) holds these records; metrics.py
reads them, which is why they live below both.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from specdec.rules.chain import FinalKind
from specdec.rules.draft_tree import ancestors
from specdec.rules.tree import TreeRule

FULL_VOCAB_LIMIT = 16_384
TOP_N = 50


@dataclass(frozen=True)
class Dist:
    probs: tuple[float, ...]             # full vector, or the top-N probabilities
    ids: tuple[int, ...] | None = None   # None = full vector; else the ids of `probs`
    rest: float = 0.0                    # mass outside the stored ids

    def prob(self, token: int) -> float:
        if self.ids is None:
            return self.probs[token]
        return dict(zip(self.ids, self.probs)).get(token, 0.0)

    def top(self, n: int) -> list[tuple[int, float]]:
        """The n most likely (id, probability) pairs, most likely first."""
        probs = np.asarray(self.probs)
        order = np.argsort(-probs, kind="stable")[:n]
        ids = order if self.ids is None else np.asarray(self.ids)[order]
        return [(int(i), float(probs[j])) for i, j in zip(ids, order)]


def make_dist(probs: torch.Tensor) -> Dist:
    """(V,) probabilities -> Dist, full or top-N + rest."""
    if probs.numel() <= FULL_VOCAB_LIMIT:
        return Dist(tuple(probs.tolist()))
    top = torch.topk(probs, TOP_N)
    return Dist(tuple(top.values.tolist()), tuple(top.indices.tolist()),
                max(0.0, 1.0 - float(top.values.sum())))


@dataclass(frozen=True)
class Position:
    """Drafted position i (1-based) of a round."""
    i: int
    token: int
    text: str
    q: float                 # q_i(d_i), draft probability of the drafted token
    p: float                 # p_i(d_i), target probability of the drafted token
    ratio: float             # min(1, p/q); in greedy mode 1 if d_i == argmax p_i else 0
    u: float | None          # the uniform draw; None in greedy mode or when not examined
    verdict: str             # "accepted" | "rejected" | "discarded" (after a rejection)
    beta: float              # Σ_x min(p_i(x), q_i(x)); greedy: 1 if the argmaxes agree, else 0
    target: Dist | None      # p_i; None in lean mode
    draft: Dist | None       # q_i; None in lean mode


@dataclass(frozen=True)
class Final:
    """The token the target adds at the end of every round."""
    token: int
    text: str
    kind: FinalKind          # CORRECTION (residual) | BONUS (p_{k+1}) | TARGET (k = 0)
    p: float                 # target probability of this token at its position
    source: Dist | None      # the distribution it was drawn from (residual or p)


@dataclass(frozen=True)
class Caches:
    """KV-cache lengths (positions) of both models around the round."""
    target_before: int
    target_peak: int         # after the verification forward
    target_after: int        # after rollback
    draft_before: int
    draft_peak: int
    draft_after: int

    @property
    def target_cropped(self) -> int:
        return self.target_peak - self.target_after

    @property
    def draft_cropped(self) -> int:
        return self.draft_peak - self.draft_after


@dataclass(frozen=True)
class TreeNode:
    """One node of a drafted tree (specdec/drafters/tree.py, ngram.py) and what verification did with it."""
    token: int
    text: str
    parent: int              # index of the parent node; -1: a child of the root
    q: float                 # the draft's probability of this token at its parent (1 for n-gram)
    p: float                 # the target's probability of it at its parent, before any rejection
    ratio: float | None      # the acceptance probability it was tried with; None: never tried
    u: float | None          # the draw it was tried with (None: greedy, or never tried)
    verdict: str             # "accepted" | "rejected" | "untried"
    left: Dist | None        # after its rejection: what was left of p at its parent
    target: Dist | None      # p at this node (its children's distribution); None in lean mode
    draft: Dist | None       # q at this node when it was expanded (else None)


@dataclass(frozen=True)
class Tree:
    nodes: tuple[TreeNode, ...]
    rule: TreeRule           # how children were verified
    width: int               # children per expanded node (at most)
    budget: int              # drafted nodes (at most)
    root_target: Dist | None # p at the root (the last token of the prefix)
    root_draft: Dist | None  # q at the root (None for n-gram trees)

    def depth(self, i: int) -> int:
        """1 for the root's children."""
        return len(ancestors(i, [n.parent for n in self.nodes]))

    @property
    def path(self) -> tuple[int, ...]:
        """The accepted nodes, the root's child first."""
        return tuple(i for i, n in enumerate(self.nodes) if n.verdict == "accepted")


@dataclass(frozen=True)
class Prefill:
    """Before round 1 the target reads the prompt (the prefill of every serving engine). It reads
    all but the prompt's last token: round 1 feeds that one together with the drafts, so the
    target's distribution of the first new token is verification's first row and the prefill
    emits no token. A drafter with a KV cache of its own reads the same tokens (draft_tokens).
    An autoregressive run (not in a batch) reads the whole prompt: its pass gives the first
    new token's distribution (first_token), and round 1 makes no pass of its own (its
    target_forwards 0; the run's metrics count the prompt's pass for it)."""
    tokens: int              # prompt tokens the target read (all but the last, or all; fewer
                             # when a server's prefix cache held the first ones: engine/serving.py)
    target_ms: float
    target_cache: int        # the target's cache length after it
    draft_tokens: int        # prompt tokens the drafter read (0: it keeps no cache of the prompt)
    draft_ms: float
    draft_cache: int         # the drafter's cache length after it
    features: int = 0        # positions whose final hidden states went to a feature draft
                             # (EAGLE), which reads them in round 1: its cache is still empty
    first_token: bool = False  # it read the whole prompt and its last row gave the first new
                               # token (an autoregressive run): it counts as that token's pass


@dataclass(frozen=True)
class Round:
    index: int               # 0-based
    prefix_len: int          # tokens before the round (prompt + generated)
    draft_limit: int         # drafts this round could use: the policy's k, capped so the
                             # round cannot pass max_new_tokens or the context window
    greedy: bool
    positions: tuple[Position, ...]
    n_accepted: int
    final: Final
    emitted: tuple[int, ...]  # accepted drafts + final token (cut after EOS)
    caches: Caches
    draft_forwards: int
    target_forwards: int
    draft_ms: float
    verify_ms: float
    stop: str | None = None  # why the run ended after this round, if it did
    tree: Tree | None = None # a tree round: every drafted node; `positions` is its accepted path

    @property
    def drafted(self) -> int:
        """Draft tokens the target verified: a chain's positions, or every node of a tree."""
        return len(self.tree.nodes) if self.tree else len(self.positions)

    @property
    def reach(self) -> int:
        """How deep the drafts went: a chain's length, or a tree's deepest node."""
        if self.tree:
            return max((self.tree.depth(i) for i in range(len(self.tree.nodes))), default=0)
        return len(self.positions)
