"""Nothing deleted outside what the project made (issue 48): cache names, deletions, locks, children."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from specdec.errors import InputError, LoadError
from specdec.files import owned
from specdec.models import onnx_build


@pytest.mark.parametrize("name", [".", "..", "", "build/onnx", "../..", "a/../..", "x" * 5000, "/etc", "~"])
def test_any_model_name_is_one_plain_folder_inside_the_cache(name):
    folder = onnx_build.folder_for(name)
    assert folder.parent == onnx_build.ROOT and folder.name not in (".", "..", "")
    assert owned.PLAIN.fullmatch(folder.name) and ".." not in folder.name and len(folder.name) <= 100


def test_plain_names_keep_their_folders():
    assert onnx_build.folder_for("smollm2/target").name == "smollm2-target"     # existing builds stay valid
    assert owned.folder_name(".") != owned.folder_name("..")


def test_a_deletion_outside_or_of_the_root_is_refused(tmp_path):
    root = tmp_path / "cache"
    (root / "kept").mkdir(parents=True)
    (root / "kept" / "built.json").write_text("{}")
    for path in (root, root / ".", root / "..", tmp_path / "elsewhere", root / "kept" / ".." / ".."):
        with pytest.raises(InputError, match="refusing to delete"):
            owned.remove(path, root, owned.holds("built.json"))
    assert (root / "kept" / "built.json").exists()


def test_only_a_folder_the_project_made_is_deleted_and_links_are_not_followed(tmp_path):
    root, outside = tmp_path / "cache", tmp_path / "precious"
    root.mkdir()
    outside.mkdir()
    (outside / "data").write_text("mine")
    (root / "link").symlink_to(outside, target_is_directory=True)
    owned.remove(root / "link", root, owned.holds("built.json"))
    assert not (root / "link").exists() and (outside / "data").read_text() == "mine"
    (root / "theirs").mkdir()
    with pytest.raises(InputError, match="not made by this project"):
        owned.remove(root / "theirs", root, owned.holds("built.json"))
    (root / "ours").mkdir()
    (root / "ours" / "built.json").write_text("{}")
    (root / "file").write_text("x")
    for name in ("ours", "file", "missing"):
        owned.remove(root / name, root, owned.holds("built.json"))
    assert sorted(p.name for p in root.iterdir()) == ["theirs"]


def test_a_lock_that_is_a_folder_or_a_link_is_replaced_by_a_lock_file(tmp_path):
    folder = tmp_path / "cache" / "model"
    lock = folder.with_name("model.lock")
    lock.mkdir(parents=True)
    with owned.locked(folder, "building"):
        assert lock.is_file()
    lock.unlink()
    lock.mkdir()
    (lock / "something").write_text("x")
    with pytest.raises(InputError, match="not made by this project"), owned.locked(folder, "building"):
        pass


def test_a_cache_that_cannot_be_written_says_what_it_cannot_make(tmp_path):
    """Root writes into read-only folders, so the unwritable place here is one below a file."""
    (tmp_path / "file").write_text("x")
    with pytest.raises(LoadError, match="cannot write in"), owned.locked(tmp_path / "file" / "m", "building"):
        pass


def test_a_builder_child_dies_with_the_process_that_started_it(tmp_path):
    """kill -9 of a build once left the builder running: its child now gets SIGKILL with it."""
    pid_file = tmp_path / "pid"
    parent = subprocess.Popen([sys.executable, "-c", (
        "import subprocess, sys, time; from specdec.files import owned\n"
        f"p = subprocess.Popen(['sleep', '60'], preexec_fn=owned.dies_with_parent)\n"
        f"open({str(pid_file)!r}, 'w').write(str(p.pid)); time.sleep(60)")],
        cwd=Path(__file__).resolve().parent.parent, env={**os.environ, "PYTHONPATH": "."})
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int(pid_file.read_text())
    parent.send_signal(signal.SIGKILL)
    parent.wait(10)
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        if Path(f"/proc/{child}/stat").read_text().split()[2] == "Z":   # a zombie: dead, waiting for init
            break
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the builder's child outlived the killed build")


def test_a_full_disk_while_saving_a_conversion_is_one_message(tmp_path, pair):
    """safetensors raises its own SafetensorError (not an OSError) when the disk fills."""
    from specdec.models import gguf

    class SafetensorError(Exception):
        pass

    class Full:
        def save_pretrained(self, folder):
            raise SafetensorError("Error while serializing: IoError(No space left on device)")

        def parameters(self):
            return pair.target.parameters()

    with pytest.raises(LoadError, match="could not write the converted model") as err:
        gguf._save(Full(), pair.tokenizer, tmp_path / "conv.tmp")
    assert "free some disk space" in str(err.value) and "MB" in str(err.value)
    class Odd(Full):
        def save_pretrained(self, folder):
            raise ValueError("not a disk")

    with pytest.raises(ValueError, match="not a disk"):               # anything else is not dressed up
        gguf._save(Odd(), pair.tokenizer, tmp_path / "x.tmp")
