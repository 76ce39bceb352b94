"""Measure the Beyond tokens lesson on the held-out questions and ship the result with the app.

    SPECDEC_SHIP=1 nice -n 10 .venv/bin/python scripts/beyond_ship.py --lang en,ko --reference en:30,ko:10

Takes `python -m specdec.beyond cascade`'s options (the split is always held-out), prints its
table and files the result under assets/results/beyond-<key>.json (ui/lessons/shipped.py),
labelled with this CPU and the date. The two parts can run side by side and be joined:

    python -m specdec.beyond cascade --no-agents ... --out retrieval.json
    python -m specdec.beyond cascade --no-retrieval ... --out agents.json
    SPECDEC_SHIP=1 .venv/bin/python scripts/beyond_ship.py --merge retrieval.json agents.json

(a later file's outcome of the same query and language replaces an earlier one's; the table is
computed again from the joined outcomes, over every pool size, gate and k the files had).

Run it on a quiet machine: the costs are timings (the result records the load it saw).
"""
from __future__ import annotations

import dataclasses
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from specdec.beyond import agents, cascade, cli, record  # noqa: E402
from ui.lessons import beyond, shipped  # noqa: E402


def merged(paths: list[Path]) -> record.Result:
    """The files' outcomes joined (same split, judge and first stage), the table computed again."""
    parts = [record.from_json(p.read_text()) for p in paths]
    if len({(r.split, r.judge_format, r.first_stage) for r in parts}) != 1:
        raise SystemExit("the files were measured with different splits, judges or first stages")
    outcomes = {(o.id, o.lang): o for r in parts for o in r.outcomes}
    tools = {(o.id, o.lang): o for r in parts for o in r.agent_outcomes}
    pools = sorted({w.pool for r in parts for w in r.rows})
    gates = sorted({w.gate for r in parts for w in r.rows})
    ks = sorted({a.k for r in parts for a in r.agent_rows})
    first = parts[0]
    return dataclasses.replace(
        first, reference=max(r.reference for r in parts if r.outcomes), load=max(r.load for r in parts),
        stages=cascade.stage_quality(list(outcomes.values())),
        rows=tuple(cascade.table(list(outcomes.values()), pools, gates, first.first_stage)),
        outcomes=tuple(outcomes.values()),
        agent_rows=tuple(agents.rows(list(tools.values()), ks, first.first_stage)),
        agent_outcomes=tuple(tools.values()))


def seconds(r: record.Result) -> float:
    """The measured compute: every stage's time of every query and request."""
    return sum(sum(o.ms_cheap.values()) + o.ms_prefix + sum(o.ms_each)
               for o in r.outcomes + r.agent_outcomes) / 1e3


def main(argv: list[str]) -> int:
    if not shipped.shipping():
        print(f"set {shipped.SHIP_ENV}=1 to ship the result")
        return 2
    if argv[:1] == ["--merge"]:
        result = merged([Path(p) for p in argv[1:]])
    else:
        args = cli.parser().parse_args(["cascade", *argv, "--split", "held-out"])
        import torch
        torch.set_num_threads(args.threads)
        t0 = time.perf_counter()
        result = cli.measure(args)
        print(f"{time.perf_counter() - t0:.0f} s")
    print(cli.show(result))
    import torch
    torch.set_num_threads(result.threads)          # the label says the threads the stages ran on
    result = dataclasses.replace(result, provenance=dataclasses.replace(result.provenance, seconds=seconds(result)))
    path = shipped.save(beyond.KIND, beyond.key(), result)
    print(f"shipped: {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main(sys.argv[1:]))
