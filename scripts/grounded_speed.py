"""Drafting without a model where the answer copies its input: speculative vs autoregressive.

    PYTHONPATH=. .venv/bin/python scripts/grounded_speed.py [--tokens 96] [--repeats 2] [--prompts grounded]
The input-grounded chats (assets/prompts_grounded.json: edit code, fix JSON, quote; `--prompts
chat --limit 8` for the held-out chats instead) on the default pair, greedy, 1 thread: each
configuration runs prompt by prompt interleaved with the autoregressive baseline (so a busy
moment hits both), on the CPU clock. Prints tokens/s, the
ratio to autoregressive decoding, the mean acceptance length and whether every text equals the
autoregressive one. A benchmark, not a test.
"""
import argparse
import statistics
import time

import torch

import specdec
from specdec.bench import machine
from specdec.chat import user_turn
from specdec.models.kernels import cpu_model
from specdec.prompts import load_prompts, round_robin

CONFIGS = [("prompt lookup (ngram)", dict(drafter="ngram", k=4)), ("prompt lookup (ngram)", dict(drafter="ngram", k=8)),
           ("prompt lookup (ngram), priced", dict(drafter="ngram", k=16, policy="priced")),
           ("suffix match", dict(drafter="suffix", k=4)), ("suffix match", dict(drafter="suffix", k=8)),
           ("suffix match", dict(drafter="suffix", k=16)),
           ("suffix match, priced", dict(drafter="suffix", k=16, policy="priced")),
           ("draft model", dict(drafter="model", k=2)), ("draft model", dict(drafter="model", k=4)),
           ("draft model, priced", dict(drafter="model", k=4, policy="priced"))]


def timed(fn, *args, **kwargs):
    t0 = time.process_time()
    run = fn(*args, **kwargs)
    return time.process_time() - t0, run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=96)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--prompts", default="grounded", help="a bundled chat set: grounded or chat")
    ap.add_argument("--limit", type=int, default=8)
    ap.add_argument("--temperature", type=float, default=0.0, help="above 0 the texts may differ (same law)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    pair = specdec.load_pair()
    chats = [user_turn(p.prompt) for p in round_robin(load_prompts(args.prompts), args.limit)]
    base = {"s": 0.0, "n": 0}
    rows = {i: {"s": 0.0, "n": 0, "len": [], "k": [], "same": True} for i in range(len(CONFIGS))}
    for _ in range(args.repeats):
        for chat in chats:
            dt, alone = timed(specdec.generate, pair, chat, temperature=args.temperature,
                              max_new_tokens=args.tokens, mode="autoregressive", lean=True)
            base["s"] += dt
            base["n"] += len(alone.token_ids)
            for i, (_, cfg) in enumerate(CONFIGS):
                on = machine.priced(pair, cfg["drafter"]) if cfg.get("policy") == "priced" else pair
                dt, run = timed(specdec.generate, on, chat, temperature=args.temperature,
                                max_new_tokens=args.tokens, lean=True, **cfg)
                row = rows[i]
                row["s"] += dt
                row["n"] += len(run.token_ids)
                row["len"].append(run.metrics.mean_acceptance_length)
                row["k"] += [r.draft_limit for r in run.rounds]
                row["same"] &= run.token_ids == alone.token_ids or args.temperature > 0
    ar = base["n"] / base["s"]
    print(f"{cpu_model()}, 1 thread, {len(chats)} {args.prompts} chats x {args.tokens} tokens, "
          f"{args.repeats} repeats, T = {args.temperature:g}")
    print(f"autoregressive: {ar:.1f} tokens/s (CPU clock)")
    for i, (name, cfg) in enumerate(CONFIGS):
        row = rows[i]
        speed = row["n"] / row["s"]
        print(f"{name}, k = {cfg['k']}: {speed:.1f} tokens/s = {speed / ar:.2f}x, mean acceptance length "
              f"{statistics.mean(row['len']):.2f}, mean k {statistics.mean(row['k'] or [0]):.2f}, "
              f"texts identical: {row['same'] if args.temperature == 0 else 'n/a'}")


if __name__ == "__main__":
    main()
