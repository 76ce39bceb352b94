"""`python -m specdec run ...`: one run in the terminal, marked up, with metrics or JSON."""
from __future__ import annotations

import argparse
import sys
import time

from specdec.engine import generate
from specdec.models import DEFAULT_DRAFT, DEFAULT_TARGET, load_pair
from specdec.policies import POLICIES
from specdec.render import LEGEND_COLOUR, LEGEND_PLAIN, marked_text, metrics_table
from specdec.sampling import InputError
from specdec.settings import DRAFTERS, MODES, Settings


def add_run_parser(sub) -> None:
    p = sub.add_parser("run", help="generate once and show every round's outcome")
    p.add_argument("--prompt", required=True)
    p.add_argument("--target", default=DEFAULT_TARGET, help="embedded name, local dir or hub id")
    p.add_argument("--draft", default=DEFAULT_DRAFT, help="embedded name, local dir or hub id")
    p.add_argument("--k", type=int, default=4)
    p.add_argument("--temperature", type=float, default=0.7, help="0 = greedy")
    p.add_argument("--top-k", type=int, default=0, help="0 = off")
    p.add_argument("--top-p", type=float, default=1.0, help="1 = off")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-new-tokens", type=int, default=64)
    p.add_argument("--drafter", choices=DRAFTERS, default="model")
    p.add_argument("--policy", choices=POLICIES, default="constant")
    p.add_argument("--confidence", type=float, default=0.3, help="threshold of --policy confidence")
    p.add_argument("--mode", choices=MODES, default="speculative")
    p.add_argument("--json", action="store_true", help="print the whole run trace as JSON")
    p.add_argument("--color", choices=["auto", "always", "never"], default="auto")


def cmd_run(args) -> int:
    settings = Settings(k=args.k, temperature=args.temperature, top_k=args.top_k,
                        top_p=args.top_p, seed=args.seed, max_new_tokens=args.max_new_tokens,
                        drafter=args.drafter, policy=args.policy, confidence=args.confidence,
                        mode=args.mode)            # validate before loading any model
    if not args.prompt:
        raise InputError("the prompt is empty: pass --prompt with some text, e.g. 'def parse('")
    needs_draft = args.drafter == "model" and args.mode == "speculative"
    pair = load_pair(args.target, args.draft if needs_draft else None)
    t0 = time.perf_counter()
    run = generate(pair, args.prompt, **settings.as_dict())
    seconds = time.perf_counter() - t0
    if args.json:
        print(run.to_json())
        return 0
    colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    print(marked_text(run, colour))
    print()
    print(LEGEND_COLOUR if colour else LEGEND_PLAIN)
    print(metrics_table(run, seconds))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specdec",
                                     description="Exact speculative decoding, every decision recorded.")
    sub = parser.add_subparsers(dest="command", required=True)
    add_run_parser(sub)
    args = parser.parse_args(argv)
    try:
        return {"run": cmd_run}[args.command](args)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
