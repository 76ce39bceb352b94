"""The prompts every speed measurement of the answer box runs (When it is fast's k sweep, "Measure it here", the
server's first-start run): code and structured ones, as chats where the target takes chats."""
from __future__ import annotations

from specdec.prompts import as_input, load_prompts
from specdec.settings import LENGTHS
from ui.lessons import store


def speed_prompts(chat: bool, n: int = 8) -> tuple[list[str], list]:
    """The prompts the speed measurements use: code and structured ones (texts for cache
    keys, and the engine's inputs)."""
    chosen = [p for p in load_prompts("chat" if chat else "text") if p.kind in ("code", "structured")][:n]
    return [p.prompt for p in chosen], [as_input(p, chat) for p in chosen]


def speed_set(chat: bool) -> store.PromptSet:
    """speed_prompts as the figure store names them (When it is fast's k sweep, the box's own run)."""
    return store.PromptSet.of(speed_prompts(chat)[0], chat, LENGTHS.speed, "speed")
