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


GEMMA_SPECIALS = ["<pad>", "<eos>", "<bos>", "<unk>", "<mask>"]     # ids 0-4, as in Gemma 3


def write_tiny_gemma3_gguf(path: Path, seed: int = 0, layers: int = 6, hidden: int = 16, heads: int = 2,
                           head_dim: int = 8, ffn: int = 32, window: int = 4, context: int = 128) -> Path:
    """A tiny Gemma 3 as llama.cpp writes one (Gemma 3 270M's layout: q/k norms, norms after attention
    and after the MLP, a sliding window on 5 layers of 6, a SentencePiece vocabulary scored for
    merging), with one key/value head and random weights."""
    rng = np.random.default_rng(seed)
    pieces = ["▁", *"abcdefgh", "▁a", "▁b", "ab", "▁ab", "\n"]
    tokens = GEMMA_SPECIALS + pieces
    w = gguf.GGUFWriter(str(path), "gemma3")
    w.add_name("tiny gemma3 test model")
    w.add_block_count(layers)
    w.add_context_length(context)
    w.add_embedding_length(hidden)
    w.add_feed_forward_length(ffn)
    w.add_head_count(heads)
    w.add_head_count_kv(1)
    w.add_key_length(head_dim)
    w.add_value_length(head_dim)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_rope_freq_base(10000.0)
    w.add_sliding_window(window)
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_scores([-1000.0] * len(GEMMA_SPECIALS) + [-float(i) for i in range(len(pieces))])
    w.add_token_types([3, 3, 3, 2, 3] + [1] * len(pieces))
    w.add_bos_token_id(2)
    w.add_eos_token_id(1)
    w.add_unk_token_id(3)
    w.add_pad_token_id(0)
    w.add_add_bos_token(True)

    def weight(*shape):
        return (rng.standard_normal(shape) * 0.5).astype(np.float32)

    def norm(size):                                  # stored as 1 + w, as llama.cpp stores Gemma's
        return (1.0 + rng.standard_normal(size) * 0.1).astype(np.float32)
    w.add_tensor("token_embd.weight", weight(len(tokens), hidden))
    w.add_tensor("output.weight", weight(len(tokens), hidden))   # its own head: a tied one repeats the input
    w.add_tensor("output_norm.weight", norm(hidden))
    for i in range(layers):
        for name, shape in (("attn_q", (heads * head_dim, hidden)), ("attn_k", (head_dim, hidden)),
                            ("attn_v", (head_dim, hidden)), ("attn_output", (hidden, heads * head_dim)),
                            ("ffn_gate", (ffn, hidden)), ("ffn_up", (ffn, hidden)), ("ffn_down", (hidden, ffn))):
            w.add_tensor(f"blk.{i}.{name}.weight", weight(*shape))
        for name, size in (("attn_norm", hidden), ("attn_q_norm", head_dim), ("attn_k_norm", head_dim),
                           ("post_attention_norm", hidden), ("ffn_norm", hidden), ("post_ffw_norm", hidden)):
            w.add_tensor(f"blk.{i}.{name}.weight", norm(size))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path
