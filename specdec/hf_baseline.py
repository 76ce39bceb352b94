"""transformers' own generate(), plain and assisted, as a like-for-like baseline."""
from __future__ import annotations

import time
from contextlib import contextmanager

import torch

from specdec.settings import Settings


class ForwardCounter:
    """Counts forward passes of a module (a hook, removed on exit)."""

    def __init__(self, model):
        self.model, self.count = model, 0

    def __enter__(self):
        self.handle = self.model.register_forward_hook(self._hook)
        return self

    def _hook(self, *_):
        self.count += 1

    def __exit__(self, *_):
        self.handle.remove()


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


def assist_obstacle(pair) -> str | None:
    """Why generate(assistant_model=...) cannot run this pair's draft, or None if it can. The
    library runs a transformers model with its own generate() and generation_config only."""
    if pair.draft is None:
        return "there is no draft model"
    if getattr(pair.draft, "reads_target_features", False):
        return "it reads the target's features"
    if not callable(getattr(pair.draft, "generate", None)) or \
            getattr(pair.draft, "generation_config", None) is None:
        return "it is not a transformers model with generate() (a reduced-vocabulary wrapper)"
    return None


def can_assist(pair) -> bool:
    return assist_obstacle(pair) is None


def hf_generate(pair, prompt, settings: Settings, seed: int, assistant: str | None = None,
                k: int | None = None) -> tuple[list[int], float, int]:
    """(generated ids, seconds, target forwards) for generate(), optionally assisted.

    assistant: None (target alone), "constant" (num_assistant_tokens=k, constant schedule,
    no confidence stop: like for like with this engine) or "defaults" (the library's own).
    """
    from specdec.engine import encode_prompt
    ids = torch.tensor([encode_prompt(pair, prompt)[1]], device=pair.device)   # text or chat
    kwargs = dict(max_new_tokens=settings.max_new_tokens, do_sample=not settings.sampling.greedy,
                  attention_mask=torch.ones_like(ids), pad_token_id=pair.tokenizer.eos_token_id)
    if not settings.sampling.greedy:   # top_k=0 switches off generate()'s default top-k of 50
        kwargs.update(temperature=settings.temperature, top_k=settings.top_k, top_p=settings.top_p)
    if assistant is not None:
        kwargs["assistant_model"] = pair.draft
    assistant_config = ({"num_assistant_tokens": k, "num_assistant_tokens_schedule": "constant",
                         "assistant_confidence_threshold": 0.0} if assistant == "constant" else
                        dict.fromkeys(ASSISTANT_KEYS))            # None = the library's defaults
    from transformers.utils import logging as hf_logging
    hf_logging.set_verbosity_error()   # generate() warns about flag combinations we set on purpose
    torch.manual_seed(seed)
    with ForwardCounter(pair.target) as counter, torch.no_grad(), \
            assistant_settings(pair.draft, assistant_config if assistant else {}):
        t0 = time.perf_counter()
        out = pair.target.generate(ids, **kwargs)
        seconds = time.perf_counter() - t0
    return out[0, ids.shape[1]:].tolist(), seconds, counter.count
