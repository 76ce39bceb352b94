"""The embedded model family: one deep, narrow target and drafts of several sizes.

Shapes follow the CPU cost model measured here: at batch size 1 a forward pass costs
roughly per *layer*, not per parameter, so drafts are shallow (cheap) and the target
is deep and narrow (strong for its training cost). See assets/models/README.md.
"""
from __future__ import annotations

from dataclasses import dataclass

CONTEXT = 1024        # max_position_embeddings; trained on 512-token windows
SEQ_LEN = 512


@dataclass(frozen=True)
class Member:
    name: str            # short name under `stdlib/`
    layers: int
    width: int           # hidden size
    heads: int           # head dim = width / heads = 32 everywhere
    mlp: int             # SwiGLU intermediate size
    tokens: int          # training tokens of the first phase
    lr: float            # its peak learning rate
    distill_from: str | None = None   # train on this model's next-token distributions
    restart: tuple[int, float] | None = None   # then (tokens, peak lr) after a warm restart

    def phases(self, tokens_per_step: int) -> list[tuple[int, float]]:
        """[(steps, peak lr), ...]: each phase warms up and decays on its own."""
        chunks = [(self.tokens, self.lr)] + ([self.restart] if self.restart else [])
        return [(max(1, tokens // tokens_per_step), lr) for tokens, lr in chunks]


FAMILY = (
    # The target's first 8M tokens at 1.5e-3 left it under-trained (a 4-layer draft at 2e-3
    # overtook it); a warm restart at a higher peak continues from that checkpoint.
    Member("target", 12, 192, 6, 512, 8_000_000, 1.5e-3, restart=(4_000_000, 2e-3)),
    Member("draft-1l", 1, 128, 4, 352, 3_000_000, 3e-3),
    Member("draft-2l", 2, 128, 4, 352, 4_500_000, 3e-3),
    Member("draft-4l", 4, 192, 6, 512, 6_000_000, 2e-3),
    Member("draft-2l-distilled", 2, 128, 4, 352, 3_000_000, 3e-3, distill_from="target",
           restart=(4_000_000, 2e-3)),
)


def member(name: str) -> Member:
    for m in FAMILY:
        if m.name == name:
            return m
    raise KeyError(f"unknown family member {name!r}; known: {[m.name for m in FAMILY]}")


def llama_config(m: Member, vocab_size: int, eot_id: int):
    """A standard LlamaConfig; tied embeddings keep the small models small."""
    from transformers import LlamaConfig

    return LlamaConfig(vocab_size=vocab_size, hidden_size=m.width, intermediate_size=m.mlp,
                       num_hidden_layers=m.layers, num_attention_heads=m.heads,
                       num_key_value_heads=m.heads, max_position_embeddings=CONTEXT,
                       rope_theta=10_000.0, tie_word_embeddings=True, bos_token_id=eot_id,
                       eos_token_id=eot_id, pad_token_id=eot_id, attention_dropout=0.0)
