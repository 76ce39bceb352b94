"""An LM head (the tied embedding rows of a small draft) stored in 8 bits beside the model.

The feature draft's head — 12,288 rows × 576 — is most of its weights: as int8 with one
float32 scale per GROUP entries of a row (`head.safetensors`) it takes 7.5 MB where fp16
took 14 MB, which keeps the committed drafts within their 40 MB. Rounding moves an entry by
at most (its group's largest |entry|) / 254; exactness does not depend on it either way: the
engine verifies with the target's p whatever q the draft computes.
A folder with a split head: `config.json`, `model.safetensors` (everything but the head) and
`head.safetensors` ({"rows": int8 (N, H), "scale": float32 (N, H / GROUP)}).
"""
from __future__ import annotations

from pathlib import Path

import torch

from specdec.models import construct

HEAD_FILE = "head.safetensors"
KEY = "model.embed_tokens.weight"
GROUP = 64           # entries of a row that share a scale (a whole row when H is no multiple)


def quantize(rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(N, H) float -> int8 (N, H) and scales (N, H / GROUP): rows ≈ dequantize(q, scale)."""
    n, h = rows.shape
    size = GROUP if h % GROUP == 0 else h
    groups = rows.float().reshape(n, h // size, size)                             # (N, G, size)
    scale = groups.abs().amax(dim=2).clamp(min=1e-12) / 127                       # (N, G)
    q = torch.round(groups / scale[..., None]).clamp(-127, 127).to(torch.int8)    # (N, G, GROUP)
    return q.reshape(n, h), scale


def dequantize(q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    n, g = scale.shape
    return (q.float().reshape(n, g, -1) * scale.float()[..., None]).reshape(q.shape)    # (N, H)


def has_head(folder) -> bool:
    return Path(folder).is_dir() and (Path(folder) / HEAD_FILE).exists()


def split_head(folder: Path, untied_ok: bool = False) -> None:
    """Move the head (tied to the embedding) out of model.safetensors into head.safetensors,
    in 8 bits. An untied lm_head would be dropped: refused unless `untied_ok` (tests)."""
    import json

    from safetensors.torch import load_file, save_file
    folder = Path(folder)
    if not json.loads((folder / "config.json").read_text()).get("tie_word_embeddings") and not untied_ok:
        raise ValueError("split_head needs a model whose LM head is tied to its embedding")
    weights = load_file(str(folder / "model.safetensors"))
    q, scale = quantize(weights.pop(KEY))
    weights.pop("lm_head.weight", None)
    save_file({"rows": q.contiguous(), "scale": scale.contiguous()}, str(folder / HEAD_FILE))
    save_file(weights, str(folder / "model.safetensors"), metadata={"format": "pt"})


def read_weights(folder: Path) -> dict[str, torch.Tensor]:
    """model.safetensors with the head put back (float32)."""
    from safetensors.torch import load_file
    weights = {k: v.float() for k, v in load_file(str(Path(folder) / "model.safetensors")).items()}
    head = load_file(str(Path(folder) / HEAD_FILE))
    rows, scale = head.get("rows"), head.get("scale")
    if set(head) != {"rows", "scale"} or rows.dtype != torch.int8 or rows.ndim != 2 or \
            scale.ndim != 2 or scale.shape[0] != rows.shape[0] or rows.shape[1] % scale.shape[1]:
        raise ValueError(f"{HEAD_FILE} must hold int8 'rows' (N, H) and their 'scale' (N, groups)")
    weights[KEY] = dequantize(rows, scale)
    return weights


def load_net(folder: Path) -> torch.nn.Module:
    """The float32 model of a folder with a split head (built from its config, no download)."""
    from transformers import AutoConfig, AutoModelForCausalLM
    config = AutoConfig.from_pretrained(str(folder), local_files_only=True)
    with construct.building():                  # not under the config's float16 (construct.py)
        net = AutoModelForCausalLM.from_config(config, dtype=construct.DTYPE)
    missing, unexpected = net.load_state_dict(read_weights(folder), strict=False)
    if unexpected or [k for k in missing if k != "lm_head.weight"]:
        raise ValueError(f"weights do not fit the config (missing {missing[:3]}, unexpected {unexpected[:3]})")
    net.tie_weights()
    return net
