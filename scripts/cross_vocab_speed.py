"""Acceptance and speed of SmolLM2-135M-Instruct with drafts of ANOTHER vocabulary (the stdlib
family, 4,096 tokens, through the cross-vocab drafter) against its same-vocabulary default draft
(smollm2/draft through the model drafter), on held-out chat prompts (issue 52).

    .venv/bin/python scripts/cross_vocab_speed.py [--prompts 8] [--tokens 48] [--repeats 2] [--kind code]

Every run of a repeat is interleaved with the others (measure.interleaved), so a slow spell of the
machine hits all alike; speedups are per repeat against the target alone, on the wall clock and on
CPU time (the second holds when other jobs share the cores). Prints one JSON line per setting,
with the CPU named.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]

import torch  # noqa: E402

import specdec  # noqa: E402
from specdec.bench.measure import interleaved, speedups  # noqa: E402
from specdec.chat import user_turn  # noqa: E402
from specdec.models.kernels import cpu_model  # noqa: E402
from specdec.models.load import load_model, load_tokenizer  # noqa: E402
from specdec.models.pair import make_pair  # noqa: E402
from specdec.prompts import load_prompts, round_robin  # noqa: E402
from specdec.records.provenance import Clock  # noqa: E402

DRAFTS = {"smollm2/draft": "model", "stdlib/draft-4l": "cross-vocab", "stdlib/draft-2l-distilled": "cross-vocab"}


def pairs(target) -> dict:
    """The target shared by every pair; each draft with its own tokenizer."""
    return {name: make_pair(target.target, load_model(name), target.tokenizer, "smollm2/target", name,
                            load_tokenizer(name)) for name in DRAFTS}


def progress(done: int, total: int, what: str) -> None:
    print(f"{done}/{total} {what}", file=sys.stderr)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prompts", type=int, default=8)
    ap.add_argument("--tokens", type=int, default=48)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--k", default="2,4")
    ap.add_argument("--temperature", default="0,1")
    ap.add_argument("--kind", default=None, help="only the chat prompts of this kind (e.g. code)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    target = specdec.load_pair("smollm2/target", None)
    drafts = pairs(target)
    chosen = [p for p in load_prompts("chat") if args.kind in (None, p.kind)]
    chats = [user_turn(p.prompt) for p in round_robin(chosen, args.prompts)]
    for t in map(float, args.temperature.split(",")):
        for k in map(int, args.k.split(",")):
            base = specdec.Settings(mode="autoregressive", temperature=t, max_new_tokens=args.tokens)
            runs = [("target alone", target, base)] + [
                (name, pair, specdec.Settings(k=k, temperature=t, max_new_tokens=args.tokens, drafter=DRAFTS[name]))
                for name, pair in drafts.items()]
            out, load = interleaved(runs, chats, args.repeats, progress)
            for name, _pair, settings in runs[1:]:
                m = out[name][0].metrics
                row = {"cpu": cpu_model(), "threads": 1, "kind": args.kind or "all", "load_per_core": round(load, 2),
                       "T": t, "k": k, "draft": name, "drafter": settings.drafter, "prompts": len(chats),
                       "tokens": args.tokens,
                       "acceptance_rate": round(m.acceptance_rate, 3),
                       "mean_acceptance_length": round(m.mean_acceptance_length, 2)}
                for clock in (Clock.WALL, Clock.CPU):
                    ups = speedups(out[name], out["target alone"], clock)
                    row[f"speedup_{clock.value}"] = round(statistics.median(ups), 3)
                    row[f"speedup_{clock.value}_range"] = [round(min(ups), 3), round(max(ups), 3)]
                row["draft_ms_per_round"] = round(statistics.median(r.draft_ms for r in out[name][0].rounds), 2)
                print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
