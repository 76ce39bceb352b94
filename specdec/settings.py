"""Run settings: one frozen dataclass, validated once, shared by engine, CLI and app."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from specdec.drafters.registry import DRAFTERS
from specdec.errors import InputError
from specdec.drafters.policies import POLICIES
from specdec.rules.sampling import Sampling
from specdec.drafters.tree import RULES as TREE_RULES
from specdec.wording import N_

MODES = ("speculative", "autoregressive")


@dataclass(frozen=True)
class Settings:
    k: int = 4                     # draft length (the policy's starting / maximum k)
    temperature: float = 1.0       # 0 = greedy
    top_k: int = 0                 # 0 = off
    top_p: float = 1.0             # 1 = off
    seed: int = 0                  # any integer; the run's generator uses seed mod 2**64
    max_new_tokens: int = 64
    drafter: str = "model"         # a key of drafters.DRAFTERS
    policy: str = "constant"       # a key of policies.POLICIES
    confidence: float = 0.3        # threshold of the confidence policy
    exit_layer: int = 4            # layers the early-exit drafter keeps
    tree_width: int = 2            # tree drafters: children per expanded node (at most)
    tree_budget: int = 8           # tree drafters: drafted nodes per round (at most)
    tree_children: str = "sampled" # model trees: "sampled" (w draws from q; top-w at T = 0) or
                                   # "top" (top-w of q, each verified as a point mass: p(x))
    mode: str = "speculative"      # or "autoregressive" (target only, the baseline)
    lean: bool = False             # record counters only, no distributions (benchmarks)

    def __post_init__(self):
        self.sampling  # validates temperature, top-k, top-p
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise InputError(N_("seed must be a whole number, got {value}"), value=repr(self.seed))
        if not 1 <= self.k <= 64:
            raise InputError(N_("k (draft length) must be between 1 and 64, got {value}"), value=self.k)
        if self.max_new_tokens < 1:
            raise InputError(N_("max new tokens must be at least 1, got {value}"), value=self.max_new_tokens)
        if self.drafter not in DRAFTERS:
            raise InputError(N_("drafter must be one of {choices}, got {value}"), choices=", ".join(DRAFTERS),
                             value=repr(self.drafter))
        if self.policy not in POLICIES:
            raise InputError(N_("policy must be one of {choices}, got {value}"), choices=", ".join(POLICIES),
                             value=repr(self.policy))
        if self.mode not in MODES:
            raise InputError(N_("mode must be one of {choices}, got {value}"), choices=", ".join(MODES),
                             value=repr(self.mode))
        if self.exit_layer < 1:
            raise InputError(N_("exit layer must be at least 1, got {value}"), value=self.exit_layer)
        if not 1 <= self.tree_width <= 16:
            raise InputError(N_("tree width must be between 1 and 16, got {value}"), value=self.tree_width)
        if not 1 <= self.tree_budget <= 64:
            raise InputError(N_("tree budget must be between 1 and 64 nodes, got {value}"),
                             value=self.tree_budget)
        if self.tree_children not in TREE_RULES:
            raise InputError(N_("tree children must be one of {choices}, got {value}"),
                             choices=", ".join(TREE_RULES), value=repr(self.tree_children))
        if not 0 <= self.confidence <= 1:
            raise InputError(N_("confidence threshold must be in [0, 1], got {value}"), value=self.confidence)

    @property
    def generator_seed(self) -> int:
        """torch.Generator takes 0 <= seed < 2**64: any integer is reduced modulo 2**64."""
        return self.seed % 2**64

    @property
    def sampling(self) -> Sampling:
        return Sampling(self.temperature, self.top_k, self.top_p)

    def as_dict(self) -> dict:
        return asdict(self)
