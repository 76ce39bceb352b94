"""The package's errors: one module, so every layer raises and catches the same types.

InputError: bad user input (the message says what to change).
LoadError: a model or tokenizer could not be loaded (the message says why and how to fix it).
"""
from __future__ import annotations


class InputError(ValueError):
    """Bad user input: the message says what to change."""


class LoadError(InputError):
    """A model or tokenizer could not be loaded: `message` says why, `fix` (if any) what to do.
    A hosted deployment shows only the message (its users cannot download or pass paths)."""

    def __init__(self, message: str, fix: str | None = None):
        super().__init__(f"{message}. Fix: {fix}" if fix else message)
        self.message, self.fix = message, fix


def plural(n: int, word: str) -> str:
    """'1 token', '2 tokens' — for messages."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
