"""A draft model that reads the target's features (EAGLE, Li et al. 2024): its weights.

The draft is one decoder layer that works one position behind the target. At draft
position j it reads the pair (f_j, s_{j+1}) — the target's final hidden state at j and the
embedding (the target's own table) of the token that followed — mixes them with a linear
layer `fc`, and outputs h_j, its guess of f_{j+1}; a small LM head over the N most frequent
tokens (reduced vocabulary, as in reduced_vocab.py) turns h_j into q for s_{j+2}.
Drafting d_2, d_3, ... it reads its own h in place of the feature the target has not
computed yet. Since the target already distilled the whole prefix into f_j, one layer can
guess the next token far better than a separate small model.

Exactness does not depend on any of this: the draft only changes q, and the engine
verifies with the target's p. The drafter (drafters/feature.py) keeps the features of every position the
target has verified (the engine hands them over after each round, `observe`) and a KV
cache over the pairs that used real features; pairs built on its own guesses are dropped
after every round and recomputed from the real features.

A folder holding such a draft: a 1-layer Llama over N ids (`config.json`,
`model.safetensors`), `fc.safetensors` (the mixing layer) and `draft_vocab.json`
({"target_vocab_size": V, "keep_ids": [...], "reads": "target features"}).
"""
from __future__ import annotations

import copy
from pathlib import Path

import torch
from transformers.modeling_outputs import CausalLMOutputWithPast

from specdec.models import lean

FC_FILE = "fc.safetensors"


class FeatureDraft(torch.nn.Module):
    def __init__(self, net, fc: torch.nn.Linear, keep_ids: list[int], target_vocab_size: int):
        super().__init__()
        self.net, self.fc = net, fc
        self.register_buffer("keep_ids", torch.tensor(keep_ids, dtype=torch.long), persistent=False)
        self.config = copy.deepcopy(net.config)
        self.config.vocab_size = target_vocab_size       # what the engine and checks see
        self._target = ()                                 # (target,): not a submodule, not saved

    def attach(self, target) -> None:
        """Use the target's input embeddings (shared, read-only)."""
        self._target = (target,)

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        if not self._target:
            raise RuntimeError("a feature draft needs its target: make_pair / load_pair attach it")
        return self._target[0].get_input_embeddings()(ids)

    def forward(self, input_ids: torch.Tensor, features: torch.Tensor | None = None, cache=None,
                use_cache: bool = True, logits_to_keep: int = 0, attention_mask=None,
                position_ids=None, **kwargs) -> CausalLMOutputWithPast:
        """input_ids (B, T) = s_{j+1}, features (B, T, H) = f_j. Without features (timing a
        step, shape checks) zeros stand in: the cost is the same, the guesses are not."""
        e = self.embed(input_ids)                                                 # (B, T, H)
        f = torch.zeros_like(e) if features is None else features.to(e.dtype)
        x = self.fc(torch.cat([e, f], dim=-1))                                    # (B, T, H)
        plain = cache is not None and attention_mask is None and position_ids is None and x.shape[0] == 1
        if plain and not torch.is_grad_enabled() and lean.fits(self.net):
            h = lean.hidden(self.net, x, cache)                                   # (1, T, H), the same numbers
        else:
            out = self.net.model(inputs_embeds=x, cache=cache, use_cache=use_cache, attention_mask=attention_mask,
                                 position_ids=position_ids)
            h, cache = out.last_hidden_state, out.cache                           # (B, T, H)
        small = self.net.lm_head(h[:, -logits_to_keep:] if logits_to_keep else h)  # (B, T', N)
        full = small.new_full((*small.shape[:-1], self.config.vocab_size), float("-inf"))
        full[..., self.keep_ids] = small                                          # (B, T', V)
        return CausalLMOutputWithPast(logits=full, cache=cache, hidden_states=(h,))

    @torch.no_grad()
    def step(self, input_ids: torch.Tensor, features: torch.Tensor, cache) -> tuple[torch.Tensor, torch.Tensor]:
        """A drafting step: pairs (features[t], input_ids[t]) after what `cache` holds ->
        (h of the last pair (1, H), its logits (1, V)). The numbers of forward(..., logits_to_keep=1),
        without its wrappers (the module call, the output record) where the lean pass applies."""
        if not lean.fits(self.net) or input_ids.shape[0] != 1:
            out = self(input_ids, features=features, cache=cache, logits_to_keep=1)
            return out.hidden_states[0][0, -1:], out.logits[0]
        e = self.embed(input_ids)                                                 # (1, T, H)
        h = lean.hidden(self.net, self.fc.forward(torch.cat([e, features.to(e.dtype)], dim=-1)), cache)
        small = self.net.lm_head.forward(h[0, -1:])                               # (1, N)
        full = small.new_full((1, self.config.vocab_size), float("-inf"))
        full[:, self.keep_ids] = small
        return h[0, -1:], full                                                    # (1, H), (1, V)


def is_feature_folder(vocab: dict | None) -> bool:
    return bool(vocab) and vocab.get("reads") == "target features"


def load_feature_draft(net, folder: Path, vocab: dict) -> FeatureDraft:
    """Wrap a loaded 1-layer net with its mixing layer (fc.safetensors)."""
    from safetensors.torch import load_file
    weights = load_file(str(Path(folder) / FC_FILE))
    hidden = net.config.hidden_size
    fc = torch.nn.Linear(2 * hidden, hidden, bias=False)
    fc.load_state_dict({"weight": weights["weight"].float()})
    return FeatureDraft(net.float(), fc, vocab["keep_ids"], vocab["target_vocab_size"])


def save_fc(fc: torch.nn.Linear, folder: Path) -> None:
    from safetensors.torch import save_file
    save_file({"weight": fc.weight.detach().half().contiguous()}, str(Path(folder) / FC_FILE))
