"""How faithful a precision is to the model it names: the target in `precision` against
transformers' own float32 load of the same GGUF (every weight dequantised exactly).

Over held-out chats: (1) greedy answers, the precision's one-token steps against transformers'
`generate()` in float32 — how many chats come out identical, token for token; (2) top-1
agreement, teacher-forced: both read each prompt and the float32 answer in one pass, and at
every answer position we ask whether their most likely next tokens agree.
`python -m specdec.bench.fidelity [precision] [chats] [tokens]` writes
assets/fidelity/<precision>.json, which the sidebar quotes with its CPU.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

from specdec.files import atomic

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "fidelity"
CHATS, TOKENS = 8, 24


def shipped_path(precision: str) -> Path:
    return ASSETS / f"{precision}.json"


def shipped(precision: str) -> dict | None:
    """The measurement kept for `precision` (None: none shipped, or unreadable)."""
    try:
        found = json.loads(shipped_path(precision).read_text())
    except (OSError, ValueError):
        return None
    keys = ("identical_chats", "chats", "tokens", "top1_agreement", "cpu")
    return found if isinstance(found, dict) and all(k in found for k in keys) else None


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


def measure(pair, reference, prompts: list, tokens: int = TOKENS) -> dict:
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
    return {"identical_chats": same_text, "chats": len(prompts), "tokens": tokens,
            "top1_agreement": same_top / max(positions, 1), "positions": positions}


def main(argv: list[str]) -> int:
    import specdec
    from specdec.models.kernels import cpu_model
    from specdec.models.load import load_model
    from specdec.prompts import load_prompts, round_robin
    precision = argv[0] if argv else "intdot"
    chats, tokens = (int(argv[1]) if len(argv) > 1 else CHATS), (int(argv[2]) if len(argv) > 2 else TOKENS)
    torch.set_num_threads(1)
    pair = specdec.load_pair("smollm2/target", None, precision=precision, backend="torch")
    reference = load_model("smollm2/target", precision="float32")
    result = {**measure(pair, reference, round_robin(load_prompts("chat"), chats), tokens),
              "precision": precision, "reference": "transformers, float32 (the GGUF dequantised)",
              "cpu": cpu_model(), "date": time.strftime("%Y-%m-%d")}
    shipped_path(precision).parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(shipped_path(precision), json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
