"""The bench's typed result (specdec/bench/record.py): JSON round-trip, the shipped files, files
written before the records (flat), and one message naming where a file is wrong."""
import json
from pathlib import Path

import pytest

from specdec.bench.record import Bench, BenchFileError, Clock, Row, RowKind, Setting
from specdec.bench.runner import ROWS, tree_row

SHIPPED = sorted((Path(__file__).resolve().parent.parent / "assets" / "bench").glob("*.json"))


@pytest.mark.parametrize("path", [p for p in SHIPPED if p.name != "onnx-agreement.json"], ids=lambda p: p.name)
def test_every_shipped_bench_reads_and_writes_back_the_same(path):
    bench = Bench.from_json(path.read_bytes())
    assert Bench.from_json(bench.to_json()) == bench
    assert json.loads(path.read_text())["format"] == 2                # shipped as the bench writes now
    for s in bench.settings:
        assert s.row(RowKind.AR) and s.row(RowKind.SPEC) and all(r.kind in RowKind for r in s.rows)


def _flat(**changes) -> dict:
    """A format-1 file: machine and clock fields at the top, not-compared rows as a list and reasons."""
    rows = [{"row": "engine autoregressive", "tokens_per_s": 10.0, "tokens": 20, "seconds": [2.0]},
            {"row": "engine speculative", "tokens_per_s": 20.0, "tokens": 20, "seconds": [1.0], "speedup": 2.0},
            {"row": "llama.cpp generate", "tokens_per_s": 30.0, "tokens": 30, "seconds": [1.0]}]
    setting = {"k": 2, "temperature": 0.0, "rows": rows, "identical": True, "mismatches": [],
               "not_compared": ["llama.cpp generate"], "not_compared_why": {"llama.cpp generate": "text"}}
    data = {"target": "t", "draft": "d", "prompts": 2, "max_new_tokens": 8, "repeats": 1, "c": 0.1,
            "settings": [setting], "cpu": "a CPU", "threads": 2, "backend": "torch", "load": 0.2,
            "clock": "wall"}
    data.update(changes)
    return data


def test_a_file_from_before_the_records_loads_with_its_fields_in_place():
    bench = Bench.from_json(json.dumps(_flat()))
    assert (bench.machine.cpu, bench.machine.threads, bench.clocks.load, bench.clocks.clock) == \
        ("a CPU", 2, 0.2, Clock.WALL)
    assert bench.settings[0].not_compared == {"llama.cpp generate": "text"}
    assert bench.settings[0].row(RowKind.SPEC).speedup == 2.0 and bench.drafter == "model"
    older = _flat()
    older["settings"][0]["not_compared_why"] = "one reason for all"        # older still: one text
    assert Bench.from_json(json.dumps(older)).settings[0].not_compared == {"llama.cpp generate": "one reason for all"}


@pytest.mark.parametrize("change, where", [
    ({"clock": "sundial"}, "bench.clocks.clock"),
    ({"threads": 2.5}, "bench.machine.threads"),
    ({"prompts": "2"}, "bench.prompts"),
    ({"drafter": "nobody's"}, "bench.drafter"),
    ({"settings": []}, "bench.settings"),
    ({"cpu": "x" * 2000}, "longer than 1000"),
])
def test_a_wrong_file_is_one_message_that_says_where(change, where):
    with pytest.raises(BenchFileError) as err:
        Bench.from_json(json.dumps(_flat(**change)))
    assert where in str(err.value)


def test_rows_the_bench_does_not_write_and_missing_engine_rows_are_refused():
    unknown = _flat()
    unknown["settings"][0]["rows"][2]["row"] = "my own row"
    with pytest.raises(BenchFileError, match=r"settings\[0\]\.rows\[2\]\.row"):
        Bench.from_json(json.dumps(unknown))
    alone = _flat()
    del alone["settings"][0]["rows"][0]
    with pytest.raises(BenchFileError, match="autoregressive and speculative rows"):
        Bench.from_json(json.dumps(alone))


def test_row_kinds_name_every_row_the_runner_writes():
    assert [RowKind.of(str(r)) for r in ROWS] == list(ROWS)
    assert RowKind.of(tree_row(8)) is RowKind.TREE
    assert Setting(2, 0.0, (Row(tree_row(4), 1.0),)).row(RowKind.TREE).row == tree_row(4)
    with pytest.raises(ValueError):
        RowKind.of("engine treehouse")
