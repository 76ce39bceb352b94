"""Load a model or a tokenizer by name (names.py resolves it to a folder or a hub id); pair.py
puts a draft and a target together.

Weights load as safetensors only, never with `trust_remote_code`, in float32 (CUDA when
available, or placed by accelerate when a `device_map` is given). A draft folder with
`draft_vocab.json` proposes among a subset of the target's vocabulary (reduced_vocab.py), or
reads the target's features (feature.py); a draft with an 8-bit head is head8.py's. """
from __future__ import annotations

import functools
from pathlib import Path

import torch

from specdec.errors import LoadError
from specdec.models import backend as backends
from specdec.models import gguf, head8, kernels, q4_1, sizing
from specdec.models.construct import building
from specdec.models.feature import is_feature_folder, load_feature_draft
from specdec.models.names import converted_folder, is_converted, resolve, source_gguf
from specdec.models.packed import memory_bound
from specdec.models.precision import PRECISION_AUTO, PRECISIONS, Precision
from specdec.models.precision import available as available_precisions
from specdec.models.reduced_vocab import ReducedVocabLM, read_vocab
from specdec.wording import N_


def default_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _check_folder(cls_name: str, src: str, name: str) -> None:
    """A local folder must hold what the loader needs; say which file is missing."""
    folder = Path(src)
    if not folder.is_dir():
        return
    wanted = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model", "vocab.json") \
        if "Tokenizer" in cls_name else ("config.json",)
    if not any((folder / f).is_file() for f in wanted):
        message = (N_("{name} is a folder but not a tokenizer folder: it has no {files}")
                   if "Tokenizer" in cls_name else
                   N_("{name} is a folder but not a model folder: it has no {files}"))
        raise LoadError(message, name=repr(name), files=" or ".join(wanted))


def _explain(name: str, err: Exception) -> LoadError:
    text, kind = str(err), type(err).__name__
    if kind == "SafetensorError" or "deserializ" in text.lower() or "header" in text.lower():
        return LoadError(N_("the weights of {name} are damaged or truncated ({detail})"),
                         N_("download or copy the model again"), name=repr(name), detail=text[:120])
    if "does not appear to have a file named" in text or "safetensors" in text.lower():
        return LoadError(N_("{name} has no safetensors weights (only safetensors are loaded): {detail}"),
                         name=repr(name), detail=text[:200])
    if "Unrecognized configuration class" in text or "not supported" in text.lower():
        return LoadError(N_("{name} is not a causal language model ({detail})"), name=repr(name),
                         detail=text[:160])
    if "offline" in text.lower() or "cannot find the requested files" in text.lower() or \
            "couldn't connect" in text.lower() or "not the path to a directory" in text.lower():
        return LoadError(N_("{name} is not in the local Hugging Face cache and the hub cannot be "
                            "reached (offline)"),
                         N_("download it once while online (`hf download {id}`), or pass a local "
                            "directory"), name=repr(name), id=name)
    return LoadError(N_("could not load {name} ({kind}: {detail})"), name=repr(name), kind=kind,
                     detail=text[:300])


def hub_offline() -> bool:
    from huggingface_hub import constants
    return bool(constants.HF_HUB_OFFLINE)


def _from_pretrained(cls, name: str, **kwargs):
    """Local files first (fast, works offline); the hub only when online and needed."""
    from transformers.utils import logging as hf_logging
    hf_logging.disable_progress_bar()
    src = resolve(name)
    _check_folder(cls.__name__, src, name)
    try:
        try:
            return cls.from_pretrained(src, local_files_only=True, trust_remote_code=False, **kwargs)
        except OSError:
            if hub_offline() or Path(src).is_dir():
                raise
            return cls.from_pretrained(src, trust_remote_code=False, **kwargs)
    except LoadError:
        raise
    except Exception as err:      # every way a file can be broken: one clear LoadError
        raise _explain(name, err) from err


FLOAT_DTYPES = {"F16", "BF16", "F32", "F64"}


def _check_dtypes(name: str) -> None:
    """Weights stored as integers (or anything but floats) would be cast silently into a
    meaningless model: refuse them with a clear message (reads only the file headers). An
    8-bit head (head8.HEAD_FILE) is integers on purpose, with its scales; head8 checks it."""
    from safetensors import safe_open
    src = Path(resolve(name))
    for path in sorted(src.glob("*.safetensors")) if src.is_dir() else []:
        if path.name == head8.HEAD_FILE:
            continue
        try:
            with safe_open(str(path), "pt") as fh:
                bad = {fh.get_slice(key).get_dtype() for key in fh.keys()} - FLOAT_DTYPES
        except Exception as err:    # a damaged header: the loader's own message follows
            raise _explain(name, err) from err
        if bad:
            raise LoadError(N_("{name} stores weights as {dtypes}; a causal LM needs floating-point "
                               "weights (F16, BF16 or F32)"), name=repr(name), dtypes=", ".join(sorted(bad)))


def load_model(name: str, device: torch.device | None = None, device_map=None,
               precision: str = PRECISION_AUTO) -> torch.nn.Module:
    """float32 weights on `device`, or placed by accelerate when `device_map` is given
    ("auto" shards a model too large for one device across GPUs, or offloads it). `precision`:
    "auto" times float32, bfloat16 and int4 for a memory-bound model on the CPU and keeps the
    fastest step (kernels.py); a named precision is used as asked (precision.py). One load at a
    time in the process (construct.py: transformers' switches are process-wide)."""
    with building():
        return _load_model(name, device, device_map, precision)


def _load_model(name: str, device, device_map, precision: str) -> torch.nn.Module:
    extra = {"device_map": device_map} if device_map is not None else {}
    check_precision(precision)
    _check_dtypes(name)
    src = resolve(name)
    _sized(name)                              # before transformers builds a single layer
    if head8.has_head(src):                   # a draft whose LM head is stored in 8 bits
        model = _split_head_model(name, src)
    else:
        model = _weights(name, extra)
    if is_converted(name) and not _converted_ok(model, name):
        model = _weights(name, extra)
    if device_map is None:
        model = model.to(device or default_device())
    try:
        vocab = read_vocab(src) if Path(src).is_dir() else None
        if is_feature_folder(vocab):
            model = load_feature_draft(model, Path(src), vocab)
        elif vocab:
            model = ReducedVocabLM(model.float(), vocab["keep_ids"], vocab["target_vocab_size"])
    except (ValueError, KeyError, TypeError, IndexError, RuntimeError, OSError) as err:
        raise LoadError(N_("the draft vocabulary of {name} (draft_vocab.json) is damaged ({detail})"),
                        N_("copy the model again"), name=repr(name),
                        detail=f"{type(err).__name__}: {str(err)[:120]}") from err
    if device_map is None and next(model.parameters()).device.type == "cpu" \
            and (precision != PRECISION_AUTO or memory_bound(model)):
        kernels.choose(model, _auto_for(name, precision), lambda: _gguf_blocks(name, model))
    return model.eval()


def _auto_for(name: str, precision: str) -> str:
    """`auto` among the precisions that keep a GGUF's weights as the file has them, for a file whose
    layers the integer kernels cannot take as they are (q4_1.reads_blocks: Gemma 3's Q4_K_M): there
    int4 and intdot would round every layer into blocks the file does not have, and bfloat16 every
    weight, so it is float32 (measured here on Gemma 3 270M: intdot's step 35 against float32's 90 ms,
    but its argmax agreed with float32's on 87.5 % of 384 positions and its greedy text on 2 of 16
    prompts; scripts/gemma3_measure.py). A named precision is used as asked; other models (a hub
    model, SmolLM2's Q4_1 file) keep every candidate."""
    source = source_gguf(name) if precision == PRECISION_AUTO else None
    if source is not None and not q4_1.reads_blocks(source):
        return Precision.FLOAT32
    return precision


def _sized(name: str) -> None:
    """The config, read alone, against the ceilings and this machine's free memory (sizing.py)."""
    from transformers import AutoConfig
    sizing.check(_from_pretrained(AutoConfig, name), name)


def _weights(name: str, extra: dict):
    """float32 causal LM from a folder, every weight present (_complete)."""
    from transformers import AutoModelForCausalLM
    return _complete(name, *_from_pretrained(AutoModelForCausalLM, name, dtype=torch.float32, use_safetensors=True,
                                             output_loading_info=True, ignore_mismatched_sizes=True, **extra))


def _complete(name: str, model, info: dict):
    """The model, when every weight its config asks for was in the files with its shape; else
    one LoadError naming what is missing, extra or of the wrong shape (transformers would
    initialise the missing ones at random and run; loading with ignore_mismatched_sizes lets
    it list the wrong shapes here instead of raising)."""
    listed = lambda keys: ", ".join(sorted(map(str, keys))[:3]) + (f" … ({len(keys)} in all)" if len(keys) > 3 else "")  # noqa: E731
    problems = [f"{what}: {listed(list(keys))}" for what, keys in (
        ("missing", info.get("missing_keys") or ()), ("not in the config", info.get("unexpected_keys") or ()),
        ("of the wrong shape", [k[0] if isinstance(k, tuple) else k for k in info.get("mismatched_keys") or ()]))
        if keys]
    if problems:
        raise LoadError(N_("the weights of {name} do not match its config.json ({problems})"),
                        N_("check that config.json and the weights come from the same model, or copy it again"),
                        name=repr(name), problems="; ".join(problems))
    return model


PRECISION_CHOICES = (PRECISION_AUTO, *PRECISIONS)


def check_backend(backend) -> None:
    if backend not in backends.BACKENDS:
        raise LoadError(N_("backend must be one of {choices}, not {value}"),
                        choices=", ".join(backends.BACKENDS), value=repr(backend))


def check_precision(precision) -> None:
    if precision not in PRECISION_CHOICES:
        raise LoadError(N_("precision must be one of {choices}, not {value}"),
                        choices=", ".join(PRECISION_CHOICES), value=repr(precision))
    if precision not in (PRECISION_AUTO, *available_precisions()):
        raise LoadError(N_("this torch build cannot multiply in {value} on the CPU"),
                        N_("use --precision float32 or bfloat16"), value=precision)


def _gguf_blocks(name: str, model) -> dict:
    """The 4-bit blocks of a model converted from a Q4_1 GGUF (int4 then uses the file's own)."""
    source = source_gguf(name)
    return q4_1.q4_1_blocks(source, model, Path(resolve(name))) if source is not None else {}


def _split_head_model(name: str, src: str) -> torch.nn.Module:
    try:
        return head8.load_net(Path(src))
    except Exception as err:      # a damaged or mismatched file: one clear LoadError
        raise _explain(name, err) from err


def _converted_ok(model, name: str) -> bool:
    """A converted model must reproduce its recorded probe; if not, rebuild the cache."""
    folder = Path(resolve(name))
    if gguf.matches(model, load_tokenizer(name), folder):
        return True
    converted_folder(name, rebuild=True)
    return False


@functools.lru_cache(maxsize=8)
def load_tokenizer(name: str):
    """Tokenizers are read-only here, so one instance per name is shared."""
    from transformers import AutoTokenizer
    return _from_pretrained(AutoTokenizer, name)
