"""The project's JSON stores of measurements (build/kernels.json, machine.json): read
through one check, written whole, and never trusted.

A store is a dict of key -> entry, where the key names what an entry was measured on (CPU,
libraries, model). Anything can be in the file — a hand edit, a half-written copy from an old
version, a folder in its place — so an entry is used only when its store's check accepts it;
otherwise it is measured again, with one line on stderr that says so. A store in a read-only
place (a container, a shared install) is read as it is, and what cannot be kept is said once
per file; the measurement is still used for this process.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Callable

from specdec.files import atomic

_said: set[str] = set()          # (file, what) lines already printed by this process


def _say_once(path: Path, line: str) -> None:
    if (str(path), line) not in _said:
        _said.add((str(path), line))
        print(f"specdec: {path.name}: {line}", file=sys.stderr, flush=True)


def read(path: Path) -> dict:
    """The store's entries ({} when the file is missing, unreadable, not JSON or not an object)."""
    try:
        saved = json.loads(Path(path).read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as err:
        _say_once(path, f"not readable ({type(err).__name__}); its measurements are taken again")
        return {}
    if not isinstance(saved, dict):
        _say_once(path, "not a JSON object; its measurements are taken again")
        return {}
    return saved


def entry(path: Path, key: str, valid: Callable[[object], bool]):
    """The entry under `key` if `valid` accepts it, else None (said once when one was there)."""
    found = read(path).get(key)
    if found is None:
        return None
    try:
        ok = bool(valid(found))
    except (TypeError, ValueError, KeyError, AttributeError):
        ok = False
    if not ok:
        _say_once(path, f"the entry for {key[:80]!r} is not valid; measuring again")
        return None
    return found


def put(path: Path, key: str, value) -> None:
    """The store with `value` under `key`, written whole; where the place is read-only or full,
    the store is left as it is and this is said once (the value still serves this process)."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text(path, json.dumps({**read(path), key: value}, indent=1) + "\n")
    except OSError as err:
        _say_once(path, f"cannot keep measurements here ({err.strerror or err}); they are taken again "
                        "at the next start")


def number(value, low: float = 0.0) -> bool:
    """A finite real number (not a bool) of at least `low`."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= low


def finite(value):
    """`value` with every non-finite float (NaN, ±inf) as None, in dicts, lists and tuples: what
    JSON can hold (json.dumps writes NaN, which no JSON reader accepts, or raises with allow_nan=False)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value
