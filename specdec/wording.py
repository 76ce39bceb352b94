"""The language of texts that specdec/ writes for people (lesson captions, chart titles).

specdec/ never imports the app, so it cannot know a session's language. The app installs
its translation function for the thread that runs a session's page (`use`); everything
here then calls `_` like gettext. Outside the app (CLI, tests) texts stay in English.
Per thread because a Streamlit server runs each session's script in its own thread.
"""
from __future__ import annotations

import threading
from typing import Callable

_local = threading.local()


def use(translate: Callable[[str], str]) -> None:
    """Translate specdec's texts with `translate` in this thread (the app's `_`)."""
    _local.translate = translate


def _(text: str) -> str:
    return getattr(_local, "translate", None)(text) if hasattr(_local, "translate") else text


def N_(text: str) -> str:
    """Marks a text for the catalog where it is defined; `_` translates it where it is shown."""
    return text


def times(value: float | None, digits: int = 2) -> str:
    """A speedup or ratio: "1.23×" ("1.23배" in Korean, where × after a number reads as foreign);
    "—" when there is none."""
    return "—" if value is None else _("{x}×").format(x=f"{value:.{digits}f}")
