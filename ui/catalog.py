"""Which model pairs the app offers, and hosted mode (an allowlist only)."""
from __future__ import annotations

import os
from dataclasses import dataclass

from ui.i18n import N_

HOSTED_ENV = "SPECDEC_HOSTED"      # set to 1 on a public deployment: no custom ids or paths
CUSTOM = N_("Custom hub id or local directory…")    # shown through _() by the sidebar


@dataclass(frozen=True)
class PairChoice:
    label: str
    target: str
    draft: str | None          # None: no draft model (n-gram lookup or early exit)
    embedded: bool


CHOICES = (
    PairChoice("stdlib: target ← draft-2l-distilled (embedded)", "stdlib/target",
               "stdlib/draft-2l-distilled", True),
    PairChoice("stdlib: target ← draft-1l (embedded)", "stdlib/target", "stdlib/draft-1l", True),
    PairChoice("stdlib: target ← draft-2l (embedded)", "stdlib/target", "stdlib/draft-2l", True),
    PairChoice("stdlib: target ← draft-4l (embedded)", "stdlib/target", "stdlib/draft-4l", True),
    PairChoice("SmolLM2-135M-Instruct ← smollm2/draft, feature draft (embedded)", "smollm2/target",
               "smollm2/draft", True),
    PairChoice("SmolLM2-135M-Instruct ← smollm2/draft-2l (embedded)", "smollm2/target",
               "smollm2/draft-2l", True),
    PairChoice("SmolLM2-135M-Instruct, no draft model: n-gram or early exit (embedded)",
               "smollm2/target", None, True),
    PairChoice("gpt2-medium ← distilgpt2 (hub, online)", "openai-community/gpt2-medium",
               "distilbert/distilgpt2", False),
    PairChoice("Pythia-1b ← Pythia-70m (hub, online)", "EleutherAI/pythia-1b",
               "EleutherAI/pythia-70m", False),
    PairChoice("Qwen2.5-1.5B ← Qwen2.5-0.5B (hub, online)", "Qwen/Qwen2.5-1.5B", "Qwen/Qwen2.5-0.5B",
               False),
    PairChoice("SmolLM2-1.7B ← SmolLM2-135M (hub, online)", "HuggingFaceTB/SmolLM2-1.7B",
               "HuggingFaceTB/SmolLM2-135M", False),
)


def hosted() -> bool:
    return os.environ.get(HOSTED_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def labels() -> list[str]:
    out = [c.label for c in CHOICES]
    return out if hosted() else out + [CUSTOM]


def by_label(label: str) -> PairChoice | None:
    return next((c for c in CHOICES if c.label == label), None)


def allowed(target: str, draft: str | None) -> bool:
    """In hosted mode only allowlisted names load."""
    if not hosted():
        return True
    names = {c.target for c in CHOICES} | {c.draft for c in CHOICES}
    return target in names and (draft is None or draft in names)
