"""How close a re-quantised target is to the GGUF's own: top-1 agreement, teacher-forced.

The torch backend's target (the GGUF's Q4_1 blocks) writes greedy answers to held-out chats;
both targets then read each prompt and answer in one pass, and at every answer position we ask
whether their most likely next tokens agree. 1.0 would be the same model at the top; a lower
figure is how often the re-quantised model would pick another token from the same context.
`python -m specdec.bench.agreement` measures it for the ONNX build and writes an `Agreement`
record (with its provenance) to assets/bench/onnx-agreement.json, which the sidebar and the bench
quote (with the CPU).
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

SHIPPED = Path(__file__).resolve().parents[2] / "assets" / "bench" / "onnx-agreement.json"


def top1(backend, prompt: list[int], answer: list[int]) -> list[int]:
    """The backend's most likely token at each answer position, reading prompt + answer once."""
    logits, _ = backend.forward(prompt + answer[:-1], backend.new_cache())        # (T, V)
    return logits[len(prompt) - 1:].argmax(-1).tolist()


@dataclass(frozen=True)
class Agreement:
    agreement: float               # answer positions where both targets pick the same top token
    positions: int
    chats: int
    reference: str = ""
    other: str = ""
    new_tokens: int = 0
    provenance: Provenance = Provenance()

    def quoted(self) -> dict:
        """What models/backend.describe quotes (its agreement, chats and CPU)."""
        return {"agreement": self.agreement, "chats": self.chats, "cpu": self.provenance.cpu or "?"}


def agreement(reference, other, texts: list[tuple[list[int], list[int]]]) -> Agreement:
    same = total = 0
    for prompt, answer in texts:
        mine, theirs = top1(reference, prompt, answer), top1(other, prompt, answer)
        same += sum(a == b for a, b in zip(mine, theirs))
        total += len(answer)
    return Agreement(same / total, total, len(texts))


def main(chats: int = 12, new_tokens: int = 32) -> int:
    import specdec
    from specdec.chat import user_turn
    from specdec.prompts import load_prompts, round_robin
    torch.set_num_threads(1)
    started = time.perf_counter()
    pair = specdec.load_pair("smollm2/target", None, backend="onnx")
    reference = specdec.load_pair("smollm2/target", None, backend="torch").passes
    settings = specdec.Settings(temperature=0.0, max_new_tokens=new_tokens, lean=True)
    texts = []
    for prompt in round_robin(load_prompts("chat"), chats):
        run = specdec.autoregressive(replace_backend(pair, reference), user_turn(prompt.prompt), settings)
        texts.append((list(run.prompt_ids), list(run.token_ids)))
    result = replace(agreement(reference, pair.passes, texts), reference="torch int4 (the GGUF's Q4_1 blocks)",
                     other="ONNX Runtime int4 (onnxruntime-genai builder)", new_tokens=new_tokens,
                     provenance=here(pair, None, started))
    atomic.write_text(SHIPPED, codec.to_json(result, indent=1) + "\n")
    print(codec.to_json(result, indent=1))
    return 0


def replace_backend(pair, backend):
    from dataclasses import replace
    return replace(pair, backend=backend)


def shipped() -> Agreement | None:
    try:
        return codec.from_json(Agreement, SHIPPED.read_bytes(), SHIPPED.name)
    except (OSError, codec.RecordFileError):
        return None


if __name__ == "__main__":
    sys.exit(main())
