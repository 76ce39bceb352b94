"""The drafters that need a draft model: "model", a small causal LM with its own KV cache that
samples from the same processed distribution q the acceptance test uses (DESIGN.md §2), and
"tree", a tree of its drafts (tree.py). A draft that reads the target's features (EAGLE)
drafts through feature.py instead."""
from __future__ import annotations

from typing import TYPE_CHECKING

from specdec.drafters.base import ChainDrafter, Drafter, DrafterKind, OwnCache, Proposal, Shape, draft_chain, register
from specdec.drafters.feature import FeatureDrafter, FeatureTreeDrafter
from specdec.drafters.tree import Children, ModelTreeDrafter
from specdec.models.runtime import forward
from specdec.rules.sampling import Sampling
from specdec.wording import N_

if TYPE_CHECKING:
    from specdec.models.pair import Pair
    from specdec.settings import Settings


class ModelDrafter(OwnCache, ChainDrafter):
    def propose(self, seq: list[int], k: int, sampling: Sampling, generator, policy) -> Proposal:
        """Feed what the cache lacks, then sample d_1..d_k, one forward per token."""
        row = forward(self.model, seq[self.cache_len():], self.cache, self.vocab_size, keep=1)
        return draft_chain(row, lambda d: forward(self.model, [d], self.cache, self.vocab_size),
                           k, sampling, generator, policy)             # d_k is not fed yet


def model_drafter(pair: "Pair", settings: "Settings") -> Drafter:
    """A plain draft model, or one that reads the target's features."""
    if pair.reads_features:
        return FeatureDrafter(pair.draft, pair.vocab_size)
    return ModelDrafter(pair.draft, pair.vocab_size)


def tree_drafter(pair: "Pair", settings: "Settings") -> Drafter:
    s = settings
    if pair.reads_features:
        return FeatureTreeDrafter(pair.draft, pair.vocab_size, s.tree_width, s.tree_budget, Children(s.tree_children))
    return ModelTreeDrafter(pair.draft, pair.vocab_size, s.tree_width, s.tree_budget, Children(s.tree_children))


def draft_model(pair: "Pair", settings: "Settings"):
    """What one draft step runs: the pair's draft model (None when the pair has none)."""
    return pair.draft


register(DrafterKind("model", N_("draft model"), True, model_drafter, rank=0, tree_form="tree",
                     keeps_cache=True, step_model=draft_model, hf_assistant="assistant_model"))
register(DrafterKind("tree", N_("tree of draft-model drafts"), True, tree_drafter, shape=Shape.TREE, rank=1,
                     keeps_cache=True, step_model=draft_model))
