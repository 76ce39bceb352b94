"""Training corpus: the Python standard library of the running interpreter.

Every `.py` file under the stdlib (tests, docstrings and `pydoc_data/topics.py`
included) minus generated tables, split by file into train / held-out with a
fixed hash so the split never depends on file order or machine.
"""
from __future__ import annotations

import hashlib
import sysconfig
from dataclasses import dataclass
from pathlib import Path

# Generated tables and data dumps: they teach memorisation, not Python.
EXCLUDED_PARTS = ("encodings/", "html/entities.py", "site-packages/", "__pycache__/",
                  "stringprep.py", "unicodedata", "test/test_codecmaps",
                  "test/test_unicodedata", "idlelib/idle_test/", "lib2to3/tests/data/",
                  "test/test_lib2to3/data/", "test/tokenizedata/", "test/encoded_modules/")
HELD_OUT_PERCENT = 5     # 1 file in 20 is held out
MAX_FILE_BYTES = 800_000  # topics.py is ~700 kB and is wanted
MAX_DIGIT_SHARE = 0.25   # files that are mostly numbers are tables


@dataclass(frozen=True)
class Corpus:
    train: tuple[str, ...]      # file texts
    held_out: tuple[str, ...]
    train_paths: tuple[str, ...]
    held_out_paths: tuple[str, ...]


def stdlib_root() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def is_held_out(rel_path: str) -> bool:
    digest = hashlib.sha1(rel_path.encode()).digest()
    return int.from_bytes(digest[:4], "big") % 100 < HELD_OUT_PERCENT


def _wanted(rel_path: str, text: str) -> bool:
    if any(part in rel_path for part in EXCLUDED_PARTS):
        return False
    if not text.strip() or len(text) > MAX_FILE_BYTES:
        return False
    digits = sum(ch.isdigit() for ch in text)
    return digits / len(text) <= MAX_DIGIT_SHARE


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None


def load_corpus(root: Path | None = None) -> Corpus:
    """Read and split the corpus; sorted so the result is the same everywhere."""
    root = root or stdlib_root()
    split: dict[bool, list[tuple[str, str]]] = {True: [], False: []}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        text = _read(path)
        if text is not None and _wanted(rel, text):
            split[is_held_out(rel)].append((rel, text))
    train, held = split[False], split[True]
    return Corpus(train=tuple(t for _, t in train), held_out=tuple(t for _, t in held),
                  train_paths=tuple(p for p, _ in train), held_out_paths=tuple(p for p, _ in held))
