"""The one SHA-256 helper (specdec/files/digest.py) that the model cache and the ONNX build use."""
from __future__ import annotations

import hashlib
import os

from specdec.files import digest
from specdec.models import gguf, onnx_build


def test_a_file_s_digest_is_sha256_of_its_bytes_across_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr(digest, "BLOCK", 7)                    # several blocks and a short last one
    data = bytes(range(256)) * 3
    (tmp_path / "f").write_bytes(data)
    assert digest.file_sha256(tmp_path / "f") == hashlib.sha256(data).hexdigest()


def test_the_cached_digest_follows_the_file_s_changes(tmp_path):
    path = tmp_path / "w"
    path.write_bytes(b"first")
    assert digest.cached_sha256(path) == hashlib.sha256(b"first").hexdigest()
    path.write_bytes(b"second, longer")
    os.utime(path, ns=(1, 1))                                  # a new state: size and mtime differ
    assert digest.cached_sha256(path) == hashlib.sha256(b"second, longer").hexdigest()


def test_the_model_cache_and_the_onnx_build_hash_through_it():
    assert gguf.file_sha256 is digest.file_sha256 and onnx_build.file_sha256 is digest.file_sha256
    assert gguf.cached_sha256 is digest.cached_sha256 and onnx_build.cached_sha256 is digest.cached_sha256
