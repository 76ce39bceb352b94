"""The registry of drafters: one `DrafterKind` per value of `Settings.drafter` / `--drafter`.

Each drafter module registers its own kinds (`base.register`) and this module imports every
module of the package, so a new drafter is one file: a `ChainDrafter` or `TreeDrafter`
subclass (base.py) and its `register(DrafterKind(...))` call. The engine, the CLI's
`--drafter` choices and the app's sidebar all read `DRAFTERS` (docs/architecture.md).

- "model" / "tree": a draft model's chain, or a tree of its drafts (model.py, tree.py;
  feature.py when the draft reads the target's features)
- "ngram" / "ngram-tree": prompt lookup, as a chain or a trie of matches (ngram.py)
- "early-exit": a ModelDrafter over the target's own first layers (early_exit.py)
- "cross-vocab": a draft model with another tokenizer, exact by the token-level intersection
  (cross_vocab.py); on such a pair the other draft-model drafters refuse and name it

Callers ask a kind what they need (base.DrafterKind: its tree form, cache, cost model,
transformers counterpart, key id) and never compare drafter names: tests/test_layout.py checks.
"""
from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import TYPE_CHECKING

from specdec.drafters.base import DRAFTERS, Drafter, DrafterKind, NoDrafter, Shape
from specdec.errors import InputError
from specdec.models.pair import vocab_difference
from specdec.settings import Mode
from specdec.wording import N_

if TYPE_CHECKING:
    from specdec.models.pair import Pair
    from specdec.settings import Settings

for _module in pkgutil.iter_modules([str(Path(__file__).parent)]):
    importlib.import_module(f"specdec.drafters.{_module.name}")


def make_drafter(pair: "Pair", settings: "Settings") -> Drafter:
    """The drafter a run uses; autoregressive mode drafts nothing."""
    if settings.mode == Mode.AUTOREGRESSIVE:
        return NoDrafter()
    kind = DRAFTERS[settings.drafter]
    if kind.needs_draft_model and pair.draft is None:
        raise InputError(N_("this pair has no draft model: choose a drafter that needs none ({choices})"),
                         choices=", ".join(n for n, d in DRAFTERS.items() if not d.needs_draft_model))
    if kind.needs_draft_model and pair.across_vocab and not kind.bridges_vocab:
        raise InputError(N_("{draft} has another tokenizer than {target}, so the {drafter} drafter cannot "
                            "verify its tokens: draft across vocabularies with {bridges} ({diff})"),
                         draft=pair.draft_name, target=pair.target_name, drafter=settings.drafter,
                         bridges=" or ".join(n for n, d in DRAFTERS.items() if d.bridges_vocab),
                         diff=vocab_difference(pair.tokenizer, pair.draft_tokenizer))
    return kind.build(pair, settings)


def chain_for(has_draft: bool, with_tree: bool = False) -> DrafterKind:
    """The first chain drafter in menu order that a pair with (or without) a draft model runs
    (`with_tree`: the first that has a tree form): the draft model's chain, else n-gram lookup."""
    return next(d for d in DRAFTERS.values() if d.shape == Shape.CHAIN and (has_draft or not d.needs_draft_model)
                and (d.tree_form or not with_tree))


def tree_for(has_draft: bool) -> DrafterKind:
    """That chain's tree form: a tree of the draft model's drafts, else a tree of n-gram matches."""
    return DRAFTERS[chain_for(has_draft, with_tree=True).tree_form]
