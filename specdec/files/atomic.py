"""Files the project keeps, written whole or not at all.

A plain `path.write_text` that fails part-way (a full disk, a killed process, a size limit)
leaves half a file where a good one was: a kept timing or result then reads as damaged and is
lost. Here the new content goes to a temporary file in the same folder (so the rename stays on
one file system), is flushed and fsync'ed, and `os.replace` swaps it in: a reader sees the old
file or the new one, never a mix. On failure the temporary file is removed, the old file is
left byte for byte, and the error propagates.
"""
from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def replacing(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path beside `path` to write to (torch.save, np.savez, ...); when the block
    ends without an error it is synced to disk and renamed over `path`, else removed."""
    path = Path(path)
    tmp = _new_temporary(path)
    try:
        yield tmp
        _sync(tmp)
        if path.exists():                  # a plain write keeps the old file's permissions
            os.chmod(tmp, stat.S_IMODE(path.stat().st_mode))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """`path` holds `data`, or (on any error) what it held before."""
    with replacing(path) as tmp, open(tmp, "wb") as fh:
        fh.write(data)


def write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> None:
    """`path` holds `text`, or (on any error) what it held before."""
    write_bytes(path, text.encode(encoding))


def _new_temporary(path: Path) -> Path:
    """An empty file of this process beside `path`, named for it (`.name.<random>.tmp`), created
    with the umask's permissions as a plain write's would be (mkstemp's are 0600)."""
    while True:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
            break
        except FileExistsError:
            continue
    return tmp


def _sync(path: Path) -> None:
    """The file's bytes on disk before the rename (else a crash may keep the name, not the data)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
