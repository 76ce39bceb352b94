"""Results measured ahead and shipped with the app (assets/results/), for pages whose
measurement takes minutes on a CPU (the real model writes ~16 tokens/s on 2 cores).

A shipped result is found by the page's own key and the *content* of the embedded weights
(sha1 of every safetensors file under assets/models), so it holds on any clone with the
same weights and is ignored after a retrain (or once the engine's speed changed:
measure.TIMING_REVISION). Its record's provenance says where, when and how it was measured;
a page shows that and offers to measure on the user's machine instead.
`scripts/ship_results.py` makes them: it runs the pages with SPECDEC_SHIP=1.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

from specdec.bench.measure import TIMING_REVISION
from specdec.files import atomic
from specdec.models.kernels import cpu_model
from specdec.models.names import ASSETS
from specdec.records import codec
from ui.lessons import result_cache

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_DIR = ROOT / "assets" / "results"
SHIP_ENV = "SPECDEC_SHIP"


def alike(cpu: str | None) -> bool:
    """A shipped result measured on a CPU of this machine's model: its figures are this machine's kind's,
    shown as measured ("a machine like this one"), never priced again beside themselves (reviews 22–24: one
    setting, one figure)."""
    return bool(cpu) and cpu == cpu_model()


def shipping() -> bool:
    """Set SPECDEC_SHIP=1 to write each fresh result into assets/results as well."""
    return os.environ.get(SHIP_ENV, "").strip() in ("1", "true", "yes")


def weights_digest(root: Path | None = None) -> str:
    root = root or ASSETS
    files = tuple(sorted((str(f.relative_to(root)), f.stat().st_size, f.stat().st_mtime_ns)
                         for f in root.glob("**/*.safetensors")))
    return _digest(str(root), files)


@functools.lru_cache(maxsize=4)
def _digest(root: str, files: tuple) -> str:
    """sha1 over every weights file's name and content (sizes and mtimes only key the cache)."""
    h = hashlib.sha1()
    for name, _size, _mtime in files:
        h.update(name.encode())
        h.update(hashlib.sha1((Path(root) / name).read_bytes()).digest())
    return h.hexdigest()


def path_for(kind: str, key: dict, cpu: str | None = None) -> Path:
    """The file of a result shipped for `key` (`cpu`: the one a later CPU model shipped beside the first)."""
    made = {"key": key, "weights": weights_digest(), "timing": TIMING_REVISION} | ({"cpu": cpu} if cpu else {})
    blob = json.dumps(made, sort_keys=True, default=str)
    return SHIPPED_DIR / f"{kind}-{hashlib.sha1(blob.encode()).hexdigest()[:16]}.json"


def load(kind: str, key: dict, record):
    """The shipped `record` (a type, with its provenance) for this key and these weights, or None: the
    one measured on this machine's CPU model where one was shipped, else the first shipped."""
    return read(path_for(kind, key, cpu_model()), record) or read(path_for(kind, key), record)


def read(path: Path, record):
    """A shipped file's record (None: missing, damaged or not a `record`), decoded once per file
    state as the result cache decodes its own files."""
    return result_cache.read(path, record, kept=False)


def all_of(kind: str, record) -> list[tuple[dict, object]]:
    """(key, record) of every shipped result of `kind` that is valid for these weights and this
    engine's timing revision (its file name is its key's digest), one a key: as `load` picks it."""
    found: dict[str, tuple[int, dict, object]] = {}
    for path in sorted(SHIPPED_DIR.glob(f"{kind}-*.json")):
        try:
            data = json.loads(path.read_text())
            key, cpu = data["key"], data.get("cpu")
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
        value = read(path, record) if path_for(kind, key, cpu) == path else None
        name, rank = json.dumps(key, sort_keys=True, default=str), 0 if cpu == cpu_model() else 1 if not cpu else 2
        if value is not None and (name not in found or rank < found[name][0]):   # mine, else the first, else any
            found[name] = (rank, key, value)
    return [(key, value) for _rank, key, value in found.values()]


def save(kind: str, key: dict, record) -> Path:
    """Ship `record` (its provenance says where, when and how long) under this key: as the key's first
    result, or beside it where a machine of another CPU model shipped that (each machine then reads its
    own CPU model's, others the first)."""
    mine = getattr(getattr(record, "provenance", None), "cpu", None)
    first = read(path_for(kind, key), type(record))
    other = first is not None and mine and getattr(first.provenance, "cpu", None) != mine
    path = path_for(kind, key, mine if other else None)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(path, json.dumps({"kind": kind, "key": key, "value": codec.to_data(record),
                                        **({"cpu": mine} if other else {})}) + "\n")
    return path
