"""Drafters: what proposes the tokens the target verifies (base.py says what a drafter is;
registry.py finds them all by name)."""
from specdec.drafters.base import (
                                   ChainDrafter,
                                   Drafter,
                                   DrafterKind,
                                   FeatureReader,
                                   NoDrafter,
                                   Proposal,
                                   TreeDrafter,
                                   TreeProposal,
                                   register,
)
from specdec.drafters.registry import DRAFTERS, make_drafter

__all__ = ["DRAFTERS", "ChainDrafter", "Drafter", "DrafterKind", "FeatureReader", "NoDrafter",
           "Proposal", "TreeDrafter", "TreeProposal", "make_drafter", "register"]
