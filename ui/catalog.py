"""Which model pairs the app offers, and hosted mode (an allowlist only)."""
from __future__ import annotations

import os
from dataclasses import dataclass

from specdec.models.names import DEFAULT_DRAFT, DEFAULT_TARGET, FAST_DRAFT, FAST_TARGET
from ui.i18n import N_, _

HOSTED_ENV = "SPECDEC_HOSTED"      # set to 1 on a public deployment: no custom ids or paths
CUSTOM = N_("Custom hub id or local directory…")    # shown through _() by the sidebar


@dataclass(frozen=True)
class PairChoice:
    label: str                 # the full name: the session's key, and the caption under the box
    target: str
    draft: str | None          # None: no draft model (n-gram lookup or early exit)
    embedded: bool
    short: str = ""            # what the narrow sidebar box shows (marked for translation)
    draft_kind: str = ""       # what kind of draft it is, where its name does not say (marked)

    @property
    def across(self) -> bool:
        """An embedded draft of another family: another tokenizer (drafted across vocabularies)."""
        return self.embedded and self.draft is not None and self.draft.split("/")[0] != self.target.split("/")[0]


CHOICES = (            # the first is the default pair (specdec.models.names, where defaults live)
    PairChoice("SmolLM2-135M-Instruct ← smollm2/draft, feature draft (embedded)", DEFAULT_TARGET,
               DEFAULT_DRAFT, True, N_("SmolLM2 ← feature draft"),
               N_("a feature draft: it reads the target's last hidden states")),
    PairChoice("SmolLM2-135M-Instruct ← smollm2/draft-2l (embedded)", "smollm2/target",
               "smollm2/draft-2l", True, N_("SmolLM2 ← draft-2l")),
    PairChoice("SmolLM2-135M-Instruct, no draft model: n-gram or early exit (embedded)",
               "smollm2/target", None, True, N_("SmolLM2, no draft model")),
    PairChoice("Gemma 3 270M (base model), no draft model: n-gram or early exit (embedded)", "gemma3/target",
               None, True, N_("Gemma 3 270M, no draft model")),
    PairChoice("Gemma 3 270M (base model) ← SmolLM2-135M-Instruct, another tokenizer (embedded)", "gemma3/target",
               "smollm2/target", True, N_("Gemma 3 ← SmolLM2 (cross-vocab)")),
    PairChoice("stdlib, the fast pair: target ← draft-2l-distilled (embedded)", FAST_TARGET,
               FAST_DRAFT, True, N_("stdlib (fast) ← 2l-distilled")),
    PairChoice("stdlib: target ← draft-1l (embedded)", "stdlib/target", "stdlib/draft-1l", True,
               N_("stdlib ← draft-1l")),
    PairChoice("stdlib: target ← draft-2l (embedded)", "stdlib/target", "stdlib/draft-2l", True,
               N_("stdlib ← draft-2l")),
    PairChoice("stdlib: target ← draft-4l (embedded)", "stdlib/target", "stdlib/draft-4l", True,
               N_("stdlib ← draft-4l")),
    PairChoice("gpt2-medium ← distilgpt2 (hub, online)", "openai-community/gpt2-medium",
               "distilbert/distilgpt2", False, N_("gpt2-medium ← distilgpt2 (hub)")),
    PairChoice("Pythia-1b ← Pythia-70m (hub, online)", "EleutherAI/pythia-1b",
               "EleutherAI/pythia-70m", False, N_("Pythia-1b ← 70m (hub)")),
    PairChoice("Qwen2.5-1.5B ← Qwen2.5-0.5B (hub, online)", "Qwen/Qwen2.5-1.5B", "Qwen/Qwen2.5-0.5B",
               False, N_("Qwen2.5-1.5B ← 0.5B (hub)")),
    PairChoice("SmolLM2-1.7B ← SmolLM2-135M (hub, online)", "HuggingFaceTB/SmolLM2-1.7B",
               "HuggingFaceTB/SmolLM2-135M", False, N_("SmolLM2-1.7B ← 135M (hub)")),
)


def hosted() -> bool:
    return os.environ.get(HOSTED_ENV, "").strip().lower() in ("1", "true", "yes", "on")


HOSTED_PROMPT_CHARS = 16_000     # a hosted server's prompts: pages of text, not megabytes


def prompt_chars() -> int | None:
    """The prompt boxes' limit (None: the engine's own, from the context window)."""
    return HOSTED_PROMPT_CHARS if hosted() else None


LONG_PROMPT = 2000          # characters: a prompt past this says its first round will be slow


def long_prompt_note(pair, text: str) -> str | None:
    """Under a prompt box, for a prompt past LONG_PROMPT characters: how many tokens it is and that reading it comes
    first (reviews 44 and 46: 51 s, then 302 s unannounced); None for a short one or without a pair."""
    if pair is None or len(text) <= LONG_PROMPT:
        return None
    tokens = len(pair.tokenizer(text)["input_ids"])
    return _("A long prompt, {n} tokens (the lessons' prompts have under 100): the first round reads all of it before "
             "drafting anything, and on this machine that can take many seconds.").format(n=tokens)


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
