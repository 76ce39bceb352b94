"""Convert the measurement files shipped under assets/ to the one record form (issue 50), once.

    .venv/bin/python scripts/convert_results.py            # rewrites the files in place

The app reads every measurement through records/codec.py at one schema and has no readers for
older forms; this script is how the files shipped before that were brought to it (run once, its
output committed). Each file's provenance is taken from what the file said about where it was
measured; what it did not say stays None, except the date and revision, which come from the
commit that shipped the file when the file has none of its own.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from specdec.bench.record import Bench  # noqa: E402
from specdec.records.codec import SCHEMA  # noqa: E402

BENCHES = sorted(p for p in (ROOT / "assets" / "bench").glob("*.json") if p.name != "onnx-agreement.json")


def shipped_by(path: Path) -> tuple[str | None, str | None]:
    """(date, revision) of the commit that last shipped `path`."""
    out = subprocess.run(["git", "log", "-1", "--format=%cs %h", "--", str(path)], cwd=ROOT,
                         capture_output=True, text=True).stdout.split()
    return (out[0], out[1]) if len(out) == 2 else (None, None)


def bench_provenance(data: dict, date: str | None, revision: str | None) -> dict:
    """A schema-2 bench's machine and clocks as its provenance."""
    m, c = data.pop("machine", {}), data.pop("clocks", {})
    return {"cpu": m.get("cpu"), "threads": m.get("threads"), "backend": m.get("backend", "torch"),
            "kernels": m.get("target_kernels"), "bandwidth": m.get("target_bandwidth"),
            "backend_note": m.get("backend_note"), "clock": c.get("clock", "wall"), "load": c.get("load"),
            "date": date, "revision": revision}


def convert_bench(path: Path) -> None:
    data = json.loads(path.read_text())
    if data.get("schema") == SCHEMA:
        return
    assert data.pop("format") == 2, path
    prov = bench_provenance(data, *shipped_by(path))
    for b in data.get("batch", []):
        b["provenance"] = {**prov, "clock": b["clock"], "load": b["load"]}
    data = {"schema": SCHEMA, "record": "Bench", **data, "provenance": prov}
    Bench.from_json(json.dumps(data))                   # reads as the app reads it
    path.write_text(json.dumps(data, indent=1) + "\n")
    print("converted", path.relative_to(ROOT))


def main() -> int:
    for path in BENCHES:
        convert_bench(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
