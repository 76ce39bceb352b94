"""Drafters behind one small interface (`Drafter`), and the registry that lists them.

- ModelDrafter ("model"): a small causal LM with its own KV cache, sampling from the same
  processed distribution q that the acceptance test uses.
- NgramDrafter ("ngram"): prompt lookup (no model): find the latest earlier occurrence of
  the sequence's last n tokens and propose what followed it. q is a point mass.
- early exit ("early-exit"): a ModelDrafter over the target's own first layers
  (specdec/early_exit.py), no new weights.
- NoDrafter: proposes nothing; autoregressive mode (the baseline) runs with it.

To add a drafter: write a class with the three methods of `Drafter` and `register` a
`DrafterKind` for it. The engine, the CLI's `--drafter` choices and the app's sidebar all
read `DRAFTERS`, so nothing else needs editing (docs/architecture.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Protocol

import torch

from specdec.early_exit import early_exit_model
from specdec.errors import InputError
from specdec.models import crop_cache, forward, new_cache
from specdec.sampling import Sampling, choose, probs_from_logits
from specdec.wording import N_

if TYPE_CHECKING:
    from specdec.models import Pair
    from specdec.policies import Policy
    from specdec.settings import Settings


@dataclass(frozen=True)
class Proposal:
    tokens: list[int]          # d_1..d_m, m <= k
    probs: torch.Tensor        # (m, V) q_1..q_m
    forwards: int              # draft forward passes spent


class Drafter(Protocol):
    def cache_len(self) -> int:
        """Positions of the sequence this drafter has already seen (0 if it keeps no cache)."""

    def propose(self, seq: list[int], k: int, sampling: Sampling, generator: torch.Generator,
                policy: "Policy") -> Proposal:
        """Up to k drafts after `seq`, with the distribution q each was drawn from."""

    def rollback(self, valid_len: int) -> None:
        """Forget everything after the first `valid_len` positions of the sequence."""


@dataclass(frozen=True)
class DrafterKind:
    name: str                  # the value of Settings.drafter and of --drafter
    label: str                 # how the app names it
    needs_draft_model: bool    # True: the pair must have a draft model
    build: Callable[["Pair", "Settings"], Drafter]


DRAFTERS: dict[str, DrafterKind] = {}


def register(kind: DrafterKind) -> DrafterKind:
    DRAFTERS[kind.name] = kind
    return kind


def make_drafter(pair: "Pair", settings: "Settings") -> Drafter:
    """The drafter a run uses; autoregressive mode drafts nothing."""
    if settings.mode == "autoregressive":
        return NoDrafter()
    kind = DRAFTERS[settings.drafter]
    if kind.needs_draft_model and pair.draft is None:
        raise InputError(N_("this pair has no draft model: choose a drafter that needs none ({choices})"),
                         choices=", ".join(n for n, d in DRAFTERS.items() if not d.needs_draft_model))
    return kind.build(pair, settings)


def draft_chain(row: torch.Tensor, next_row: Callable[[int], torch.Tensor], k: int,
                sampling: Sampling, generator, policy) -> Proposal:
    """Sample d_1..d_m (m <= k, the policy may stop early) from q = processed `row` (1, V);
    `next_row(d)` feeds d to the drafter and returns the logits for the next position."""
    tokens, rows, forwards = [], [], 1
    for i in range(k):
        q = probs_from_logits(row, sampling)[0]                         # (V,)
        tokens.append(choose(q, sampling, generator))
        rows.append(q)
        if i + 1 == k or not policy.keep_drafting(float(q[tokens[-1]])):
            break
        row = next_row(tokens[-1])
        forwards += 1
    return Proposal(tokens, torch.stack(rows), forwards)


class ModelDrafter:
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


class NoDrafter:
    """Drafts nothing: every round is one target step (the autoregressive baseline)."""

    def cache_len(self) -> int:
        return 0

    def propose(self, seq: list[int], k: int, sampling: Sampling, generator, policy) -> Proposal:
        return Proposal([], torch.zeros(0, 0), 0)

    def rollback(self, valid_len: int) -> None:
        pass


def model_drafter(pair: "Pair", settings: "Settings") -> Drafter:
    """A plain draft model, or one that reads the target's features (feature_draft.py)."""
    if getattr(pair.draft, "reads_target_features", False):
        from specdec.feature_draft import FeatureDrafter
        return FeatureDrafter(pair.draft, pair.vocab_size)
    return ModelDrafter(pair.draft, pair.vocab_size)


register(DrafterKind("model", "draft model", True, model_drafter))


def tree_drafter(pair: "Pair", settings: "Settings") -> Drafter:
    from specdec.tree_draft import ModelTreeDrafter
    if getattr(pair.draft, "reads_target_features", False):
        from specdec.feature_draft import FeatureTreeDrafter
        return FeatureTreeDrafter(pair.draft, pair.vocab_size, settings.tree_width,
                                  settings.tree_budget, settings.tree_children)
    return ModelTreeDrafter(pair.draft, pair.vocab_size, settings.tree_width, settings.tree_budget,
                            settings.tree_children)


def ngram_tree_drafter(pair: "Pair", settings: "Settings") -> Drafter:
    from specdec.tree_draft import NgramTreeDrafter
    return NgramTreeDrafter(pair.vocab_size, settings.tree_width, settings.tree_budget)


register(DrafterKind("tree", "tree of draft-model drafts", True, tree_drafter))
register(DrafterKind("ngram-tree", "tree of n-gram matches", False, ngram_tree_drafter))
register(DrafterKind("ngram", "n-gram lookup", False,
                     lambda pair, s: NgramDrafter(pair.vocab_size)))
register(DrafterKind("early-exit", "early exit (the target's first layers)", False,
                     lambda pair, s: ModelDrafter(early_exit_model(pair.target, s.exit_layer),
                                                  pair.vocab_size)))
