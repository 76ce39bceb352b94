"""What the project may delete: only what it made, inside the folder it keeps for it.

A cache folder is named after a model, and a model's name is whatever a user typed: `.`, `..`,
a path with separators, 5,000 characters. `build/onnx/.` is `build/onnx` itself, so a rebuild
once deleted every ONNX build, and `--target ..` all of `build/` (issue 48). Here a name becomes
one plain folder name (`folder_name`), and a deletion checks that its path lies strictly inside
the folder the project keeps for it and that it is what the project wrote there (a folder
holding the record the project writes into it, a temporary folder of the project's naming, or a
plain file or a symlink, which is removed itself and never followed).
"""
from __future__ import annotations

import contextlib
import re
import shutil
import sys
from pathlib import Path
from typing import Callable, Iterator

from specdec.errors import InputError, LoadError
from specdec.files.digest import text_key
from specdec.wording import N_

PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def folder_name(name: str) -> str:
    """`name` as a single folder name: itself (with `/` as `-`) where that is plain, else a
    readable part and a digest of the whole name (`.` and `..` included: never a name that
    means the folder itself or its parent)."""
    plain = name.replace("/", "-")
    if PLAIN.fullmatch(plain) and ".." not in plain:
        return plain
    readable = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")[-60:] or "model"
    return f"{readable}-{text_key(name, 12)}"


def inside(path: Path, root: Path) -> Path:
    """`path` with its folder resolved (its last part not followed), strictly inside `root`."""
    full = Path(path).parent.resolve() / Path(path).name
    top = Path(root).resolve()
    if full.name in ("", ".", "..") or top not in full.parents:
        raise InputError(N_("refusing to delete {path}: it is not inside {root}, the folder the "
                            "project keeps for it"), path=str(path), root=str(root))
    return full


def remove(path: Path, root: Path, made: Callable[[Path], bool]) -> None:
    """Delete `path` inside `root`: a symlink or a file itself; a folder only when `made(folder)`
    says the project made it (else an InputError that says to move it away). Missing: nothing."""
    full = inside(path, root)
    if full.is_symlink() or full.is_file():
        full.unlink()
    elif full.is_dir():
        if not made(full):
            raise InputError(N_("{path} was not made by this project (its record is missing): move it "
                                "away or delete it yourself"), path=str(full))
        shutil.rmtree(full)
    elif full.exists():                          # a socket or a pipe where a cache entry goes
        full.unlink()


def holds(record: str) -> Callable[[Path], bool]:
    """`made` for folders the project writes `record` into."""
    return lambda folder: (folder / record).is_file()


def named(pattern: str) -> Callable[[Path], bool]:
    """`made` for temporary folders the project names by this glob pattern."""
    return lambda folder: folder.match(pattern)


@contextlib.contextmanager
def locked(folder: Path, doing: str) -> Iterator[None]:
    """`folder`'s lock file beside it: one process at a time makes it (another waits, saying so).
    A lock path that is a folder or a link is not a lock of ours: an empty folder is removed, a
    link unlinked; a read-only place says what it cannot keep instead of a raw OSError."""
    from filelock import FileLock, Timeout
    path = folder.with_name(folder.name + ".lock")
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink() or path.is_dir():
            remove(path, folder.parent, lambda p: not any(p.iterdir()))
        lock = FileLock(str(path))
        try:
            lock.acquire(timeout=0)
        except Timeout:
            print(f"specdec: waiting for another process {doing} {folder} ...", file=sys.stderr, flush=True)
            lock.acquire()
    except OSError as err:
        raise LoadError(N_("cannot write in {folder} ({why}), so {name} cannot be made there"),
                        N_("make the folder writable, or set SPECDEC_CACHE to a writable one"),
                        folder=str(folder.parent), why=err.strerror or str(err), name=folder.name) from None
    try:
        yield
    finally:
        lock.release()


def dies_with_parent() -> None:
    """For subprocess's preexec_fn: the child is killed when this process dies (Linux; a killed
    build once left its builder running). Elsewhere nothing (the next start cleans up instead)."""
    import ctypes
    import signal
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
