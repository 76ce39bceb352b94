"""A draft whose vocabulary is a subset of the target's (FR-Spec, EAGLE-3).

The draft model itself is a plain causal LM over N + 1 ids: the N most frequent target
tokens and one "other" id that stands for every remaining token on the input side.
`ReducedVocabLM` wraps it so the engine sees the target's vocabulary: input ids are
mapped in, and the N logits are scattered back to their target ids with -inf
everywhere else, so q = 0 outside the subset. Exactness does not depend on the
subset: a token with q = 0 is never drafted, and the residual max(0, p − q) keeps all
of p's mass there. What it buys is a cheaper LM head (N rows instead of 49,152).

A folder holding such a draft has `draft_vocab.json`: {"target_vocab_size": V, "keep_ids": [...]}.

`full_vocab_view` gives the same draft as a transformers model over the target's
vocabulary, so that the library's own `generate(assistant_model=...)` can run it (the
bench compares that with this engine): same modules, same q.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import torch
from transformers.modeling_outputs import CausalLMOutputWithPast

VOCAB_FILE = "draft_vocab.json"


class ReducedVocabLM(torch.nn.Module):
    def __init__(self, inner, keep_ids: list[int], target_vocab_size: int):
        super().__init__()
        self.inner = inner
        keep = torch.tensor(keep_ids, dtype=torch.long)                    # (N,)
        to_draft = torch.full((target_vocab_size,), len(keep_ids), dtype=torch.long)  # (V,)
        to_draft[keep] = torch.arange(len(keep_ids))
        self.register_buffer("keep_ids", keep, persistent=False)
        self.register_buffer("to_draft", to_draft, persistent=False)
        self.config = copy.deepcopy(inner.config)
        self.config.vocab_size = target_vocab_size       # what the engine and checks see

    def forward(self, input_ids: torch.Tensor, **kwargs) -> CausalLMOutputWithPast:
        out = self.inner(input_ids=self.to_draft[input_ids], **kwargs)
        full = scatter_logits(out.logits, self.keep_ids, self.config.vocab_size)
        return CausalLMOutputWithPast(logits=full, cache=out.cache)


def scatter_logits(logits: torch.Tensor, keep_ids: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """(B, T, N + 1) draft logits -> (B, T, V): the N kept ones at their target ids, -inf
    elsewhere (the "other" id is never proposed)."""
    small = logits[..., :len(keep_ids)]                                     # (B, T, N)
    full = small.new_full((*small.shape[:-1], vocab_size), float("-inf"))
    full[..., keep_ids] = small                                             # (B, T, V)
    return full


class _FullVocab:
    """Mixed into the inner model's own class: ids in through `to_draft`, logits out through
    `scatter_logits`; everything else (cache, generate()) is the library's."""

    def forward(self, input_ids=None, *args, logits_to_keep=0, **kwargs):
        out = super().forward(self.to_draft[input_ids], *args, logits_to_keep=logits_to_keep, **kwargs)
        out.logits = scatter_logits(out.logits, self.keep_ids, self.config.vocab_size)
        return out


def full_vocab_view(draft: ReducedVocabLM):
    """The same draft as a transformers model over the target's V ids (shares every module)."""
    inner = draft.inner
    cls = type(f"FullVocab{type(inner).__name__}", (_FullVocab, type(inner)), {})
    config = copy.deepcopy(inner.config)
    config.vocab_size = draft.config.vocab_size
    with torch.device("meta"):                       # no memory for modules we replace below
        view = cls(config)
    for name, module in inner.named_children():      # the body and the (packed) LM head
        setattr(view, name, module)
    view.keep_ids, view.to_draft = draft.keep_ids, draft.to_draft
    view.generation_config = copy.deepcopy(inner.generation_config)
    return view.eval()


def read_vocab(folder: Path) -> dict | None:
    path = Path(folder) / VOCAB_FILE
    return json.loads(path.read_text()) if path.is_file() else None


def write_vocab(folder: Path, keep_ids: list[int], target_vocab_size: int) -> None:
    (Path(folder) / VOCAB_FILE).write_text(json.dumps(
        {"target_vocab_size": target_vocab_size, "keep_ids": [int(i) for i in keep_ids]}))
