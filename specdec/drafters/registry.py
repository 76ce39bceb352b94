"""The registry of drafters: one `DrafterKind` per value of `Settings.drafter` / `--drafter`.

- "model": a small causal LM (model.py), or a FeatureDraft's chain when the draft reads the
  target's features (feature.py).
- "tree": a tree of draft-model drafts, best-first (tree.py, feature.py).
- "ngram" / "ngram-tree": prompt lookup, as a chain or a trie of matches (ngram.py).
- "early-exit": a ModelDrafter over the target's own first layers (early_exit.py).

To add a drafter: subclass `ChainDrafter` or `TreeDrafter` (base.py) and `register` a
`DrafterKind` for it. The engine, the CLI's `--drafter` choices and the app's sidebar all read
`DRAFTERS`, so nothing else needs editing (docs/architecture.md).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from specdec.drafters.base import Drafter, DrafterKind, NoDrafter
from specdec.drafters.early_exit import early_exit_model
from specdec.drafters.feature import FeatureDrafter, FeatureTreeDrafter
from specdec.drafters.model import ModelDrafter
from specdec.drafters.ngram import NgramDrafter, NgramTreeDrafter
from specdec.drafters.tree import ModelTreeDrafter
from specdec.errors import InputError
from specdec.wording import N_

if TYPE_CHECKING:
    from specdec.models.load import Pair
    from specdec.settings import Settings

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


def model_drafter(pair: "Pair", settings: "Settings") -> Drafter:
    """A plain draft model, or one that reads the target's features."""
    if pair.reads_features:
        return FeatureDrafter(pair.draft, pair.vocab_size)
    return ModelDrafter(pair.draft, pair.vocab_size)


def tree_drafter(pair: "Pair", settings: "Settings") -> Drafter:
    s = settings
    if pair.reads_features:
        return FeatureTreeDrafter(pair.draft, pair.vocab_size, s.tree_width, s.tree_budget, s.tree_children)
    return ModelTreeDrafter(pair.draft, pair.vocab_size, s.tree_width, s.tree_budget, s.tree_children)


register(DrafterKind("model", "draft model", True, model_drafter))
register(DrafterKind("tree", "tree of draft-model drafts", True, tree_drafter, shape="tree"))
register(DrafterKind("ngram-tree", "tree of n-gram matches", False, shape="tree",
                     build=lambda pair, s: NgramTreeDrafter(pair.vocab_size, s.tree_width, s.tree_budget)))
register(DrafterKind("ngram", "n-gram lookup", False,
                     lambda pair, s: NgramDrafter(pair.vocab_size)))
register(DrafterKind("early-exit", "early exit (the target's first layers)", False,
                     lambda pair, s: ModelDrafter(early_exit_model(pair.target, s.exit_layer),
                                                  pair.vocab_size)))
