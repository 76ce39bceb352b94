"""The project's one hash: a file's SHA-256 (the fingerprint the model caches and the ONNX build
record, models/gguf.py, models/onnx_build.py), read in 4 MB blocks so a large weights file never
sits in memory whole, and the SHA-256 of a text or bytes as a short key (cache folders, the
kernel library's build, owned folder names)."""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path

BLOCK = 1 << 22


def text_key(data: str | bytes, length: int = 64) -> str:
    """The hex SHA-256 of `data` (a str as UTF-8), its first `length` digits."""
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()[:length]


def file_sha256(path: Path) -> str:
    """The hex SHA-256 of the file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(BLOCK), b""):
            digest.update(block)
    return digest.hexdigest()


def cached_sha256(path: Path) -> str:
    """file_sha256, computed once per process and file state (size, mtime, inode): a cache
    checked on every load hashes its weights once, and again only after they change."""
    stat = path.stat()
    return _by_state(str(path), stat.st_size, stat.st_mtime_ns, stat.st_ino)


@functools.lru_cache(maxsize=64)
def _by_state(path: str, size: int, mtime_ns: int, inode: int) -> str:
    return file_sha256(Path(path))
