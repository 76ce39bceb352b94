"""Off-policy distillation data: the target's top-K next-token distributions on offline text.

    python -m specdec.train.smollm2.relabel --shards 200 --threads 1        # resumable
    python -m specdec.train.smollm2.relabel --answers-from assets/training/smollm2/gen --out build/smollm2/gen

Teacher forcing costs one batched forward per window — several times cheaper per token
than generating answers (selfgen) — so this adds volume while selfgen adds the
on-policy answers that matter most. Text: the interpreter's reference documentation
(`pydoc_data.topics`) and the standard library's sources, cut into windows of WINDOW
tokens; windows are shuffled with a fixed seed so any prefix of the shards mixes both.
Shards have selfgen's format (a one-token "prompt", the rest as "answer").
"""
from __future__ import annotations

import argparse
import random
import sys
import sysconfig
import time
from pathlib import Path

import numpy as np
import torch

from specdec.train.common import log
from specdec.train.smollm2.selfgen import TOPK, save_shard

OUT = Path("build/smollm2/relabel")
WINDOW, PER_SHARD = 256, 32


def offline_texts() -> list[str]:
    from pydoc_data.topics import topics
    texts = [topics[name] for name in sorted(topics)]
    root = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(root.glob("*.py")):
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            continue
    return texts


def windows(tokenizer, texts: list[str], seed: int = 0) -> list[list[int]]:
    out = []
    for text in texts:
        ids = tokenizer(text)["input_ids"]
        out += [ids[i:i + WINDOW] for i in range(0, len(ids) - WINDOW + 1, WINDOW)]
    random.Random(seed).shuffle(out)
    return out


@torch.no_grad()
def label_shard(model, rows: list[list[int]]) -> dict[str, np.ndarray]:
    ids = torch.tensor(rows)                                                 # (B, W)
    logits = model(input_ids=ids).logits[:, :-1].float().log_softmax(-1)     # (B, W-1, V)
    top = logits.topk(TOPK, dim=-1)                                          # (B, W-1, K)
    b, w = ids.shape
    return {"prompt_ids": ids[:, 0].numpy().astype(np.uint16),
            "prompt_lens": np.ones(b, dtype=np.int32),
            "answer_ids": ids[:, 1:].reshape(-1).numpy().astype(np.uint16),
            "answer_lens": np.full(b, w - 1, dtype=np.int32),
            "topk_ids": top.indices.reshape(-1, TOPK).numpy().astype(np.uint16),
            "topk_logprobs": top.values.reshape(-1, TOPK).numpy().astype(np.float16)}


@torch.no_grad()
def label_answers(model, tokens_file: Path) -> dict[str, np.ndarray]:
    """A committed selfgen token shard -> the same shard with its top-K rebuilt by teacher
    forcing (a fresh machine need not regenerate the answers)."""
    d = dict(np.load(tokens_file))
    po = np.concatenate([[0], np.cumsum(d["prompt_lens"])])
    ao = np.concatenate([[0], np.cumsum(d["answer_lens"])])
    ids, lps = [], []
    for i in range(len(d["prompt_lens"])):
        prompt, answer = d["prompt_ids"][po[i]:po[i + 1]], d["answer_ids"][ao[i]:ao[i + 1]]
        seq = torch.tensor([np.concatenate([prompt, answer[:-1]]).astype(np.int64)])   # (1, T)
        logits = model(input_ids=seq).logits[0, len(prompt) - 1:].float().log_softmax(-1)
        top = logits.topk(TOPK, dim=-1)                                               # (A, K)
        ids.append(top.indices.numpy().astype(np.uint16))
        lps.append(top.values.numpy().astype(np.float16))
    return {**d, "topk_ids": np.concatenate(ids), "topk_logprobs": np.concatenate(lps)}


def rebuild_answers(src: Path, out: Path, dtype: torch.dtype) -> None:
    from transformers import AutoModelForCausalLM

    from specdec.models.gguf import converted_target
    model = AutoModelForCausalLM.from_pretrained(converted_target(), dtype=dtype).eval()
    for tokens_file in sorted(src.glob("shard_*.tokens.npz")):
        index = int(tokens_file.name.split("_")[1].split(".")[0])
        if not (out / f"shard_{index:04d}.tokens.npz").exists():
            save_shard(out, index, label_answers(model, tokens_file))
            log(f"rebuilt top-{TOPK} for {tokens_file.name}")


def run(shards: int, out: Path, dtype: torch.dtype) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from specdec.models.gguf import converted_target
    folder = converted_target()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=dtype).eval()
    rows = windows(tokenizer, offline_texts())
    log(f"{len(rows)} windows of {WINDOW} tokens available")
    for index in range(min(shards, len(rows) // PER_SHARD)):
        if (out / f"shard_{index:04d}.tokens.npz").exists():
            continue
        t0 = time.perf_counter()
        save_shard(out, index, label_shard(model, rows[index * PER_SHARD:(index + 1) * PER_SHARD]))
        log(f"relabel shard {index}: {PER_SHARD * WINDOW / (time.perf_counter() - t0):.0f} tok/s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m specdec.train.smollm2.relabel", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shards", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--dtype", choices=["bfloat16", "float32"], default="bfloat16")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--answers-from", type=Path, default=None,
                    help="rebuild selfgen shards from committed token files (assets/training/"
                         "smollm2/gen) into --out (use build/smollm2/gen) instead of labelling text")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    if args.answers_from:
        rebuild_answers(args.answers_from, args.out, getattr(torch, args.dtype))
    else:
        run(args.shards, args.out, getattr(torch, args.dtype))
    return 0


if __name__ == "__main__":
    sys.exit(main())
