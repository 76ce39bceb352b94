"""The target as an ONNX Runtime model: built once from the converted folder, cached, verified.

onnxruntime-genai's model builder (a wheel, offline) turns a Hugging Face folder into an ONNX
graph whose linear layers are int4 `MatMulNBits` (blocks of 32, activations in int8 on the CPU)
and whose attention is `GroupQueryAttention` with the rotary embedding inside. That is a
*re-quantised* target: its weights are rounded again from the float32 conversion of the GGUF,
so it is a different model from the GGUF's own Q4_1 blocks (the torch backend's int4), and
every place that shows it says so (backend.describe). Built here for SmolLM2-135M in ~30 s
(86 MB), under `build/onnx/<name>/`, through a temporary folder renamed into place while a
file lock keeps a second process waiting (it then uses the finished build). A build is used
only while every file has the SHA-256 recorded when it was made and the source folder's
fingerprint is the one it was built from; anything else builds it again, saying why.
"""
from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from specdec.errors import LoadError
from specdec.files import atomic, owned
from specdec.files.digest import cached_sha256, file_sha256, text_key
from specdec.models import onnx_graph
from specdec.wording import N_

ROOT = Path(__file__).resolve().parents[2] / "build" / "onnx"
STAMP = "built.json"
# include_hidden_states: the final (normed) hidden state of every row, for the feature draft
OPTIONS = ("include_hidden_states=true",)


def installed() -> bool:
    """onnxruntime and the model builder are importable (a requirement; absent only in odd setups)."""
    return all(importlib.util.find_spec(m) is not None for m in ("onnxruntime", "onnxruntime_genai"))


def versions() -> dict:
    return {m: importlib.metadata.version(m) for m in ("onnxruntime", "onnxruntime-genai")}


def _source_id(source: Path) -> str:
    """What the build came from: the source folder's fingerprint file (the GGUF conversion
    records every file's hash there), else its config and weights' sizes."""
    stamp = source / "fingerprint.json"
    if stamp.is_file():
        return file_sha256(stamp)
    parts = sorted(f"{p.name}:{p.stat().st_size}" for p in source.iterdir() if p.is_file())
    return text_key("|".join(parts))


def stale(source: Path, folder: Path) -> str | None:
    """Why `folder` is not a verified build of `source` (None: it is)."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        return "not a folder"
    try:
        saved = json.loads((folder / STAMP).read_text())
    except (OSError, ValueError):
        return "missing" if not folder.exists() else "no build record"
    if not isinstance(saved, dict) or saved.get("source") != _source_id(source):
        return "the source model changed"
    if saved.get("versions") != versions() or saved.get("options") != list(OPTIONS):
        return "built by another onnxruntime-genai or with other options"
    if saved.get("graph") != onnx_graph.VERSION:
        return "built before the graph's last change"
    for name, digest in sorted((saved.get("files") or {}).items()):
        path = folder / str(name)
        if not path.is_file() or cached_sha256(path) != digest:
            return f"{name} is missing or changed"
    return None if saved.get("files") else "no build record"


def folder_for(name: str) -> Path:
    """The build's folder: one plain folder name under ROOT, whatever `name` is (`.`, `..`, a path)."""
    return ROOT / owned.folder_name(name)


def _temporary(folder: Path) -> str:
    return f".{folder.name}.*"            # the builder's temporary folders for `folder` (mkdtemp)


def built(name: str, source: Path) -> Path:
    """The verified ONNX build of the model `name` (its HF folder `source`), built if needed."""
    if not installed():
        raise LoadError(N_("the ONNX Runtime backend is not installed"), N_("run `make setup`"))
    folder = folder_for(name)
    if stale(source, folder) is None:
        return folder
    with owned.locked(folder, "building"):
        for leftover in sorted(ROOT.glob(_temporary(folder))):   # a killed build's: none runs now
            owned.remove(leftover, ROOT, owned.named(_temporary(folder)))
        why = stale(source, folder)                     # another process may have built it meanwhile
        if why is not None:
            if why != "missing":
                print(f"specdec: building {folder} again ({why})", file=sys.stderr, flush=True)
            _build(source, folder)
    return folder


def _build(source: Path, folder: Path) -> None:
    """Run the builder into a temporary folder of this process, record it, rename it into place."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=ROOT))
    try:
        cmd = [sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", str(source), "-o", str(tmp / "model"),
               "-p", "int4", "-e", "cpu", "-c", str(tmp / "work"), "--extra_options", *OPTIONS]
        done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"},
                              preexec_fn=owned.dies_with_parent)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise LoadError(N_("building the ONNX model failed: {detail}"), detail=tail[0][:200])
        model = tmp / "model"
        onnx_graph.adapt(model / "model.onnx", model / onnx_graph.FILE)
        files = {p.name: file_sha256(p) for p in sorted(model.iterdir()) if p.is_file()}
        record = {"source": _source_id(source), "versions": versions(), "options": list(OPTIONS),
                  "graph": onnx_graph.VERSION, "files": files}
        atomic.write_text(model / STAMP, json.dumps(record, indent=1) + "\n")
        owned.remove(folder, ROOT, owned.holds(STAMP))   # a build of ours, a file or a link
        os.replace(model, folder)
    finally:
        owned.remove(tmp, ROOT, owned.named(_temporary(folder)))
