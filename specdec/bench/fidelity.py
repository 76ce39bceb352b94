"""How faithful a precision is to the model it names: the target in `precision` against
transformers' own float32 load of the same GGUF (every weight dequantised exactly).

Over held-out chats: (1) greedy answers, the precision's one-token steps against transformers'
`generate()` in float32 — how many chats come out identical, token for token; (2) top-1
agreement, teacher-forced: both read each prompt and the float32 answer in one pass, and at
every answer position we ask whether their most likely next tokens agree.
`python -m specdec.bench.fidelity [precision] [chats] [tokens]` writes a `Fidelity` record (with
its provenance) to assets/fidelity/<precision>.json, which the sidebar quotes with its CPU.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import torch

from specdec.files import atomic
from specdec.records import codec
from specdec.records.provenance import Provenance, here

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "fidelity"
CHATS, TOKENS = 8, 24


def shipped_path(precision: str) -> Path:
    return ASSETS / f"{precision}.json"


@dataclass(frozen=True)
class Fidelity:
    identical_chats: int           # chats whose greedy text equals the reference's, token for token
    chats: int
    tokens: int                    # new tokens a chat
    top1_agreement: float          # answer positions where both pick the same top token (teacher-forced)
    positions: int
    precision: str = ""
    reference: str = ""
    provenance: Provenance = Provenance()


def shipped(precision: str) -> Fidelity | None:
    """The measurement kept for `precision` (None: none shipped, or unreadable)."""
    try:
        return codec.from_json(Fidelity, shipped_path(precision).read_bytes(), shipped_path(precision).name)
    except (OSError, codec.RecordFileError):
        return None


@torch.no_grad()
def reference_answer(model, prompt: list[int], tokens: int, eos: int | None) -> list[int]:
    """transformers' greedy generate() on the float32 model."""
    ids = torch.tensor([prompt])
    out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=tokens, do_sample=False,
                         eos_token_id=eos, pad_token_id=eos)
    return out[0, len(prompt):].tolist()


def top1(backend, prompt: list[int], answer: list[int]) -> list[int]:
    """The backend's most likely token at each answer position, reading prompt + answer once."""
    logits, _ = backend.forward(prompt + answer[:-1], backend.new_cache())        # (T, V)
    return logits[len(prompt) - 1:].argmax(-1).tolist()


def measure(pair, reference, prompts: list, tokens: int = TOKENS) -> Fidelity:
    """pair: the target in the precision under test; reference: the float32 model (transformers)."""
    import specdec
    from specdec.chat import user_turn
    settings = specdec.Settings(temperature=0.0, max_new_tokens=tokens)
    eos = pair.tokenizer.eos_token_id
    same_text = same_top = positions = 0
    for prompt in prompts:
        run = specdec.autoregressive(pair, user_turn(prompt.prompt), settings)
        ids = list(run.prompt_ids)
        ref = reference_answer(reference, ids, tokens, eos)
        same_text += list(run.token_ids) == ref
        mine = top1(pair.passes, ids, ref)
        theirs = reference(torch.tensor([ids + ref[:-1]])).logits[0, len(ids) - 1:].argmax(-1).tolist()
        same_top += sum(a == b for a, b in zip(mine, theirs))
        positions += len(ref)
    return Fidelity(same_text, len(prompts), tokens, same_top / max(positions, 1), positions)


def main(argv: list[str]) -> int:
    import specdec
    from specdec.models.load import load_model
    from specdec.prompts import load_prompts, round_robin
    precision = argv[0] if argv else "intdot"
    chats, tokens = (int(argv[1]) if len(argv) > 1 else CHATS), (int(argv[2]) if len(argv) > 2 else TOKENS)
    torch.set_num_threads(1)
    started = time.perf_counter()
    pair = specdec.load_pair("smollm2/target", None, precision=precision, backend="torch")
    reference = load_model("smollm2/target", precision="float32")
    result = replace(measure(pair, reference, round_robin(load_prompts("chat"), chats), tokens),
                     precision=precision, reference="transformers, float32 (the GGUF dequantised)",
                     provenance=here(pair, None, started))
    shipped_path(precision).parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(shipped_path(precision), codec.to_json(result, indent=1) + "\n")
    print(codec.to_json(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
