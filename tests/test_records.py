"""Every measurement carries where and how it was taken (records/provenance.py), in one JSON form
(records/codec.py) that refuses other schemas and other records with one message."""
import dataclasses
import json
import subprocess
import time
from pathlib import Path

import pytest
import torch

from specdec.models import kernels
from specdec.records import codec
from specdec.records.provenance import BUSY_LOAD, Clock, Provenance, here, revision

ROOT = Path(__file__).resolve().parents[1]


def test_here_is_this_machine_now():
    p = here(load=BUSY_LOAD / 2, started=time.perf_counter() - 2.0)
    assert p.cpu == kernels.cpu_model() and p.threads == torch.get_num_threads()
    assert p.instructions == torch.backends.cpu.get_cpu_capability() and p.torch in torch.__version__
    assert p.date == time.strftime("%Y-%m-%d") and 2.0 <= p.seconds < 60
    assert p.clock is Clock.WALL and p.load == BUSY_LOAD / 2
    assert here(load=BUSY_LOAD).clock is Clock.CPU                  # busy: the headline is on CPU time


def test_the_revision_is_the_checkouts_commit_read_without_git():
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    assert head and revision() == head[:12]
    assert revision(Path("/nonexistent")) is None


def test_the_revision_of_a_worktree_is_its_own_commit(tmp_path):
    """A worktree's .git is a file naming its folder: its HEAD there, its branch's ref in the common folder."""
    def git(*args, cwd=tmp_path / "repo"):
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                              capture_output=True, text=True, check=True).stdout.strip()
    (tmp_path / "repo").mkdir()
    git("init", "-q", "-b", "main")
    for n in ("one", "two"):
        (tmp_path / "repo" / "f").write_text(n)
        git("add", "f")
        git("commit", "-q", "-m", n)
    git("worktree", "add", "-q", "-b", "side", str(tmp_path / "side"), "HEAD~1")
    side = git("rev-parse", "HEAD", cwd=tmp_path / "side")
    assert (tmp_path / "side" / ".git").is_file() and side != git("rev-parse", "HEAD")
    assert revision(tmp_path / "side") == side[:12] and revision(tmp_path / "repo") == git("rev-parse", "HEAD")[:12]


@dataclasses.dataclass(frozen=True)
class Thing:
    x: float
    clock: Clock
    provenance: Provenance = Provenance()


def test_a_record_round_trips_with_its_schema_and_name():
    thing = Thing(1.5, Clock.CPU, Provenance(cpu="a CPU", threads=2, load=1.2))
    data = json.loads(codec.to_json(thing))
    assert data["schema"] == codec.SCHEMA and data["record"] == "Thing"
    assert codec.from_json(Thing, codec.to_json(thing)) == thing


@pytest.mark.parametrize("change, words", [
    ({"schema": 2}, "schema 2; this version reads schema 3"), ({"record": "Bench"}, "not a Thing"),
    ({"x": "1.5"}, "thing.x"), ({"clock": "sundial"}, "thing.clock"),
    ({"provenance": {"threads": "two"}}, "thing.provenance.threads")])
def test_anything_else_is_one_message_that_says_where(change, words):
    data = {**codec.to_data(Thing(1.5, Clock.WALL)), **change}
    with pytest.raises(codec.RecordFileError, match=words.replace(".", r"\.")):
        codec.from_data(Thing, data, "thing")


def test_non_finite_numbers_are_written_as_none():
    assert json.loads(codec.to_json(Thing(float("nan"), Clock.WALL)))["x"] is None


def _records() -> dict:
    from specdec.bench.agreement import Agreement
    from specdec.bench.compared import DrafterTable
    from specdec.bench.fidelity import Fidelity
    from specdec.bench.points import Sweep, TempSweep
    from specdec.bench.record import BatchSweep, Bench
    from specdec.bench.server import PrefixRun, Timeline
    from specdec.bench.where import WhereSet
    from specdec.beyond.record import Result
    from ui.lessons.trees import ChainOrTree
    kinds = (Agreement, DrafterTable, Fidelity, Sweep, TempSweep, BatchSweep, Bench, PrefixRun, Timeline, WhereSet,
             Result, ChainOrTree)
    return {k.__name__: k for k in kinds}


SHIPPED = sorted([*(ROOT / "assets" / "bench").glob("*.json"), *(ROOT / "assets" / "fidelity").glob("*.json"),
                  *(ROOT / "assets" / "results").glob("*.json")])


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_measurement_loads_through_its_record_with_its_provenance(path):
    """Issue 50: no shipped file is read by a special case; each says on which CPU (or, for two early
    benches that did not record it, which instructions: the commit that shipped them said "AVX2
    machine") and when."""
    data = json.loads(path.read_text())
    value = data["value"] if path.parent.name == "results" else data
    found = codec.from_data(_records()[value["record"]], value, path.name)
    assert (found.provenance.cpu or found.provenance.instructions) and found.provenance.date
