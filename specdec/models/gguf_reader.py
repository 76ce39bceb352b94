"""One parse of a GGUF file per conversion.

transformers reads a GGUF file through gguf's `GGUFReader` once for the config, once or twice for the
tokenizer and once for the weights, and each reader parses every metadata entry again: four parses of
SmolLM2's 49,152-token vocabulary, 17 of the 31 s a conversion took here. While `one_reader()` is open,
a file is parsed once and its reader handed to every later read (a reader is only read from).
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path

_PATCHING = threading.Lock()     # one conversion patches gguf at a time: no patch restored out of order


@contextmanager
def one_reader():
    import gguf

    plain, kept = gguf.GGUFReader, {}

    def reader(path, mode: str = "r"):
        key = (str(Path(path).resolve()), mode)
        if key not in kept:
            kept[key] = plain(path, mode)
        return kept[key]

    with _PATCHING:
        gguf.GGUFReader = reader               # transformers imports it from gguf at each read
        try:
            yield
        finally:
            gguf.GGUFReader = plain
