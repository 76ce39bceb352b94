"""Which embedded family the comparison pages measure, and how they send it prompts.

"Too weak vs too big" and "Drafters compared" run every draft made for one target: the
active pair's target when it is an embedded target with drafts of its own (SmolLM2), else
the fast stdlib family. An instruct target gets the chat prompt set, sent as chats.
"""
from __future__ import annotations

from specdec.models import FAST_DRAFT, FAST_TARGET, family_drafts
from specdec.prompts import Prompt, as_input, load_prompts
from ui import loaders, session


def of(pair) -> tuple[str, list[str], str]:
    """(target, its drafts, the draft the policy rows use)."""
    target = pair.target_name if pair is not None else FAST_TARGET
    drafts = family_drafts(target)
    if not drafts:
        return FAST_TARGET, family_drafts(FAST_TARGET), FAST_DRAFT
    return target, drafts, FAST_DRAFT if target == FAST_TARGET else drafts[0]


def chats(target: str) -> bool:
    """Does this target take the prompts as chats (the session's Chat / Raw text choice)?"""
    return session.uses_chat(loaders.load(target, None))


def prompt_set(chat: bool) -> list[Prompt]:
    return load_prompts("chat" if chat else "text")


def speed_prompts(chat: bool, n: int = 8) -> tuple[list[str], list]:
    """The prompts the speed measurements use: code and structured ones (texts for cache
    keys, and the engine's inputs)."""
    chosen = [p for p in prompt_set(chat) if p.kind in ("code", "structured")][:n]
    return [p.prompt for p in chosen], [as_input(p, chat) for p in chosen]
