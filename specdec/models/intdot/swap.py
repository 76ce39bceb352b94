"""The class swap that puts a module's forward in C (norm.py, act.py): the module takes a
subclass of its own class whose forward calls the library, and back. The Parameters stay
untouched and the same module serves the lean pass, the model's own forward, trees and batches,
so every path computes the same numbers."""
from __future__ import annotations

from typing import Callable

from torch import nn


class Swap:
    def __init__(self, flag: str, forward: Callable, fits: Callable[[nn.Module], bool]):
        self.flag, self.forward, self.fits = flag, forward, fits
        self._classes: dict[type, type] = {}

    def in_c(self, module: nn.Module) -> bool:
        return getattr(type(module), self.flag, False)

    def use(self, module: nn.Module) -> None:
        if self.fits(module) and not self.in_c(module):
            module.__class__ = self._subclass(type(module))

    def reset(self, module: nn.Module) -> None:
        if self.in_c(module):
            module.__class__ = type(module).__bases__[0]

    def _subclass(self, cls: type) -> type:
        if cls not in self._classes:          # one subclass per class, so type checks stay stable
            self._classes[cls] = type(f"Rows{cls.__name__}", (cls,), {"forward": self.forward, self.flag: True})
        return self._classes[cls]
