"""Published speedups set beside the calculator "Where would it pay?" (no Streamlit).

Each figure is copied from its source, which is named; none was measured here. Where a source
gives the tokens a decoding step kept as well, tokens / speedup is what one of its rounds cost,
in target steps: the drafting, the pass and whatever the engine paid besides.
"""
from __future__ import annotations

from dataclasses import dataclass

from specdec.wording import N_

SPEC_BENCH = N_("Spec-Bench leaderboard (Xia et al. 2024): one NVIDIA A100 80GB, Vicuna-7B-v1.3, greedy, "
                "FP16, batch 1")


@dataclass(frozen=True)
class Anchor:
    method: str
    setting: str
    speedup: str                  # as published: one number or a range
    tokens: float | None = None   # tokens kept a decoding step, where published

    @property
    def round_steps(self) -> float | None:
        """What one of its rounds cost in target steps (tokens a round / speedup), where both are given."""
        if self.tokens is None:
            return None
        return self.tokens / float(self.speedup)


ANCHORS = (
    Anchor(N_("speculative decoding, T5 drafts"),
           N_("Leviathan et al. 2023 (arXiv 2211.17192, abstract): T5-XXL 11B, batch 1, one TPU-v4"), "2–3"),
    Anchor("EAGLE", SPEC_BENCH, "2.29", 3.61),
    Anchor("Medusa", SPEC_BENCH, "1.78", 2.32),
    Anchor(N_("prompt lookup (PLD)"), SPEC_BENCH, "1.59", 1.73),
    Anchor(N_("draft model vicuna-68m (SpS)"), SPEC_BENCH, "1.49", 2.28),
    Anchor("EAGLE-3", N_("Li et al. 2025 (arXiv 2503.01840, abstract): best case over chat and reasoning "
                         "models; about 1.4× EAGLE-2"), N_("up to 6.5")),
)
