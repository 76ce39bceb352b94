"""A draft that reads the target's features (EAGLE, Li et al. 2024), and its drafter.

The draft is one decoder layer that works one position behind the target. At draft
position j it reads the pair (f_j, s_{j+1}) — the target's final hidden state at j and the
embedding (the target's own table) of the token that followed — mixes them with a linear
layer `fc`, and outputs h_j, its guess of f_{j+1}; a small LM head over the N most frequent
tokens (reduced vocabulary, as in reduced_vocab.py) turns h_j into q for s_{j+2}.
Drafting d_2, d_3, ... it reads its own h in place of the feature the target has not
computed yet. Since the target already distilled the whole prefix into f_j, one layer can
guess the next token far better than a separate small model.

Exactness does not depend on any of this: the draft only changes q, and the engine
verifies with the target's p. The drafter keeps the features of every position the
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

from specdec.models import crop_cache, new_cache
from specdec.sampling import Sampling, probs_from_logits

FC_FILE = "fc.safetensors"


class FeatureDraft(torch.nn.Module):
    reads_target_features = True

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
        out = self.net.model(inputs_embeds=x, cache=cache, use_cache=use_cache,
                             attention_mask=attention_mask, position_ids=position_ids)
        h = out.last_hidden_state                                                 # (B, T, H)
        small = self.net.lm_head(h[:, -logits_to_keep:] if logits_to_keep else h)  # (B, T', N)
        full = small.new_full((*small.shape[:-1], self.config.vocab_size), float("-inf"))
        full[..., self.keep_ids] = small                                          # (B, T', V)
        return CausalLMOutputWithPast(logits=full, cache=out.cache, hidden_states=(h,))


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


class FeatureDrafter:
    """Drafts with a FeatureDraft; the engine calls `observe` with the target's features."""
    wants_features = True

    def __init__(self, draft: FeatureDraft, vocab_size: int):
        self.draft, self.vocab_size = draft, vocab_size
        self.cache = new_cache(draft.net)
        self.feats = torch.zeros(0, draft.net.config.hidden_size)   # (n, H): f_0..f_{n-1}
        self.real_pairs = 0              # cache rows built from real features (the rest: guesses)

    def cache_len(self) -> int:
        return self.cache.get_seq_length()

    def observe(self, start: int, feats: torch.Tensor) -> None:
        """The target's features for positions start, start+1, ... (all verified)."""
        self.feats = torch.cat([self.feats[:start], feats.float().cpu()])

    @torch.no_grad()
    def _step(self, feats: torch.Tensor, ids: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
        """Feed pairs (feats[i], ids[i]); (last h (1, H), logits of the last pair (1, V))."""
        device = next(self.draft.parameters()).device
        x = torch.tensor([ids], dtype=torch.long, device=device)                  # (1, T)
        out = self.draft(x, features=feats[None].to(device), cache=self.cache, logits_to_keep=1)
        return out.hidden_states[0][0, -1:], out.logits[0, :, :self.vocab_size].float().cpu()

    def propose(self, seq: list[int], k: int, sampling: Sampling, generator, policy):
        from specdec.drafters import Proposal, draft_chain
        n = min(len(self.feats), len(seq) - 1)       # pairs (f_j, s_{j+1}) known for j < n
        if n == 0:                                   # the target has not read the prompt yet
            return Proposal([], torch.zeros(0, self.vocab_size), 0)
        start = self.cache_len()
        last = {"h": None}
        last["h"], row = self._step(self.feats[start:n], seq[start + 1:n + 1])
        self.real_pairs = n

        def guessed_pair(d: int) -> torch.Tensor:         # (h of the previous pair, d)
            last["h"], logits = self._step(last["h"].cpu(), [d])
            return logits
        return draft_chain(row, guessed_pair, k, sampling, generator, policy)

    def rollback(self, valid_len: int) -> None:
        """Keep the real-feature pairs that still belong to the sequence; drop the guesses."""
        self.feats = self.feats[:valid_len]
        crop_cache(self.cache, min(self.real_pairs, max(0, valid_len - 1)))


class FeatureTreeDrafter(FeatureDrafter):
    """A tree of drafts from a FeatureDraft (EAGLE-2): best-first as tree_draft.best_first.
    A node's q comes from feeding its path as pairs (h of the parent, node's token) after
    the real pairs in the cache — h of each expanded node is kept for its children — and
    cropping them off again."""
    drafts_trees = True

    def __init__(self, draft: FeatureDraft, vocab_size: int, width: int, budget: int, rule: str):
        super().__init__(draft, vocab_size)
        self.width, self.budget, self.rule = width, budget, rule

    def propose_tree(self, seq: list[int], depth: int, sampling: Sampling, generator):
        from specdec.tree_draft import TreeProposal, ancestry, best_first
        from specdec.tree import DraftTree
        n = min(len(self.feats), len(seq) - 1)
        if n == 0:                                   # the target has not read the prompt yet
            return TreeProposal(DraftTree((), ()), {}, "deterministic", 0)
        start = self.cache_len()
        h_root, row = self._step(self.feats[start:n], seq[start + 1:n + 1])
        self.real_pairs, hidden = n, {-1: h_root.cpu()}

        def q_of(node: int, tokens: list[int], parents: list[int]) -> torch.Tensor:
            if node < 0:
                return probs_from_logits(row, sampling)[0]
            path = ancestry(node, parents)
            feats = torch.cat([hidden[parents[a]] for a in path])                 # (d, H)
            h, logits = self._step(feats, [tokens[a] for a in path])
            crop_cache(self.cache, n)
            hidden[node] = h.cpu()
            return probs_from_logits(logits, sampling)[0]
        return best_first(q_of, depth, self.width, self.budget, self.rule, sampling, generator)
