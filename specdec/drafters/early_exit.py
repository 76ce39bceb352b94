"""Self-speculation by early exit (LayerSkip, Draft & Verify): the target's own first L
layers, its final norm and its LM head, used as the draft. No new weights.

The view shares the target's modules (read-only at inference) but gets its own config
(L layers) and therefore its own KV cache, so drafting never touches the target's cache
and exactness is untouched: the view is just another q. Without training for it (which
LayerSkip adds), a plain model's early layers predict the next token poorly — the lab
measures how poorly.
"""
from __future__ import annotations

import copy

import torch

from specdec.drafters.base import DrafterKind, register
from specdec.drafters.model import ModelDrafter
from specdec.errors import InputError
from specdec.wording import N_


def decoder_layers(target) -> torch.nn.ModuleList:
    body = target.get_decoder() if hasattr(target, "get_decoder") else None
    layers = getattr(body, "layers", None)
    if not isinstance(layers, torch.nn.ModuleList):
        raise InputError("early exit needs a decoder with a `layers` list (Llama-style models); "
                         "this target has none: choose another drafter")
    return layers


def early_exit_model(target, exit_layer: int):
    """A causal LM over the target's layers [0, exit_layer), sharing their weights."""
    layers = decoder_layers(target)
    if not 1 <= exit_layer < len(layers):
        raise InputError(f"exit layer must be between 1 and {len(layers) - 1} for this target "
                         f"({len(layers)} layers), got {exit_layer}")
    config = copy.deepcopy(target.config)
    config.num_hidden_layers = exit_layer
    with torch.device("meta"):                       # no memory for weights we replace below
        view = type(target)(config)
    body, source = view.get_decoder(), target.get_decoder()
    for name, module in source.named_children():     # embeddings, norm, rotary, ...
        setattr(body, name, module)
    body.layers = torch.nn.ModuleList(list(layers)[:exit_layer])
    for name, module in target.named_children():     # the LM head (tied or not)
        if module is not source:
            setattr(view, name, module)
    return view.eval()


register(DrafterKind("early-exit", N_("early exit (the target's first layers)"), False, rank=4,
                     build=lambda pair, s: ModelDrafter(early_exit_model(pair.target, s.exit_layer),
                                                        pair.vocab_size),
                     keeps_cache=True, reads="exit_layer", short=N_("early exit"), hf_assistant="assistant_early_exit",
                     step_model=lambda pair, s: early_exit_model(pair.target, s.exit_layer)))
