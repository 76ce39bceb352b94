"""A model is sized before it is built: its config against hard ceilings and this machine's memory.

transformers builds every layer a config asks for before a single weight is read, so a config
with `num_hidden_layers = 10**9` keeps a machine busy for minutes and `vocab_size = 10**9` asks
the allocator for gigabytes it does not have. Here the config is read first (a few hundred bytes)
and refused with one LoadError naming the field and the limit when a size is outside what any
model this lab loads could have, or when its float32 weights would not fit in the memory that is
free. The GGUF path checks the config transformers reads from the file's metadata the same way.
"""
from __future__ import annotations

from pathlib import Path

from specdec.errors import LoadError
from specdec.wording import N_

# Far above any model this project loads (SmolLM2-135M: 30 layers, width 576, 49,152 tokens);
# a 405B model has 126 layers, width 16,384, 128 heads and a 128k vocabulary.
CEILINGS = {"num_hidden_layers": 512, "n_layer": 512, "hidden_size": 65_536, "n_embd": 65_536,
            "intermediate_size": 262_144, "num_attention_heads": 1_024, "n_head": 1_024,
            "num_key_value_heads": 1_024, "vocab_size": 1_048_576}
FLOAT32 = 4


def _get(config, *names) -> int:
    for name in names:
        value = getattr(config, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return 0


def parameters(config) -> int:
    """About how many weights the config asks for: embeddings (and an untied head) plus, per
    layer, attention (q, k, v, o) and the feed-forward block (three matrices, or two)."""
    width, vocab = _get(config, "hidden_size", "n_embd"), _get(config, "vocab_size")
    layers = _get(config, "num_hidden_layers", "n_layer")
    ffn = _get(config, "intermediate_size", "n_inner") or 4 * width
    heads = _get(config, "num_attention_heads", "n_head") or 1
    kv = _get(config, "num_key_value_heads") or heads
    head_dim = _get(config, "head_dim") or width // heads
    attention = 2 * width * heads * head_dim + 2 * width * kv * head_dim
    embeddings = vocab * width * (1 if getattr(config, "tie_word_embeddings", True) else 2)
    return embeddings + layers * (attention + 3 * width * ffn)


def free_bytes() -> int | None:
    """Memory the kernel says can be had without swapping (Linux: MemAvailable), else None."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def check(config, name: str) -> None:
    """One LoadError when `config` is outside the ceilings or its float32 weights exceed free memory."""
    for field, ceiling in CEILINGS.items():
        value = getattr(config, field, None)
        if isinstance(value, int) and not isinstance(value, bool) and not 1 <= value <= ceiling:
            raise LoadError(N_("{name} asks for {field} = {value}; this lab loads models with {field} "
                               "between 1 and {ceiling}"), N_("check the model's config.json"),
                            name=repr(name), field=field, value=value, ceiling=ceiling)
    need, free = parameters(config) * FLOAT32, free_bytes()
    if free is not None and need > free:
        raise LoadError(N_("{name} has about {params} parameters: {need} of float32 weights, and this "
                           "machine has {free} of memory free"), N_("choose a smaller model"),
                        name=repr(name), params=_count(parameters(config)), need=_gb(need), free=_gb(free))


def _count(n: int) -> str:
    return f"{n / 1e9:.1f} billion" if n >= 1e9 else f"{n / 1e6:.0f} million"


def _gb(n: int) -> str:
    return f"{n / 2**30:.1f} GiB"
