"""The target's own answers to the training instructions, with its top-K next-token
distributions at every answer position (DistillSpec's on-policy data).

    python -m specdec.train.selfgen --shards 200 --threads 2      # resumable, logs progress

Shard i answers instructions [i//2 * B, (i//2 + 1) * B): even shards greedily, odd shards
sampled at T = 1 (seed = i), so the drafts see what the target writes in both modes. Each
shard writes two files under build/smollm2/gen/:
  shard_XXXX.tokens.npz  prompt and answer ids (small: committed under assets/training/)
  shard_XXXX.topk.npz    per answer position, the target's K most likely ids and log-probs
Generation runs the target in bfloat16 (1.5x faster on this CPU than float32); the
distillation targets are therefore the bfloat16 target's, a close stand-in for float32 —
verification always uses the float32 target, so exactness does not depend on it.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

from specdec.train.instructions import build

OUT = Path("build/smollm2/gen")
TOPK = 20


def log(msg: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {msg}", flush=True)


def chat_ids(tokenizer, instructions: list[str]) -> list[list[int]]:
    return [tokenizer.apply_chat_template([{"role": "user", "content": text}],
                                          add_generation_prompt=True, tokenize=True,
                                          return_dict=True)["input_ids"] for text in instructions]


def left_pad(rows: list[list[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(map(len, rows))
    ids = torch.full((len(rows), width), pad, dtype=torch.long)            # (B, W)
    mask = torch.zeros((len(rows), width), dtype=torch.long)               # (B, W)
    for i, row in enumerate(rows):
        ids[i, width - len(row):] = torch.tensor(row)
        mask[i, width - len(row):] = 1
    return ids, mask


def answer_length(row: torch.Tensor, eos: int) -> int:
    """Tokens up to and including the first end-of-turn."""
    hits = (row == eos).nonzero()
    return int(hits[0]) + 1 if len(hits) else len(row)


@torch.no_grad()
def generate_shard(model, tokenizer, instructions: list[str], greedy: bool, seed: int,
                   max_new: int) -> dict[str, np.ndarray]:
    prompts = chat_ids(tokenizer, instructions)
    eos = tokenizer.eos_token_id
    ids, mask = left_pad(prompts, eos)
    torch.manual_seed(seed)
    out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=max_new,
                         do_sample=not greedy, temperature=1.0, top_k=0, top_p=1.0,
                         eos_token_id=eos, pad_token_id=eos, output_logits=True,
                         return_dict_in_generate=True)
    answers = out.sequences[:, ids.shape[1]:]                               # (B, N)
    logits = torch.stack(out.logits, 1).float().log_softmax(-1)             # (B, N, V)
    top = logits.topk(TOPK, dim=-1)                                          # (B, N, K)
    lens = [answer_length(row, eos) for row in answers]
    cat = lambda parts: np.concatenate(parts) if parts else np.zeros(0)    # noqa: E731
    return {
        "prompt_ids": cat([np.array(p, dtype=np.uint16) for p in prompts]),
        "prompt_lens": np.array([len(p) for p in prompts], dtype=np.int32),
        "answer_ids": cat([answers[i, :n].numpy().astype(np.uint16) for i, n in enumerate(lens)]),
        "answer_lens": np.array(lens, dtype=np.int32),
        "topk_ids": cat([top.indices[i, :n].numpy().astype(np.uint16) for i, n in enumerate(lens)]),
        "topk_logprobs": cat([top.values[i, :n].numpy().astype(np.float16)
                              for i, n in enumerate(lens)]),
    }


def save_shard(out: Path, index: int, data: dict[str, np.ndarray]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    tokens = {k: v for k, v in data.items() if not k.startswith("topk")}
    topk = {k: v for k, v in data.items() if k.startswith("topk")}
    np.savez_compressed(out / f"shard_{index:04d}.topk.npz", **topk)
    np.savez_compressed(out / f"shard_{index:04d}.tokens.npz", **tokens)   # written last: "done"


def run(shards: int, batch: int, max_new: int, out: Path, dtype: torch.dtype) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from specdec.gguf_cache import converted_target
    folder = converted_target()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=dtype).eval()
    instructions = build((shards // 2 + 1) * batch)
    for index in range(shards):
        if (out / f"shard_{index:04d}.tokens.npz").exists():
            continue
        chunk = instructions[(index // 2) * batch:(index // 2 + 1) * batch]
        t0 = time.perf_counter()
        data = generate_shard(model, tokenizer, chunk, greedy=index % 2 == 0, seed=index,
                              max_new=max_new)
        save_shard(out, index, data)
        n, dt = int(data["answer_lens"].sum()), time.perf_counter() - t0
        log(f"shard {index}: {len(chunk)} answers, {n} tokens, {n / dt:.0f} tok/s, "
            f"{'greedy' if index % 2 == 0 else 'T=1'}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m specdec.train.selfgen", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shards", type=int, default=200)
    ap.add_argument("--batch", type=int, default=48, help="instructions per shard")
    ap.add_argument("--max-new", type=int, default=192)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--dtype", choices=["bfloat16", "float32"], default="bfloat16")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    run(args.shards, args.batch, args.max_new, args.out, getattr(torch, args.dtype))
    return 0


if __name__ == "__main__":
    sys.exit(main())
