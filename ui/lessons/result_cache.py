"""Measured lesson results kept on disk, one JSON file per (kind, key, machine, weights), each
holding its key and its record in the one JSON form of a measurement (records/codec.py).

A result is only valid on the machine that measured it and for the weights it ran:
the key is extended with the host, the CPU and the size and mtime of every local
weights file, so retrained models never show stale numbers, and with the engine's timing
revision (measure.TIMING_REVISION), so neither does a faster engine.
"""
from __future__ import annotations

import functools
import hashlib
import json
import platform
import sys
from pathlib import Path

from specdec.bench.measure import TIMING_REVISION
from specdec.files import atomic
from specdec.models.names import ASSETS
from specdec.records import codec

ROOT = Path(__file__).resolve().parents[2]
RESULTS_DIR = ROOT / "build" / "results"


def weights_stamp(root: Path | None = None) -> list:
    """Size and mtime of every local weights file: retrained models invalidate cached results."""
    root = root or ASSETS
    return sorted((str(f.relative_to(root)), f.stat().st_size, int(f.stat().st_mtime))
                  for f in root.glob("**/model.safetensors"))


def path_for(kind: str, key: dict, weights: list | None = None) -> Path:
    """Where (kind, key)'s result is kept on this machine for these weights (`weights`: weights_stamp(), given
    where many paths are built at once)."""
    key = {**key, "machine": platform.node(), "cpu": platform.processor(),
           "weights": weights_stamp() if weights is None else weights, "timing": TIMING_REVISION}
    digest = hashlib.sha1(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    return RESULTS_DIR / f"{kind}-{digest}.json"


KEPT = "specdec-kept"     # marks a file written with its key


def load(kind: str, key: dict, record):
    """The kept `record` (a type) for (kind, key) on this machine, or None: none kept, or one this
    version does not read (damaged, or another schema: measured again)."""
    return read(path_for(kind, key), record)


def read(path: Path, record, kept: bool = True):
    """A result file's record ({"key", "value"}), decoded once per file state (a large result
    takes a second); None where it is missing, damaged, of another schema or not a `record`.
    kept: a file this cache wrote, marked whole (KEPT); False: a shipped one (shipped.py)."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return _decoded(str(path), stat.st_mtime_ns, stat.st_size, record, kept)


@functools.lru_cache(maxsize=1024)      # every kept figure (hundreds) read on one page: a small cache thrashed
def _decoded(path: str, _mtime: int, _size: int, record, kept: bool):
    try:
        data = json.loads(Path(path).read_text())
        whole = data.get(KEPT) == 1 or not kept
        return codec.from_data(record, data["value"], Path(path).name) if whole else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError, codec.RecordFileError):
        return None     # a half-written or damaged file, a folder in its place, another schema: measure again


def save(kind: str, key: dict, record) -> None:
    """Keep a result; where the folder is read-only or full the result still shows, said once on stderr."""
    path = path_for(kind, key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text(path, json.dumps({KEPT: 1, "key": key, "value": codec.to_data(record)}))
    except OSError as err:
        _cannot_keep(path.parent, err)


_told: set[str] = set()


def _cannot_keep(folder: Path, err: OSError) -> None:
    if str(folder) not in _told:
        _told.add(str(folder))
        print(f"specdec: cannot keep results in {folder} ({err.strerror or err}); they are measured again "
              "after a restart", file=sys.stderr, flush=True)


def kept(kind: str, record) -> list[tuple[dict, object]]:
    """(key, record) of every result of `kind` kept for this machine and these weights (a file
    whose name no longer matches its key, e.g. after retraining, is left out)."""
    out, stamp = [], weights_stamp()                 # once, not once a file (a glob of the weights each)
    for path in sorted(RESULTS_DIR.glob(f"{kind}-*.json")):
        try:
            stat = path.stat()
            key = json.loads(_key_text(str(path), stat.st_mtime_ns, stat.st_size))
        except (OSError, ValueError, KeyError, TypeError):
            continue
        found = read(path, record) if path_for(kind, key, stamp) == path else None
        if found is not None:
            out.append((key, found))
    return out


@functools.lru_cache(maxsize=1024)
def _key_text(path: str, _mtime: int, _size: int) -> str:
    """A kept file's key as JSON text, read once per file state."""
    return json.dumps(json.loads(Path(path).read_text())["key"])
