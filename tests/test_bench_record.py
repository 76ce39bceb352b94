"""The bench's typed result (specdec/bench/record.py): JSON round-trip, the shipped files, its
provenance, files of an older schema refused, and one message naming where a file is wrong."""
import dataclasses
import json
from pathlib import Path

import pytest

from specdec.bench.record import Bench, BenchFileError, Row, RowKind, Setting
from specdec.bench.runner import ROWS, tree_row
from specdec.records.codec import SCHEMA
from specdec.records.provenance import Clock, Provenance

SHIPPED = sorted((Path(__file__).resolve().parent.parent / "assets" / "bench").glob("*.json"))


@pytest.mark.parametrize("path", [p for p in SHIPPED if p.name != "onnx-agreement.json"], ids=lambda p: p.name)
def test_every_shipped_bench_reads_and_writes_back_the_same(path):
    bench = Bench.from_json(path.read_bytes())
    assert Bench.from_json(bench.to_json()) == bench
    assert json.loads(path.read_text())["schema"] == SCHEMA            # shipped as the bench writes now
    assert bench.provenance.clock in Clock and bench.provenance.date        # with where and when
    for s in bench.settings:
        assert s.row(RowKind.AR) and s.row(RowKind.SPEC) and all(r.kind in RowKind for r in s.rows)


def _bench(**changes) -> dict:
    """A bench file as this version writes it; `changes` go into its provenance when they name a
    provenance field."""
    rows = [{"row": "engine autoregressive", "tokens_per_s": 10.0, "tokens": 20, "seconds": [2.0]},
            {"row": "engine speculative", "tokens_per_s": 20.0, "tokens": 20, "seconds": [1.0], "speedup": 2.0},
            {"row": "llama.cpp generate", "tokens_per_s": 30.0, "tokens": 30, "seconds": [1.0]}]
    setting = {"k": 2, "temperature": 0.0, "rows": rows, "identical": True, "mismatches": [],
               "not_compared": {"llama.cpp generate": "text"}}
    data = {"schema": SCHEMA, "record": "Bench", "target": "t", "draft": "d", "prompts": 2, "max_new_tokens": 8,
            "repeats": 1, "c": 0.1, "settings": [setting],
            "provenance": {"cpu": "a CPU", "threads": 2, "backend": "torch", "load": 0.2, "clock": "wall"}}
    for key, value in changes.items():
        (data["provenance"] if key in PROVENANCE else data)[key] = value
    return data


PROVENANCE = {f.name for f in dataclasses.fields(Provenance)}


def test_a_file_carries_where_it_was_measured():
    bench = Bench.from_json(json.dumps(_bench()))
    p = bench.provenance
    assert (p.cpu, p.threads, p.load, p.clock) == ("a CPU", 2, 0.2, Clock.WALL)
    assert bench.settings[0].not_compared == {"llama.cpp generate": "text"}
    assert bench.settings[0].row(RowKind.SPEC).speedup == 2.0 and bench.drafter == "model"


def test_a_file_of_an_older_schema_is_refused_not_read_by_a_special_case():
    older = _bench()
    del older["schema"]
    with pytest.raises(BenchFileError, match="schema None; this version reads schema 3"):
        Bench.from_json(json.dumps(older))
    with pytest.raises(BenchFileError, match="not a Bench"):
        Bench.from_json(json.dumps(_bench(record="KSweep")))


@pytest.mark.parametrize("change, where", [
    ({"clock": "sundial"}, "bench.provenance.clock"),
    ({"threads": 2.5}, "bench.provenance.threads"),
    ({"prompts": "2"}, "bench.prompts"),
    ({"drafter": "nobody's"}, "bench.drafter"),
    ({"settings": []}, "bench.settings"),
    ({"cpu": "x" * 2000}, "longer than 1000"),
])
def test_a_wrong_file_is_one_message_that_says_where(change, where):
    with pytest.raises(BenchFileError) as err:
        Bench.from_json(json.dumps(_bench(**change)))
    assert where in str(err.value)


def test_rows_the_bench_does_not_write_and_missing_engine_rows_are_refused():
    unknown = _bench()
    unknown["settings"][0]["rows"][2]["row"] = "my own row"
    with pytest.raises(BenchFileError, match=r"settings\[0\]\.rows\[2\]\.row"):
        Bench.from_json(json.dumps(unknown))
    alone = _bench()
    del alone["settings"][0]["rows"][0]
    with pytest.raises(BenchFileError, match="autoregressive and speculative rows"):
        Bench.from_json(json.dumps(alone))


def test_row_kinds_name_every_row_the_runner_writes():
    assert [RowKind.of(str(r)) for r in ROWS] == list(ROWS)
    assert RowKind.of(tree_row(8)) is RowKind.TREE
    assert Setting(2, 0.0, (Row(tree_row(4), 1.0),)).row(RowKind.TREE).row == tree_row(4)
    with pytest.raises(ValueError):
        RowKind.of("engine treehouse")


def test_a_bench_says_whether_its_c_is_a_probe_or_what_the_runs_paid():
    """c_probed: c equal to draft_step_ms / target_step_ms (1.25 / 12.5 = 0.1) is the one-step probe;
    a c the runs paid (measure.c_paid: 0.16 here) is not, nor is a bench without step times."""
    probe = Bench.from_json(json.dumps(_bench(c=0.1, draft_step_ms=1.25, target_step_ms=12.5)))
    paid = Bench.from_json(json.dumps(_bench(c=0.16, draft_step_ms=1.25, target_step_ms=12.5)))
    assert probe.c_probed and not paid.c_probed and not Bench.from_json(json.dumps(_bench())).c_probed
