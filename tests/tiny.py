"""Tiny models and a character tokenizer built from configs, for fast engine tests."""
from __future__ import annotations

import torch
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

import specdec

EOT = "<eot>"
CHARS = "abcdefgh ()\n"     # 12 characters + EOT = 13 tokens


def char_tokenizer(chars: str = CHARS) -> PreTrainedTokenizerFast:
    vocab = {EOT: 0, **{ch: i + 1 for i, ch in enumerate(chars)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token=EOT))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
    tok.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=EOT, unk_token=EOT,
                                   pad_token=EOT)


def tiny_llama(vocab_size: int, layers: int, seed: int, width: int = 32,
               context: int = 64, init: float = 0.3) -> LlamaForCausalLM:
    """Random weights; a large init range makes distributions peaked (few near-ties)."""
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=vocab_size, hidden_size=width, intermediate_size=2 * width,
                      num_hidden_layers=layers, num_attention_heads=2, num_key_value_heads=2,
                      max_position_embeddings=context, initializer_range=init,
                      tie_word_embeddings=False, eos_token_id=0, bos_token_id=0, pad_token_id=0)
    return LlamaForCausalLM(cfg).eval()


def tiny_pair(draft_seed: int = 2, self_draft: bool = False, eos: bool = True,
              **kw) -> specdec.Pair:
    tok = char_tokenizer()
    if not eos:
        tok.eos_token = None
    target = tiny_llama(len(tok), 2, seed=1, **kw)
    draft = target if self_draft else tiny_llama(len(tok), 1, seed=draft_seed, **kw)
    if not eos:        # no end-of-sequence anywhere: neither the tokenizer's nor the model's
        target.generation_config.eos_token_id = None
    return specdec.make_pair(target, draft, tok, "tiny-target", "tiny-draft")


def tiny_feature_draft(target, keep_ids: list[int], seed: int = 3, init: float = 0.3):
    """A random feature draft (EAGLE-style) for `target`: one layer over `keep_ids`."""
    from specdec.models.feature import FeatureDraft
    width = target.config.hidden_size
    net = tiny_llama(len(keep_ids), 1, seed=seed, width=width, init=init)
    fc = torch.nn.Linear(2 * width, width, bias=False)
    torch.nn.init.normal_(fc.weight, std=init)
    return FeatureDraft(net, fc, keep_ids, target.config.vocab_size).eval()


def tiny_feature_pair(eos: bool = True, keep_ids: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6, 9, 10, 11, 12),
                      **kw) -> specdec.Pair:
    """The tiny target of `tiny_pair` with a feature draft that never proposes ids 7 and 8."""
    base = tiny_pair(eos=eos, **kw)
    draft = tiny_feature_draft(base.target, list(keep_ids))
    return specdec.make_pair(base.target, draft, base.tokenizer, "tiny-target", "tiny-feature-draft")
