"""The GGUF's own Q4_1 blocks of a llama model's linear layers, for the int4 target (precision.py).

A converted model holds float32 weights dequantised from these blocks; the int4 target multiplies
by the blocks themselves. Each layer's blocks are used only where they dequantise exactly to the
loaded float32 weights (`q4_1_blocks`), so a mismatch never slips in; they are kept beside the
converted model once read.
"""
from __future__ import annotations

from pathlib import Path

import torch

from specdec.files import atomic
from specdec.models.gguf import architecture

# Q4_1 block: float16 scale d, float16 low m, 16 bytes of nibbles; entry j = (qs[j] & 15) * d + m,
# entry j + 16 = (qs[j] >> 4) * d + m (llama.cpp's ggml-quants.c).
Q4_1_BYTES, Q4_1_SIZE = 20, 32
LLAMA_LINEARS = {"attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj", "attn_v": "self_attn.v_proj",
                 "attn_output": "self_attn.o_proj", "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj",
                 "ffn_down": "mlp.down_proj"}


def _q4_1(raw) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Raw Q4_1 rows (N, K/32 * 20) uint8 -> q uint8 (N, K), scale and low float32 (N, K/32)."""
    import numpy as np
    blocks = np.ascontiguousarray(raw).reshape(raw.shape[0], -1, Q4_1_BYTES)        # (N, K/32, 20)
    scale = blocks[..., 0:2].copy().view(np.float16)[..., 0].astype(np.float32)
    low = blocks[..., 2:4].copy().view(np.float16)[..., 0].astype(np.float32)
    nibbles = blocks[..., 4:]                                                       # (N, K/32, 16)
    q = np.concatenate([nibbles & 15, nibbles >> 4], axis=-1).reshape(raw.shape[0], -1)
    return torch.from_numpy(q), torch.from_numpy(scale), torch.from_numpy(low)


def _unpermute(t: torch.Tensor, heads: int) -> torch.Tensor:
    """transformers' reverse of llama.cpp's q/k row order (rows = heads x 2 x half-dims)."""
    return t.reshape(heads, t.shape[0] // heads // 2, 2, *t.shape[1:]).swapaxes(2, 1).reshape(t.shape)


Blocks = dict[str, tuple[torch.Tensor, torch.Tensor, torch.Tensor]]
BLOCKS_FILE = "q4_1_blocks.pt"     # beside a converted model: the blocks without reparsing the GGUF


def _read_blocks(path: Path, config) -> Blocks:
    """Module name -> (q, scale, low) for each Q4_1 linear layer of a llama GGUF."""
    from gguf import GGMLQuantizationType, GGUFReader
    if not reads_blocks(path):                   # asked first: GGUFReader parses every field
        return {}
    reader = GGUFReader(str(path))
    heads = {"attn_q": config.num_attention_heads, "attn_k": config.num_key_value_heads}
    out = {}
    for tensor in reader.tensors:
        parts = tensor.name.split(".")            # blk.<i>.<kind>.weight
        if tensor.tensor_type != GGMLQuantizationType.Q4_1 or len(parts) != 4 or parts[2] not in LLAMA_LINEARS:
            continue
        q, scale, low = _q4_1(tensor.data)
        if parts[2] in heads:
            q, scale, low = (_unpermute(t, heads[parts[2]]) for t in (q, scale, low))
        out[f"model.layers.{parts[1]}.{LLAMA_LINEARS[parts[2]]}"] = (q, scale, low)
    return out


def reads_blocks(path: Path) -> bool:
    """Whether this file's layers can be read as blocks here: a llama GGUF's (its Q4_1 ones)."""
    return architecture(path) == "llama"


def _exact(blocks: Blocks, model) -> Blocks:
    """The blocks that dequantise exactly to `model`'s float32 weights (a mismatch never slips in)."""
    modules, out = dict(model.named_modules()), {}
    for name, (q, scale, low) in blocks.items():
        weight = modules[name].weight.detach() if name in modules else None
        n, k = q.shape
        again = (q.reshape(n, k // Q4_1_SIZE, Q4_1_SIZE).float() * scale[..., None] + low[..., None]).reshape(n, k)
        if weight is not None and weight.shape == again.shape and torch.equal(again, weight.float()):
            out[name] = (q, scale, low)
    return out


def q4_1_blocks(path: Path, model, folder: Path | None = None) -> Blocks:
    """The GGUF's Q4_1 blocks that match `model` exactly. With `folder` (the model's converted
    cache) they are kept there once read, and read back from it (checked the same way)."""
    saved = folder / BLOCKS_FILE if folder is not None else None
    blocks = None
    if saved is not None and saved.is_file():
        try:
            blocks = {k: tuple(v) for k, v in torch.load(saved, weights_only=True).items()}
        except Exception:         # damaged: read the file again
            blocks = None
    if blocks is None:
        blocks = _read_blocks(path, model.config)
        if saved is not None:
            with atomic.replacing(saved) as tmp:
                torch.save(blocks, tmp)
    return _exact(blocks, model)
