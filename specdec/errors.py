"""The package's errors: one module, so every layer raises and catches the same types.

InputError: bad user input (the message says what to change).
LoadError: a model or tokenizer could not be loaded (the message says why and how to fix it).

A message is an English template with named parameters, e.g.
`InputError("k (draft length) must be between 1 and 64, got {k}", k=0)`: str(err) is the
English sentence, and `err.worded(translate)` lets the app say it in the user's language
(the templates are in the app's message catalog; numbers and names stay as they are).
"""
from __future__ import annotations

from typing import Callable

from specdec.wording import N_

FIX = N_(". Fix: ")          # joins a LoadError's message and its fix


class InputError(ValueError):
    """Bad user input: the message says what to change."""

    def __init__(self, template: str, **params):
        self.template, self.params = template, params
        super().__init__(_fill(template, params))

    def worded(self, translate: Callable[[str], str]) -> str:
        return _fill(translate(self.template), self.params)


class LoadError(InputError):
    """A model or tokenizer could not be loaded: `message` says why, `fix` (if any) what to do.
    A hosted deployment shows only the message (its users cannot download or pass paths)."""

    def __init__(self, message: str, fix: str | None = None, **params):
        super().__init__(message, **params)
        self.fix = fix
        self.message = _fill(message, params)
        if fix:
            self.args = (self.message + FIX + _fill(fix, params),)

    def worded(self, translate: Callable[[str], str], with_fix: bool = True) -> str:
        text = _fill(translate(self.template), self.params)
        if with_fix and self.fix:
            text += translate(FIX) + _fill(translate(self.fix), self.params)
        return text


def _fill(template: str, params: dict) -> str:
    """The template with its parameters; a template without parameters is used as it is
    (messages built before this module knew about templates may contain braces)."""
    return template.format(**params) if params else template

