"""The package's errors: one module, so every layer raises and catches the same types.

InputError: bad user input (the message says what to change).
LoadError: a model or tokenizer could not be loaded (the message says why and how to fix it).
"""
from __future__ import annotations


class InputError(ValueError):
    """Bad user input: the message says what to change."""


class LoadError(InputError):
    """A model or tokenizer could not be loaded; the message says why and what to do."""
