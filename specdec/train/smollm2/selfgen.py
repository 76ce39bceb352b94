"""The target's own answers to the training instructions, with its top-K next-token
distributions at every answer position (DistillSpec's on-policy data).

    python -m specdec.train.smollm2.selfgen --shards 16 --threads 2                  # the first set
    python -m specdec.train.smollm2.selfgen --set wide --first 18 --shards 38 --batch 64 --dtype float32
    python -m specdec.train.smollm2.selfgen --set wide --seed 2 --first 36 --shards 120 --batch 64 --dtype float32
    python -m specdec.train.smollm2.selfgen --set kinds --first 200 --shards 64 --upto 224 --batch 64 \
        --dtype float32 --threads 1

Shard i answers instructions [j * B, (j + 1) * B), j = (i - first) // 2: of a pair of shards
the even one greedily, the odd one sampled at T = 1 (seed = i), so the drafts see what the
target writes in both modes. Each shard writes two files under build/smollm2/gen/:
  shard_XXXX.tokens.npz  prompt and answer ids (small: committed under assets/training/)
  shard_XXXX.topk.npz    per answer position, the target's K most likely ids and log-probs
`decode` batches the prompts (left-padded, sorted by length within blocks) and drops a row
from the batch and its cache as soon as it ends: on this 2-core CPU, float32 at batch 64 gives
~155 answer tokens/s (generate() in bfloat16 at batch 48 gave 5-24). Shards 0-15 were made
the old way, in bfloat16 (a close stand-in: verification always uses the float32 target).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
from transformers import DynamicCache

from specdec.files import atomic
from specdec.train.common import log
from specdec.train.smollm2.instructions import build

OUT = Path("build/smollm2/gen")
COMMITTED = Path("assets/training/smollm2/gen")     # the token halves of the shards, committed
TOPK = 20


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


@torch.no_grad()
def decode(model, ids: torch.Tensor, mask: torch.Tensor, greedy: bool, seed: int, max_new: int,
           eos: int) -> tuple[list[list[int]], list[torch.Tensor]]:
    """Each row's answer (up to and including its end-of-turn) and its log-probs (A, V) top-K.
    A finished row leaves the batch at once (its cache rows are dropped), so short answers
    do not pay for long ones — unlike `generate()`, which steps every row to the longest."""
    gen = torch.Generator().manual_seed(seed)
    rows = torch.arange(len(ids))                                   # live row -> original index
    pos = (mask.cumsum(-1) - 1).clamp(min=0)                        # (B, W) left padding
    cache = DynamicCache(config=model.config)
    out = model(input_ids=ids, attention_mask=mask, position_ids=pos, cache=cache, use_cache=True,
                logits_to_keep=1)
    answers: list[list[int]] = [[] for _ in range(len(ids))]
    tops: list[list[tuple]] = [[] for _ in range(len(ids))]
    logits, nxt_pos = out.logits[:, -1].float(), pos[:, -1:] + 1
    for step in range(max_new):
        logp = logits.log_softmax(-1)                                # (b, V)
        tok = logp.argmax(-1) if greedy else torch.multinomial(logp.exp(), 1, generator=gen)[:, 0]
        top = logp.topk(TOPK, dim=-1)
        for j, r in enumerate(rows.tolist()):
            answers[r].append(int(tok[j]))
            tops[r].append((top.indices[j], top.values[j]))
        live = (tok != eos).nonzero()[:, 0]
        if step == max_new - 1 or not len(live):
            break
        if len(live) < len(rows):
            cache.batch_select_indices(live)
            rows, mask, tok, nxt_pos = rows[live], mask[live], tok[live], nxt_pos[live]
        mask = torch.cat([mask, torch.ones_like(mask[:, :1])], 1)
        out = model(input_ids=tok[:, None], attention_mask=mask, position_ids=nxt_pos, cache=cache,
                    use_cache=True)
        logits, nxt_pos = out.logits[:, -1].float(), nxt_pos + 1
    return answers, tops


def generate_shard(model, tokenizer, instructions: list[str], greedy: bool, seed: int,
                   max_new: int) -> dict[str, np.ndarray]:
    prompts = chat_ids(tokenizer, instructions)
    eos = tokenizer.eos_token_id
    ids, mask = left_pad(prompts, eos)
    answers, tops = decode(model, ids, mask, greedy, seed, max_new, eos)
    stack = lambda rows, i: np.stack([t[i].numpy() for t in rows])          # noqa: E731
    return {
        "prompt_ids": np.concatenate([np.array(p, dtype=np.uint16) for p in prompts]),
        "prompt_lens": np.array([len(p) for p in prompts], dtype=np.int32),
        "answer_ids": np.concatenate([np.array(a, dtype=np.uint16) for a in answers]),
        "answer_lens": np.array([len(a) for a in answers], dtype=np.int32),
        "topk_ids": np.concatenate([stack(t, 0).astype(np.uint16) for t in tops]),
        "topk_logprobs": np.concatenate([stack(t, 1).astype(np.float16) for t in tops]),
    }


def save_shard(out: Path, index: int, data: dict[str, np.ndarray]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    tokens = {k: v for k, v in data.items() if not k.startswith("topk")}
    topk = {k: v for k, v in data.items() if k.startswith("topk")}
    for name, part in ((f"shard_{index:04d}.topk.npz", topk),
                       (f"shard_{index:04d}.tokens.npz", tokens)):     # tokens written last: "done"
        with atomic.replacing(out / name) as tmp, open(tmp, "wb") as fh:    # whole, or not there
            np.savez_compressed(fh, **part)


def instruction_set(name: str, n: int, tokenizer, seed: int | None = None) -> list[str]:
    """The set's first n instructions; another seed gives other instructions of the same kinds."""
    if name == "first":
        return build(n) if seed is None else build(n, seed)
    if name == "kinds":
        from specdec.train.smollm2 import kind_instructions
        texts = kind_instructions.kind_passages(COMMITTED, tokenizer)
        return kind_instructions.build(n, texts) if seed is None else kind_instructions.build(n, texts, seed)
    from specdec.train.smollm2 import chat_instructions, kind_instructions
    texts = kind_instructions.kind_passages(COMMITTED, tokenizer)   # shards before the kinds set's: fixed
    return chat_instructions.build(n, texts) if seed is None else chat_instructions.build(n, texts, seed)


def by_length(instructions: list[str], tokenizer, batch: int, block: int = 10) -> list[str]:
    """Sorted by prompt length within blocks of `block` shards: a shard's prompts are about
    equally long, so little of its prefill is padding."""
    size = block * batch
    key = lambda text: len(tokenizer(text)["input_ids"])            # noqa: E731
    return [t for i in range(0, len(instructions), size) for t in sorted(instructions[i:i + size], key=key)]


def run(shards: range, batch: int, max_new: int, out: Path, dtype: torch.dtype, which: str,
        seed: int | None = None, upto: int | None = None) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from specdec.models.gguf import converted_target
    folder = converted_target()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=dtype).eval()
    instructions = by_length(instruction_set(which, (len(shards) // 2 + 1) * batch, tokenizer, seed),
                             tokenizer, batch)
    for index in shards:
        if (out / f"shard_{index:04d}.tokens.npz").exists() or (upto is not None and index >= upto):
            continue
        part = (index - shards.start) // 2
        chunk = instructions[part * batch:(part + 1) * batch]
        t0 = time.perf_counter()
        data = generate_shard(model, tokenizer, chunk, greedy=index % 2 == 0, seed=index,
                              max_new=max_new)
        save_shard(out, index, data)
        n, dt = int(data["answer_lens"].sum()), time.perf_counter() - t0
        log(f"shard {index}: {len(chunk)} answers, {n} tokens, {n / dt:.0f} tok/s, "
            f"{'greedy' if index % 2 == 0 else 'T=1'}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m specdec.train.smollm2.selfgen", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shards", type=int, default=200)
    ap.add_argument("--first", type=int, default=0, help="index of the set's first shard")
    ap.add_argument("--set", choices=["first", "wide", "kinds"], default="first",
                    help="instructions.py's set, chat_instructions.py's or kind_instructions.py's")
    ap.add_argument("--batch", type=int, default=48, help="instructions per shard")
    ap.add_argument("--max-new", type=int, default=192)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--dtype", choices=["bfloat16", "float32"], default="bfloat16",
                    help="float32 is faster at batch >= 16 on this CPU")
    ap.add_argument("--seed", type=int, default=None,
                    help="instruction seed (default: the set's own); a new seed, new instructions")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--upto", type=int, default=None,
                    help="stop before this shard index (the instructions still follow --shards)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    run(range(args.first, args.first + args.shards), args.batch, args.max_new, args.out,
        getattr(torch, args.dtype), args.set, args.seed, args.upto)
    return 0


if __name__ == "__main__":
    sys.exit(main())
