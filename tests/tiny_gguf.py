"""A tiny Llama written as a GGUF file by the `gguf` package (llama.cpp's own writer), with a
byte-level BPE tokenizer and a chat template: what a user's local .gguf file looks like."""
from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np
from transformers.convert_slow_tokenizer import bytes_to_unicode

Q4_1 = gguf.GGMLQuantizationType.Q4_1
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
TEMPLATE = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
            "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def write_tiny_gguf(path: Path, arch: str = "llama", seed: int = 0, layers: int = 2, hidden: int = 16,
                    heads: int = 2, kv_heads: int = 1, ffn: int = 32, context: int = 128,
                    q4_1: bool = False, claimed_layers: int | None = None) -> Path:
    """`q4_1`: the blocks' linear layers stored as Q4_1 (llama.cpp's 4-bit blocks of 32), as
    SmolLM2's GGUF stores them; needs hidden and ffn multiples of 32. `claimed_layers`: what the
    metadata says (a hostile file), whatever tensors it holds."""
    rng = np.random.default_rng(seed)
    tokens = SPECIALS + sorted(set(bytes_to_unicode().values())) + ["Ġt", "he", "Ġthe"]
    w = gguf.GGUFWriter(str(path), arch)
    w.add_name("tiny test model")
    w.add_block_count(claimed_layers or layers)
    w.add_context_length(context)
    w.add_embedding_length(hidden)
    w.add_feed_forward_length(ffn)
    w.add_head_count(heads)
    w.add_head_count_kv(kv_heads)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(len(tokens))
    w.add_rope_dimension_count(hidden // heads)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_types([3] * len(SPECIALS) + [1] * (len(tokens) - len(SPECIALS)))
    w.add_token_merges(["Ġ t", "h e", "Ġt he"])
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_chat_template(TEMPLATE)
    head = hidden // heads

    def weight(*shape):
        return (rng.standard_normal(shape) * 0.5).astype(np.float32)
    w.add_tensor("token_embd.weight", weight(len(tokens), hidden))
    w.add_tensor("output_norm.weight", np.ones(hidden, np.float32))
    for i in range(layers):
        for name, shape in (("attn_q", (hidden, hidden)), ("attn_k", (kv_heads * head, hidden)),
                            ("attn_v", (kv_heads * head, hidden)), ("attn_output", (hidden, hidden)),
                            ("ffn_gate", (ffn, hidden)), ("ffn_up", (ffn, hidden)), ("ffn_down", (hidden, ffn))):
            if q4_1:
                w.add_tensor(f"blk.{i}.{name}.weight", gguf.quants.quantize(weight(*shape), Q4_1), raw_dtype=Q4_1)
            else:
                w.add_tensor(f"blk.{i}.{name}.weight", weight(*shape))
        w.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(hidden, np.float32))
        w.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(hidden, np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path
