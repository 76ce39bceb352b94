"""transformers' own generate(), plain and assisted, as a like-for-like baseline."""
from __future__ import annotations

import functools
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import torch

from specdec.bench.clock import stopwatch
from specdec.models.construct import building
from specdec.settings import Settings
from specdec.wording import N_


class ForwardCounter:
    """Counts full forward passes of a model (a hook, removed on exit). transformers' early
    exit drafts with the same model, its config cut to fewer layers for those calls: they
    are drafts, not target passes, and are not counted."""

    def __init__(self, model):
        self.model, self.count = model, 0
        self.layers = _layers(model)

    def __enter__(self):
        self.handle = self.model.register_forward_hook(self._hook)
        return self

    def _hook(self, *_):
        self.count += _layers(self.model) == self.layers

    def __exit__(self, *_):
        self.handle.remove()


def _layers(model) -> int | None:
    """Layers the model's body runs now (what transformers' early exit changes)."""
    body = getattr(model, getattr(model, "base_model_prefix", ""), model)
    return getattr(getattr(body, "config", None), "num_hidden_layers", None)


ASSISTANT_KEYS = ("num_assistant_tokens", "num_assistant_tokens_schedule",
                  "assistant_confidence_threshold")


@contextmanager
def assistant_settings(draft, values: dict):
    """generate() reads these from the *assistant's* generation_config (kwargs to generate()
    do not reach it in transformers 5.24): set them there for one call, then restore."""
    config = getattr(draft, "generation_config", None)
    saved = {key: getattr(config, key, None) for key in values}
    for key, value in values.items():
        setattr(config, key, value)
    try:
        yield
    finally:
        for key, value in saved.items():
            setattr(config, key, value)


def library_assistant(draft):
    """The draft as generate(assistant_model=...) takes it: itself when it is a transformers
    model, its full-vocabulary view when it is a reduced-vocabulary wrapper, else None."""
    from specdec.models.reduced_vocab import ReducedVocabLM, full_vocab_view
    if isinstance(draft, ReducedVocabLM):
        return full_vocab_view(draft)
    if callable(getattr(draft, "generate", None)) and getattr(draft, "generation_config", None):
        return draft
    return None


@dataclass(frozen=True)
class LibraryDrafting:
    """transformers' counterpart of one of this engine's drafters."""
    label: str                    # how the bench names it
    kwargs: Callable              # k -> extra generate() arguments
    holder: Callable | None       # () -> the model whose generation_config the assistant reads
    has_defaults: bool            # whether the library has a default draft length for it


def library_drafting(pair, settings: Settings) -> LibraryDrafting | str:
    """transformers' counterpart of `settings.drafter` on this pair (its kind's hf_assistant),
    or why it has none."""
    from specdec.drafters.registry import DRAFTERS
    counterpart = COUNTERPARTS.get(DRAFTERS[settings.drafter].hf_assistant)
    if counterpart is None:
        return f"transformers has no counterpart of the {settings.drafter} drafter"
    return counterpart(pair, settings)


def _prompt_lookup(pair, settings: Settings) -> LibraryDrafting:
    from specdec.drafters.ngram import NgramDrafter
    n = NgramDrafter(pair.vocab_size).max_ngram
    return LibraryDrafting(f"prompt lookup (prompt_lookup_num_tokens = k, max_matching_ngram_size "
                           f"= {n})", lambda k: {"prompt_lookup_num_tokens": k,
                                                 "max_matching_ngram_size": n}, None, False)


def _early_exit(pair, settings: Settings) -> LibraryDrafting:
    layer = settings.exit_layer
    return LibraryDrafting(f"assistant_early_exit = {layer}",
                           lambda k: {"assistant_early_exit": layer}, lambda: pair.target, True)


def _assistant_model(pair, settings: Settings) -> LibraryDrafting | str:
    if pair.draft is None:
        return N_("there is no draft model")
    if pair.reads_features:
        return N_("transformers cannot use this draft as an assistant: it reads the target's features")
    assistant = library_assistant(pair.draft)
    if assistant is None:
        return N_("transformers cannot use this draft as an assistant: it is not a transformers model")
    view = " (its full-vocabulary view: same modules, q = 0 outside its vocabulary)" \
        if assistant is not pair.draft else ""
    return LibraryDrafting(f"assistant_model = the draft{view}",
                           lambda k: {"assistant_model": assistant}, lambda: assistant, True)


def _assistant_tokenizer(pair, settings: Settings) -> LibraryDrafting | str:
    """Universal assisted generation (transformers' answer to a draft of another vocabulary): the
    draft with both tokenizers; on a pair that shares one, plain assistant_model (the library refuses
    an assistant_tokenizer then). At T > 0 the library prunes its assistant's LM head in place (its
    token-level intersection), so it drafts with a copy of the draft, never the engine's."""
    if pair.draft is None or not pair.across_vocab or pair.reads_features:
        return _assistant_model(pair, settings)
    if pair.draft.config.vocab_size == pair.target.config.vocab_size:
        return ("transformers takes two vocabularies of one size for one tokenizer and refuses an "
                "assistant_tokenizer then")
    assistant = _private_copy(pair)
    label = ("assistant_model = a copy of the draft, with tokenizer and assistant_tokenizer (universal assisted "
             "generation: the draft's text re-tokenised at T = 0, its token-level intersection at T > 0)")
    return LibraryDrafting(label, lambda k: {"assistant_model": assistant, "tokenizer": pair.tokenizer,
                                             "assistant_tokenizer": pair.draft_tokenizer},
                           lambda: assistant, True)


_COPIES: dict[int, tuple] = {}     # id(draft) -> (draft, its copy for the library)


def _private_copy(pair):
    """One copy of the pair's draft per draft model: a deep copy, or (a draft on this engine's
    integer kernels cannot be copied) the draft loaded again by name. The library's cache of
    vocabulary translators (keyed by the tokenizers) is cleared with each new copy, so the copy it
    prunes is this one."""
    import copy

    from transformers.generation.candidate_generator import AssistantVocabTranslatorCache

    from specdec.models.load import load_model
    if _COPIES.get(id(pair.draft), (None,))[0] is not pair.draft:
        AssistantVocabTranslatorCache._cache.clear()
        try:
            twin = copy.deepcopy(pair.draft)
        except (TypeError, ValueError):        # ctypes pointers of the integer kernels
            twin = load_model(pair.draft_name, device=pair.device)
        _COPIES[id(pair.draft)] = (pair.draft, twin)
    return _COPIES[id(pair.draft)][1]


# DrafterKind.hf_assistant (the generate() argument) -> how that argument is filled on a pair
COUNTERPARTS: dict[str, Callable] = {"prompt_lookup_num_tokens": _prompt_lookup,
                                     "assistant_early_exit": _early_exit, "assistant_model": _assistant_model,
                                     "assistant_tokenizer": _assistant_tokenizer}


def user_load_why(name: str) -> str | None:
    """None when `name` can be loaded the way a user would (from_pretrained on its folder or
    GGUF), else why not."""
    from specdec.errors import LoadError
    from specdec.models.names import resolve, source_gguf
    try:
        return None if source_gguf(name) is not None or Path(resolve(name)).is_dir() else \
            f"{name} is not a local folder or GGUF file (built in memory, or a hub id)"
    except LoadError as err:
        return f"{name} was not loaded by name ({err})"


@functools.lru_cache(maxsize=2)
def user_loaded(name: str):
    """The target as a user loads it with transformers alone, nothing of this engine's: a GGUF
    through `from_pretrained(folder, gguf_file=...)`, a folder through `from_pretrained(folder)`
    (float32, the library's default attention and linear layers)."""
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging as hf_logging

    from specdec.models.names import resolve, source_gguf
    hf_logging.disable_progress_bar()
    gguf = source_gguf(name)
    with building():                           # one build at a time in the process (models/construct.py)
        if gguf is not None:
            model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
        else:
            model = AutoModelForCausalLM.from_pretrained(resolve(name), dtype=torch.float32)
    return model.eval()


def hf_generate(pair, prompt, settings: Settings, seed: int, assistant: str | None = None,
                k: int | None = None, model=None) -> tuple[list[int], float, int]:
    """(generated ids, seconds, target forwards) for generate() of `model` (default: the pair's
    target), optionally assisted by the library's counterpart of `settings.drafter` (library_drafting).

    assistant: None (target alone), "constant" (k drafts a round, constant schedule, no
    confidence stop: like for like with this engine) or "defaults" (the library's own).
    """
    from specdec.engine.prompt import encode_prompt
    ids = torch.tensor([encode_prompt(pair, prompt)[1]], device=pair.device)   # text or chat
    kwargs = dict(max_new_tokens=settings.max_new_tokens, do_sample=not settings.sampling.greedy,
                  attention_mask=torch.ones_like(ids), pad_token_id=pair.tokenizer.eos_token_id)
    if not settings.sampling.greedy:   # top_k=0 switches off generate()'s default top-k of 50
        kwargs.update(temperature=settings.temperature, top_k=settings.top_k, top_p=settings.top_p)
    holder, assistant_config = None, {}
    if assistant is not None:
        method = library_drafting(pair, settings)
        kwargs.update(method.kwargs(k))
        holder = method.holder() if method.holder else None
        assistant_config = ({"num_assistant_tokens": k, "num_assistant_tokens_schedule": "constant",
                             "assistant_confidence_threshold": 0.0} if assistant == "constant" else
                            dict.fromkeys(ASSISTANT_KEYS))        # None = the library's defaults
    from transformers.utils import logging as hf_logging
    hf_logging.set_verbosity_error()   # generate() warns about flag combinations we set on purpose
    torch.manual_seed(seed)
    model = pair.target if model is None else model
    with ForwardCounter(model) as counter, torch.no_grad(), \
            assistant_settings(holder, assistant_config if holder is not None else {}):
        with stopwatch() as lap:
            out = model.generate(ids, **kwargs)
    return out[0, ids.shape[1]:].tolist(), lap, counter.count
