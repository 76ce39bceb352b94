"""What a round's strategy (chain.py, tree.py) hands back to the Decoder."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from specdec.trace.run import Final, Position, Tree


@dataclass(frozen=True)
class Verified:
    probs: torch.Tensor                # (1 + m, V) p at the last prefix position, then at each draft
    feats: torch.Tensor | None         # (pending + m, H) the target's final hidden states, if read
    passes: int = 1                    # target passes it took (0: the prompt's pass gave p)


@dataclass(frozen=True)
class Outcome:
    kept: list[int]                    # the accepted drafts (indices into the proposal), in order
    accepted: list[int]                # their tokens
    token: int                         # the final token: correction or bonus
    positions: tuple[Position, ...]    # the accepted path as chain positions
    final: Final
    drafted: int | None                # drafts the policy counts (None: a tree, it learns nothing)
    tree: Tree | None = None
