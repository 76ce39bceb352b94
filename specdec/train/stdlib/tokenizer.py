"""Byte-level BPE tokenizer trained on the corpus (Hugging Face `tokenizers`).

Saved as a `PreTrainedTokenizerFast`, so `AutoTokenizer.from_pretrained(dir)` loads it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

import numpy as np

from specdec.files import atomic

EOT = "<|endoftext|>"


def train_tokenizer(texts: Iterable[str], vocab_size: int):
    """Return a transformers fast tokenizer with `EOT` as bos/eos/pad."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import PreTrainedTokenizerFast

    bpe = ByteLevelBPETokenizer(add_prefix_space=False)
    bpe.train_from_iterator(list(texts), vocab_size=vocab_size, min_frequency=2,
                            special_tokens=[EOT], show_progress=False)
    add_bos(bpe._tokenizer)
    return PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer, bos_token=EOT,
                                   eos_token=EOT, unk_token=EOT, pad_token=EOT)


def add_bos(tok) -> None:
    """Prefix every encoded text with EOT, as every training document is.

    `tok` is a `tokenizers.Tokenizer`; streams are encoded without special tokens.
    """
    from tokenizers import processors

    eot = tok.token_to_id(EOT)
    tok.post_processor = processors.Sequence([
        processors.ByteLevel(trim_offsets=False),
        processors.TemplateProcessing(single=f"{EOT} $A", pair=f"{EOT} $A {EOT} $B",
                                      special_tokens=[(EOT, eot)])])


def encode_stream(tokenizer, texts: Iterable[str]) -> np.ndarray:
    """Concatenate documents as `EOT doc EOT doc ...`; (N,) uint16."""
    eot = tokenizer.convert_tokens_to_ids(EOT)
    ids: list[int] = []
    for text in texts:
        ids.append(eot)
        ids.extend(tokenizer(text, add_special_tokens=False)["input_ids"])
    assert tokenizer.vocab_size + 1 < 2**16
    return np.asarray(ids, dtype=np.uint16)


def save_stream(path: Path, ids: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic.replacing(path) as tmp, open(tmp, "wb") as fh:
        np.save(fh, ids)
