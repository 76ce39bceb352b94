"""Two small tokenizers that split the same text differently, for the cross-vocabulary tests.

- `byte_level_tokenizer()`: byte-level BPE (as GPT-2 and SmolLM2 spell bytes: 'Ġ' space,
  'Ċ' newline, 'Ã' '©' the two bytes of 'é'), merges 'ab', ' a', '(a' and 'é'; specials <eot>
  (end of text) and <|user|> (a chat template's marker the other tokenizer lacks).
- `sentencepiece_tokenizer()`: SentencePiece-style BPE ('▁' space, byte fallback <0xNN> for the
  newline and for half characters), merges ' a', 'bc', '()', 'gh' and the whole 'é'; specials
  <unk> and <eot>. 21 tokens to the other's 20 (transformers takes equal sizes for one tokenizer).
Both read the text "abcdefgh ()\\né". Built by hand from vocabularies and merges (nothing trained).
"""
from __future__ import annotations

from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

EOT, USER = "<eot>", "<|user|>"
TEXT_CHARS = "abcdefgh ()\né"


def byte_level_tokenizer() -> PreTrainedTokenizerFast:
    pieces = [EOT, USER, *"abcdefgh", "Ġ", "(", ")", "Ċ", "Ã", "©", "ab", "Ġa", "(a", "Ã©"]
    merges = [("a", "b"), ("Ġ", "a"), ("(", "a"), ("Ã", "©")]
    tok = Tokenizer(models.BPE({p: i for i, p in enumerate(pieces)}, merges))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=EOT, pad_token=EOT,
                                   additional_special_tokens=[USER])


def sentencepiece_tokenizer() -> PreTrainedTokenizerFast:
    pieces = ["<unk>", EOT, "<0x0A>", "<0xC3>", "<0xA9>", "▁", *"abcdefgh", "(", ")", "é", "▁a", "bc", "()", "gh"]
    merges = [("▁", "a"), ("b", "c"), ("(", ")"), ("g", "h")]
    tok = Tokenizer(models.BPE({p: i for i, p in enumerate(pieces)}, merges, unk_token="<unk>", byte_fallback=True))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="never", split=False)
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()])
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=EOT, pad_token=EOT, unk_token="<unk>")
