"""Training data for a feature draft (EAGLE): the target's last hidden states and top-K.

    python -m specdec.train.smollm2.features --threads 2          # resumable, logs progress

For every conversation of selfgen's shards (the target's own answers, first) and of
relabel's shards (offline text), one teacher-forced float32 pass of the target over
the whole sequence s_0..s_{T-1} stores, per position j:
  feats[j]   f_j, the target's final hidden state (after its last norm), float16
  topk[j]    the K most likely next ids and their log-probabilities (p at position j)
A feature draft learns (f_j, s_{j+1}) -> f_{j+1} and p_{j+1}. Float32, because the engine
verifies with the float32 target and the draft reads these features at inference.
Shards go to build/smollm2/feat/<source>_XXXX.npz; an existing shard is skipped.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

from specdec.files import atomic
from specdec.train.common import log
from specdec.train.smollm2.selfgen import TOPK

SOURCES = {"gen": Path("build/smollm2/gen"), "relabel": Path("build/smollm2/relabel")}
OUT = Path("build/smollm2/feat")


def sequences(tokens_file: Path) -> tuple[list[np.ndarray], list[int]]:
    """Each conversation of a selfgen/relabel token shard as one id sequence, and its prompt length."""
    return conversations(np.load(tokens_file))


def conversations(d) -> tuple[list[np.ndarray], list[int]]:
    """`sequences` of the shard's arrays (prompt_ids/lens, answer_ids/lens), read or just made."""
    po = np.concatenate([[0], np.cumsum(d["prompt_lens"])])
    ao = np.concatenate([[0], np.cumsum(d["answer_lens"])])
    seqs = [np.concatenate([d["prompt_ids"][po[i]:po[i + 1]], d["answer_ids"][ao[i]:ao[i + 1]]])
            for i in range(len(d["prompt_lens"]))]
    return [s.astype(np.int64) for s in seqs], [int(n) for n in d["prompt_lens"]]


@torch.no_grad()
def label(target, seqs: list[np.ndarray]) -> dict[str, np.ndarray]:
    """One pass per sequence (equal lengths are batched): features and top-K at every position."""
    feats, ids, lps = [], [], []
    for start in range(0, len(seqs), 8):
        chunk = seqs[start:start + 8]
        same = len({len(s) for s in chunk}) == 1
        groups = [chunk] if same else [[s] for s in chunk]
        for group in groups:
            x = torch.from_numpy(np.stack(group))                                   # (B, T)
            hidden = target.model(input_ids=x).last_hidden_state                    # (B, T, H)
            top = target.lm_head(hidden).float().log_softmax(-1).topk(TOPK, dim=-1)  # (B, T, K)
            feats += list(hidden.half().numpy())
            ids += list(top.indices.numpy().astype(np.uint16))
            lps += list(top.values.numpy().astype(np.float16))
    return {"feats": np.concatenate(feats), "topk_ids": np.concatenate(ids),
            "topk_logprobs": np.concatenate(lps)}


def run(out: Path, limit: int) -> None:
    from specdec.train.smollm2.draft_2l import load_target
    target = load_target()
    out.mkdir(parents=True, exist_ok=True)
    for source, folder in SOURCES.items():
        for tokens_file in sorted(folder.glob("shard_*.tokens.npz"))[:limit]:
            dest = out / f"{source}_{tokens_file.name.split('.')[0].split('_')[1]}.npz"
            if dest.exists():
                continue
            t0 = time.perf_counter()
            seqs, prompt_lens = sequences(tokens_file)
            data = label(target, seqs)
            with atomic.replacing(dest) as tmp, open(tmp, "wb") as fh:
                np.savez(fh, ids=np.concatenate(seqs).astype(np.uint16),
                         lens=np.array([len(s) for s in seqs], dtype=np.int32),
                         prompt_lens=np.array(prompt_lens, dtype=np.int32), **data)
            n = sum(map(len, seqs))
            log(f"{dest.name}: {len(seqs)} sequences, {n} positions, "
                f"{n / (time.perf_counter() - t0):.0f} tok/s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m specdec.train.smollm2.features", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int, default=10_000, help="at most this many shards per source")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    run(args.out, args.limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
