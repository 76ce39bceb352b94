"""Files the project keeps are written whole or not at all (specdec/atomic.py): a write that
fails part-way — a full disk, a size limit — leaves the old file byte for byte, no temporary
file beside it, and the error reaches the caller."""
import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from specdec.files import atomic

ROOT = Path(__file__).resolve().parents[1]
OLD = b'{"old": "kept byte for byte"}\n'

# A child process whose files may grow to LIMIT bytes (SIGXFSZ ignored, so a write past it is an
# OSError EFBIG, as a full disk's ENOSPC would be): each writer tries to replace a small old file
# with more than the limit. "plain" is the control: Path.write_text, which the limit cuts short.
CHILD = """
import json, resource, signal, sys
from pathlib import Path
import torch
from specdec.files import atomic
from specdec.models import kernels
from specdec.train.stdlib import loop
from specdec.bench.points import TempPoint, TempSweep
from specdec.records.provenance import Provenance
from ui.lessons import result_cache, shipped

folder, old = Path(sys.argv[1]), Path(sys.argv[2]).read_bytes()
big = "x" * 200_000
sweep = TempSweep((TempPoint(temperature=0.0, alpha=0.5, acceptance_rate=0.4, mean_acceptance_length=1.5),),
                  Provenance(cpu=big))
kernels.STORE = folder / "kernels.json"
result_cache.RESULTS_DIR = shipped.SHIPPED_DIR = folder
model = torch.nn.Linear(300, 300)                                  # 360 kB of weights
writers = {
    "plain": (folder / "plain.json", lambda p: p.write_text(big)),
    "atomic": (folder / "atomic.json", lambda p: atomic.write_text(p, big)),
    "kernels": (kernels.STORE, lambda p: kernels._write("key", {"table": big})),
    "result_cache": (result_cache.path_for("k", {"a": 1}), lambda p: result_cache.save("k", {"a": 1}, sweep)),
    "shipped": (shipped.path_for("s", {"a": 1}), lambda p: shipped.save("s", {"a": 1}, sweep)),
    "checkpoint": (folder / "ckpt.pt",
                   lambda p: loop._save_ckpt(p, model, torch.optim.SGD(model.parameters(), 0.1), 1, 1.0)),
}
for path, _write in writers.values():
    path.write_bytes(old)
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (65536, resource.RLIM_INFINITY))
raised = {}
for name, (path, write) in writers.items():
    try:
        write(path)
        raised[name] = None
    except Exception as err:
        raised[name] = type(err).__name__
print(json.dumps({name: [str(path), raised[name]] for name, (path, _w) in writers.items()}))
"""


def test_a_write_past_a_size_limit_leaves_every_kept_file_as_it_was(tmp_path):
    (tmp_path / "old").write_bytes(OLD)
    folder = tmp_path / "kept"
    folder.mkdir()
    done = subprocess.run([sys.executable, "-c", CHILD, str(folder), str(tmp_path / "old")], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    path, raised = result.pop("plain")
    assert raised == "OSError" and Path(path).read_bytes() != OLD     # the control: a plain write cuts it
    stores = {name: result.pop(name) for name in ("kernels", "result_cache")}   # said on stderr; the run goes on
    assert "kernels.json: cannot keep measurements here" in done.stderr and "cannot keep results in" in done.stderr
    for name, (path, raised) in stores.items():
        assert raised is None and Path(path).read_bytes() == OLD, name
    for name, (path, raised) in result.items():
        assert raised is not None, name                                   # the error reached the caller
        assert Path(path).read_bytes() == OLD, name                       # the old file, byte for byte
    leftovers = sorted(p.name for p in folder.iterdir() if p.name != "plain.json" and Path(p) not in
                       {Path(path) for path, _r in [*result.values(), *stores.values()]})
    assert leftovers == []                                                # no temporary file left


class FullDisk:
    """A file whose disk fills after its first 10 bytes."""

    def __init__(self, path, mode):
        self.fh = open(path, mode)

    def write(self, data):
        self.fh.write(data[:10])
        self.fh.flush()
        raise OSError(errno.ENOSPC, "No space left on device")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.fh.close()


def test_a_disk_full_part_way_keeps_the_old_file_and_says_so(tmp_path, monkeypatch):
    path = tmp_path / "kept.json"
    path.write_bytes(OLD)
    monkeypatch.setattr(atomic, "open", FullDisk, raising=False)   # the module's own open()
    with pytest.raises(OSError) as caught:
        atomic.write_text(path, "n" * 5000)
    assert caught.value.errno == errno.ENOSPC
    assert path.read_bytes() == OLD and [p.name for p in tmp_path.iterdir()] == ["kept.json"]


def test_a_failure_before_the_rename_keeps_the_old_file(tmp_path, monkeypatch):
    """Even with every byte written, the file is not swapped in before it is on disk."""
    path = tmp_path / "kept.json"
    path.write_bytes(OLD)

    def no_sync(fd):
        raise OSError(errno.EIO, "Input/output error")
    monkeypatch.setattr(os, "fsync", no_sync)
    with pytest.raises(OSError, match="Input/output"):
        atomic.write_text(path, "new")
    assert path.read_bytes() == OLD and [p.name for p in tmp_path.iterdir()] == ["kept.json"]


def test_a_good_write_replaces_the_file_and_keeps_its_permissions(tmp_path):
    path = tmp_path / "kept.json"
    path.write_bytes(OLD)
    path.chmod(0o640)
    atomic.write_text(path, "é new\n")
    assert path.read_bytes() == "é new\n".encode() and (path.stat().st_mode & 0o777) == 0o640
    atomic.write_text(tmp_path / "fresh.json", "{}")
    umask = os.umask(0)
    os.umask(umask)
    assert ((tmp_path / "fresh.json").stat().st_mode & 0o777) == 0o666 & ~umask   # not mkstemp's 0600
    with atomic.replacing(tmp_path / "w.pt") as tmp:
        torch.save({"w": torch.arange(3)}, tmp)
    assert torch.load(tmp_path / "w.pt")["w"].tolist() == [0, 1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.json", "kept.json", "w.pt"]
