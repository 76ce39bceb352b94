"""Sampling stays exact on the real pair: chi-square of the first two generated tokens.

    .venv/bin/python scripts/real_pair_exactness.py --draft smollm2/draft --runs 600
    .venv/bin/python scripts/real_pair_exactness.py --draft stdlib/draft-4l --drafter cross-vocab

SmolLM2-135M-Instruct with one of its drafts, a chat prompt, T = 1 and top-k = 3 (so the
joint law of two tokens has at most 9 cells and a few hundred runs have power): each run
is a fresh seeded speculative generation of 3 tokens; the empirical law of (t1, t2) is
compared with the exact law computed by full forwards of the target alone. The prefill
hands a feature draft the prompt's features, so round 1 drafts and both tokens come from
verified draft rounds. Prints the
p-value (a wrong rule gives a p-value near 0: see tests/test_lossless.py).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]

import specdec  # noqa: E402
from specdec.chat import user_turn  # noqa: E402
from specdec.engine.prompt import encode_prompt  # noqa: E402
from specdec.rules.sampling import probs_from_logits  # noqa: E402
from ui.lessons.exact_fit import chi2_pvalue  # noqa: E402


@torch.no_grad()
def exact_law(pair, ids: list[int], sampling) -> dict:
    def probs(seq):
        return probs_from_logits(pair.target(torch.tensor([seq])).logits[0, -1:, :pair.vocab_size],
                                 sampling)[0]
    p1, law = probs(ids), {}
    for t1 in torch.nonzero(p1).flatten().tolist():
        p2 = probs(ids + [t1])
        for t2 in torch.nonzero(p2).flatten().tolist():
            law[(t1, t2)] = float(p1[t1] * p2[t2])
    return law


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--draft", default="smollm2/draft")
    ap.add_argument("--runs", type=int, default=600)
    ap.add_argument("--drafter", default="model", help="cross-vocab for a draft of another tokenizer")
    ap.add_argument("--prompt", default="Write one sentence about the sea.")
    args = ap.parse_args()
    torch.set_num_threads(1)
    pair = specdec.load_pair("smollm2/target", args.draft)
    settings = specdec.Settings(k=4, temperature=1.0, top_k=3, max_new_tokens=3, drafter=args.drafter)
    chat = user_turn(args.prompt)
    law = exact_law(pair, encode_prompt(pair, chat)[1], settings.sampling)
    t0 = time.perf_counter()
    samples = [tuple(specdec.generate(pair, chat, settings, seed=s, lean=True).token_ids[:2])
               for s in range(args.runs)]
    print(json.dumps({"draft": args.draft, "drafter": args.drafter, "runs": args.runs, "cells": len(law),
                      "seconds": round(time.perf_counter() - t0), "top_k": 3, "temperature": 1.0,
                      "p_value": chi2_pvalue(samples, law)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
