"""Measurement stores are checked, never trusted (issue 48): a bad entry is measured again with one
line on stderr; a store that cannot be read or written is said once and the run goes on."""
import json

import pytest

from specdec.bench import machine
from specdec.files import jsonstore
from specdec.models import kernels


@pytest.fixture(autouse=True)
def fresh_lines(monkeypatch):
    monkeypatch.setattr(jsonstore, "_said", set())


def profile_entry(**changes):
    good = machine.Profile("CPU", "torch", 1, 7.5, {1: 1.0, 5: 1.3}, {"draft": 0.1}, 9.0, 50.0, 80.0, 135.0, "now")
    entry = json.loads(json.dumps(machine.asdict(good)))
    entry.update(changes)
    return entry


@pytest.mark.parametrize("changes", [
    {"step_ms": "fast"}, {"v": {"1": "x"}}, {"v": None}, {"c": {"draft": None}}, {"bandwidth_gbs": "abc"},
    {"threads": "1"}, {"step_ms": 0}, {"unknown": 1}, {"v": {"one": 1.0}},
])
def test_a_machine_profile_with_wrong_types_is_measured_again(tmp_path, monkeypatch, capsys, changes):
    monkeypatch.setattr(machine, "STORE", tmp_path / "machine.json")
    machine.STORE.write_text(json.dumps({machine.key("CPU", "torch", 1): profile_entry(**changes)}))
    assert machine.load("CPU", "torch", 1) is None
    assert "machine.json: the entry for" in capsys.readouterr().err


def test_a_good_machine_profile_is_read_back(tmp_path, monkeypatch):
    monkeypatch.setattr(machine, "STORE", tmp_path / "machine.json")
    machine.STORE.write_text(json.dumps({machine.key("CPU", "torch", 1): profile_entry()}))
    assert machine.load("CPU", "torch", 1).v == {1: 1.0, 5: 1.3}


@pytest.mark.parametrize("choice", [
    {"precision": "int4", "table": {}, "weight_mb": {"int4": "x"}, "ms": {}},
    {"precision": "int4", "table": {"abc": "plain"}, "weight_mb": {"int4": 1.0}, "ms": {}},
    {"precision": "int4", "table": {}, "weight_mb": {"int4": 1.0}, "ms": {"int4": {"1": "slow"}}},
    {"precision": "int4", "table": {}, "weight_mb": {"int4": 1.0}, "ms": {}, "bandwidth_gbs": "fast"},
    {"precision": "fp8", "table": {}, "weight_mb": {}, "ms": {}},
])
def test_a_kernel_choice_with_wrong_types_is_not_used(choice):
    assert not kernels._valid(choice, ("float32", "int4"))
    assert kernels._valid({"precision": "int4", "table": {"1": "plain"}, "weight_mb": {"int4": 1.0},
                           "ms": {"int4": {"1": 2.0}}, "bandwidth_gbs": 9.0}, ("float32", "int4"))


def test_a_store_that_is_a_folder_or_read_only_is_said_once_and_the_run_goes_on(tmp_path, capsys):
    folder = tmp_path / "backends.json"
    folder.mkdir()
    assert jsonstore.read(folder) == {} and jsonstore.entry(folder, "k", bool) is None
    jsonstore.put(folder, "k", {"torch": 1.0})
    jsonstore.put(folder, "k", {"torch": 1.0})
    err = capsys.readouterr().err
    assert err.count("cannot keep measurements here") == 1 and folder.is_dir()


def test_json_output_is_valid_json_whatever_the_floats():
    assert json.loads(json.dumps(jsonstore.finite({"a": float("nan"), "b": [1.0, float("inf")], "c": (2,)}),
                                 allow_nan=False)) == {"a": None, "b": [1.0, None], "c": [2]}


def test_a_lesson_result_that_cannot_be_kept_is_said_once_and_a_damaged_one_measured_again(tmp_path, monkeypatch,
                                                                                           capsys):
    from specdec.bench.points import TempPoint, TempSweep
    from specdec.records.provenance import Provenance
    from ui.lessons import result_cache
    sweep = TempSweep((TempPoint(temperature=0.0, alpha=0.5, acceptance_rate=0.4, mean_acceptance_length=1.5),),
                      Provenance(cpu="a CPU"))
    (tmp_path / "file").write_text("x")
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path / "file" / "results")   # cannot be made
    monkeypatch.setattr(result_cache, "_told", set())
    result_cache.save("k", {"a": 1}, sweep)
    result_cache.save("k", {"a": 2}, sweep)
    assert capsys.readouterr().err.count("cannot keep results") == 1
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path / "kept")
    result_cache.path_for("k", {"a": 1}).parent.mkdir(parents=True)
    result_cache.path_for("k", {"a": 1}).mkdir()                                      # a folder in its place
    assert result_cache.load("k", {"a": 1}, TempSweep) is None
    result_cache.path_for("k", {"a": 1}).rmdir()
    result_cache.path_for("k", {"a": 1}).write_text('{"specdec-kept": 1, "value": {"schema": 3')   # cut short
    assert result_cache.load("k", {"a": 1}, TempSweep) is None
    result_cache.save("k", {"a": 1}, sweep)
    assert result_cache.load("k", {"a": 1}, TempSweep) == sweep                      # measured again, kept


def test_a_profile_belongs_to_the_target_it_measured(tmp_path, monkeypatch):
    """Another target on the same backend is not priced with this one's profile."""
    monkeypatch.setattr(machine, "STORE", tmp_path / "machine.json")
    machine.save(machine.Profile("CPU", "torch", 1, 10.0, {1: 1.0, 5: 1.3}, target="fam/target"))
    assert machine.load("CPU", "torch", 1, "fam/target").v == {1: 1.0, 5: 1.3}
    assert machine.load("CPU", "torch", 1, "other/target") is None and machine.load("CPU", "torch", 1) is None
