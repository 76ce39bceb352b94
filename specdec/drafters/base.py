"""What a drafter is: the classes the engine relies on, and what one round's proposal holds.

Every drafter keeps its own state in step with the sequence (`cache_len`, `rollback`). A
chain drafter proposes d_1..d_m (`propose`); a tree drafter grows a tree of candidates
(`propose_tree`, SpecInfer / EAGLE-2); a drafter that reads the target's final hidden states
(EAGLE) also subclasses `FeatureReader`, and the engine hands it the verified features
after every round (`observe`). The engine asks these classes — never an attribute's
presence — what a drafter can do.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Callable

import torch

from specdec.models.runtime import crop_cache, forward, new_cache
from specdec.rules.draft_tree import DraftTree
from specdec.rules.sampling import Sampling, choose, probs_from_logits
from specdec.rules.tree import TreeRule

if TYPE_CHECKING:
    from specdec.drafters.policies import Constant as Policy
    from specdec.models.pair import Pair
    from specdec.settings import Settings


@dataclass(frozen=True)
class Proposal:
    tokens: list[int]          # d_1..d_m, m <= k
    probs: torch.Tensor        # (m, V) q_1..q_m
    forwards: int              # draft forward passes spent


@dataclass(frozen=True)
class TreeProposal:
    tree: DraftTree
    node_q: dict[int, torch.Tensor]   # node (-1 = root) -> (V,) q its children were chosen from
    rule: TreeRule                     # DETERMINISTIC or SAMPLED (how children were chosen)
    forwards: int                      # draft forward passes spent


EMPTY_TREE = TreeProposal(DraftTree((), ()), {}, TreeRule.DETERMINISTIC, 0)


class Drafter:
    """Drafts nothing by itself: the autoregressive baseline runs with a bare Drafter."""

    def cache_len(self) -> int:
        """Positions of the sequence this drafter has already seen (0 if it keeps no cache)."""
        return 0

    def rollback(self, valid_len: int) -> None:
        """Forget everything after the first `valid_len` positions of the sequence."""

    def prefill(self, ids: list[int]) -> int:
        """Read the prompt's first tokens before round 1, as the target does; the forwards spent
        (0: this drafter keeps no cache of the sequence)."""
        return 0


class OwnCache:
    """A drafter over a causal LM with a KV cache of its own (a draft model, early exit)."""

    def __init__(self, model, vocab_size: int):
        self.model, self.vocab_size = model, vocab_size
        self.cache = new_cache(model)

    def cache_len(self) -> int:
        return self.cache.get_seq_length()

    def rollback(self, valid_len: int) -> None:
        crop_cache(self.cache, valid_len)

    def prefill(self, ids: list[int]) -> int:
        if not ids:
            return 0
        forward(self.model, ids, self.cache, self.vocab_size, keep=1)
        return 1


class NoDrafter(Drafter):
    """Proposes nothing: every round is one target step (mode "autoregressive")."""


class ChainDrafter(Drafter, ABC):
    @abstractmethod
    def propose(self, seq: list[int], k: int, sampling: Sampling, generator: torch.Generator,
                policy: "Policy") -> Proposal:
        """Up to k drafts after `seq`, with the distribution q each was drawn from."""


class TreeDrafter(Drafter, ABC):
    def __init__(self, width: int, budget: int):
        self.width, self.budget = width, budget    # children per node, nodes per round (at most)

    @abstractmethod
    def propose_tree(self, seq: list[int], depth: int, sampling: Sampling,
                     generator: torch.Generator) -> TreeProposal:
        """A tree of at most `budget` drafts below the last token of `seq`, depth <= `depth`."""


class FeatureReader(ABC):
    """A drafter that reads the target's final hidden states of the verified positions."""

    @abstractmethod
    def observe(self, start: int, feats: torch.Tensor) -> None:
        """feats (n, H): the target's features for positions start, start+1, ..."""


class Shape(StrEnum):
    """What a drafter's rounds verify."""
    CHAIN = "chain"     # d_1..d_m, one after another
    TREE = "tree"       # several candidates per position (tree.py, ngram.py)


def no_model(pair: "Pair", settings: "Settings") -> None:
    """The cost model of a drafter that runs no model (its drafts cost no forward pass)."""
    return None


@dataclass(frozen=True)
class DrafterKind:
    """Everything a caller asks about a drafter by name, before one is built: the engine, the
    CLI, the bench, the store and the pages read these, and never compare names."""
    name: str                  # the value of Settings.drafter and of --drafter
    label: str                 # how the app names it
    needs_draft_model: bool    # True: the pair must have a draft model
    build: Callable[["Pair", "Settings"], Drafter]
    shape: Shape = Shape.CHAIN  # what its rounds verify
    rank: int = 100            # its place in menus and in --drafter's choices (lowest first)
    tree_form: str | None = None     # a chain's tree of the same proposals (a DRAFTERS name)
    keeps_cache: bool = False        # True: the drafter holds a KV cache of its own (`.cache`)
    reads: str | None = None         # the Settings field of its own it reads (its key id and name say its value)
    short: str = ""                  # its name in comparisons, before that value ("" = its label)
    compared: bool = True            # False: Drafters compared and the draft-size sweep leave it out
    bridges_vocab: bool = False      # True: its draft model may have another tokenizer than the target
    # its cost model: the module one draft step runs (c = its step / the target's); None: no model
    step_model: Callable[["Pair", "Settings"], "torch.nn.Module | None"] = no_model
    hf_assistant: str | None = None  # transformers' counterpart: the generate() argument that drafts so
    finds: bool = False              # True: it drafts only what it finds (a lookup): up to k a round, often none

    @property
    def uses_exit_layer(self) -> bool:
        return self.reads == "exit_layer"

    def key_id(self, settings: "Settings") -> str:
        """How measurements name this drafter with the settings it reads (ui/lessons/store.py)."""
        if self.reads is not None:
            return f"{self.name}@{getattr(settings, self.reads)}"
        if self.shape == Shape.TREE:
            return f"{self.name}:{settings.tree_width}x{settings.tree_budget}"
        return self.name

    def compared_as(self, settings: "Settings") -> str:
        """Its row's name where drafters are compared without a draft model: 'n-gram lookup',
        'early exit @ 4' (bench_words.drafter_name words it in the page's language)."""
        name = self.short or self.label
        return name if self.reads is None else f"{name} @ {getattr(settings, self.reads)}"


DRAFTERS: dict[str, DrafterKind] = {}     # filled by each drafter module's register() call


def register(kind: DrafterKind) -> DrafterKind:
    """Add a drafter; DRAFTERS stays ordered by rank, then name (Settings.drafter's choices read
    this very dict: specdec/__init__.py offers it)."""
    DRAFTERS[kind.name] = kind
    ordered = sorted(DRAFTERS.values(), key=lambda d: (d.rank, d.name))
    DRAFTERS.clear()
    DRAFTERS.update((d.name, d) for d in ordered)
    return kind


def unregister(name: str) -> None:
    """Take a drafter out again (a throwaway one, in a test)."""
    DRAFTERS.pop(name, None)


def compared_kinds() -> list[DrafterKind]:
    """The chain drafters Drafters compared and the draft-size sweep measure, in menu order: each
    drafter that runs no draft model once, each that runs one once per draft it can run
    (`drafts_with`)."""
    return [d for d in DRAFTERS.values() if d.compared and d.shape == Shape.CHAIN]


def drafts_with(kind: DrafterKind, across_vocab: bool) -> bool:
    """Does a drafter that runs a draft model draft for a pair whose tokenizers differ (True) or
    not: the one that bridges vocabularies where they differ, the others where they do not."""
    return kind.bridges_vocab == across_vocab


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
