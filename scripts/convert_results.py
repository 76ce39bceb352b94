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

from specdec.bench.agreement import Agreement  # noqa: E402
from specdec.bench.compared import DrafterTable  # noqa: E402
from specdec.bench.fidelity import Fidelity  # noqa: E402
from specdec.bench.points import Sweep, TempSweep  # noqa: E402
from specdec.bench.record import BatchSweep, Bench  # noqa: E402
from specdec.bench.server import PrefixRun, Timeline  # noqa: E402
from specdec.bench.where import WhereSet  # noqa: E402
from specdec.beyond.record import Result  # noqa: E402
from specdec.records import codec  # noqa: E402
from specdec.records.codec import SCHEMA  # noqa: E402
from specdec.records.provenance import clock_for  # noqa: E402

RESULTS = sorted((ROOT / "assets" / "results").glob("*.json"))
BENCHES = sorted(p for p in (ROOT / "assets" / "bench").glob("*.json") if p.name != "onnx-agreement.json")
# flat measurement files with their CPU and date among their fields -> the record they are
FLAT = {ROOT / "assets" / "bench" / "onnx-agreement.json": Agreement,
        **{p: Fidelity for p in (ROOT / "assets" / "fidelity").glob("*.json")}}


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


# the lesson sweeps' old names -> the one vocabulary's (records/vocabulary.py)
RENAMED = {"tokens_per_round": "mean_acceptance_length", "theory_tokens": "expected_length",
           "theory_speedup": "bound", "theory_speedup_v": "bound_with_verify", "profile_tokens": "profile_length",
           "paid_speedup": "predicted_run"}


def renamed(row: dict) -> dict:
    return {RENAMED.get(k, k): v for k, v in row.items()}


def provenance(data: dict, loads: list[float], clock: str | None) -> dict:
    """An old shipped file's "measured" block (and the key's backend) as a provenance."""
    m, load = data["measured"], max(loads) if loads else None
    date, revision = shipped_by(data["path"])
    return {"cpu": m.get("cpu"), "cores": m.get("cores"), "threads": m.get("threads"),
            "backend": data["key"].get("backend"), "clock": clock or clock_for(load).value, "load": load,
            "torch": m.get("torch"), "revision": revision, "date": m.get("date") or date, "seconds": m.get("seconds")}


def points(rows: list[dict]) -> tuple[list[dict], list[float], str | None]:
    return [renamed(r) for r in rows], [r["load"] for r in rows if "load" in r], next(
        (r["clock"] for r in rows if "clock" in r), None)


def sweep(data: dict) -> dict:
    """A k sweep, a draft-size trade-off, a temperature sweep or Drafters compared: its rows as points."""
    rows, loads, clock = points(data["value"])
    return {"points": rows, "provenance": provenance(data, loads, clock)}


def where(data: dict) -> dict:
    v = data["value"]
    return {"results": v["results"], "provenance": provenance(data, [v["load"]], None)}


def batch(data: dict) -> dict:
    v = data["value"]
    return {**v, "provenance": provenance(data, [v["load"]], v["clock"])}


def plain(data: dict) -> dict:
    return {**data["value"], "provenance": provenance(data, [], None)}


def cascade(data: dict) -> dict:
    """Beyond tokens: its run's own load and judge backend join the provenance (its ms are wall-clock)."""
    v = data["value"]
    return {**v, "provenance": {**provenance(data, [v["load"]], "wall"), "backend": v["judge_backend"]}}


KINDS = {"ksweep": (Sweep, sweep), "tradeoff": (Sweep, sweep), "temps": (TempSweep, sweep),
         "drafters": (DrafterTable, sweep), "where": (WhereSet, where), "server_sweep": (BatchSweep, batch),
         "server_timeline": (Timeline, plain), "server_prefix": (PrefixRun, plain), "beyond": (Result, cascade)}


def convert_result(path: Path) -> None:
    data = json.loads(path.read_text())
    if data["kind"] not in KINDS or "measured" not in data:
        return
    record, convert = KINDS[data["kind"]]
    value = {"schema": SCHEMA, "record": record.__name__, **convert({**data, "path": path})}
    codec.from_data(record, value, path.name)                  # reads as the app reads it
    out = {"kind": data["kind"], "key": data["key"], "value": value}
    path.write_text(json.dumps(out) + "\n")
    print("converted", path.relative_to(ROOT))


def convert_flat(path: Path, record) -> None:
    """A flat file (the measurement's fields, its CPU and date beside them) as `record`."""
    data = json.loads(path.read_text())
    if data.get("schema") == SCHEMA:
        return
    _date, revision = shipped_by(path)
    prov = {"cpu": data.pop("cpu", None), "date": data.pop("date", None), "revision": revision, "threads": 1}
    value = {"schema": SCHEMA, "record": record.__name__, **data, "provenance": prov}
    codec.from_data(record, value, path.name)
    path.write_text(json.dumps(value, indent=1) + "\n")
    print("converted", path.relative_to(ROOT))


def main() -> int:
    for path in BENCHES:
        convert_bench(path)
    for path in RESULTS:
        convert_result(path)
    for path, record in FLAT.items():
        convert_flat(path, record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
