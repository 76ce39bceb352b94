"""The T = 0 speedup of 4 chats x 48 tokens on the default pair, with the machine as it is and
with two CPU-bound processes competing, on both clocks (issue 28; tests/test_busy_clock.py is
the same check on the tiny pair).

    .venv/bin/python scripts/busy_speedup.py [--cycles 2] [--repeats 2]

Idle and busy phases alternate; each repeat times a speculative and an autoregressive pass
over the 4 chats side by side. Prints the median speedup per phase and clock.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]

import torch  # noqa: E402

import specdec  # noqa: E402
from specdec.bench.measure import speedups, timed  # noqa: E402
from specdec.chat import user_turn  # noqa: E402
from specdec.models.kernels import cpu_model  # noqa: E402
from specdec.prompts import load_prompts, round_robin  # noqa: E402

SPEC = specdec.Settings(k=4, temperature=0.0, max_new_tokens=48)
BASE = specdec.Settings(mode="autoregressive", temperature=0.0, max_new_tokens=48)


def phase(pair, chats, repeats: int, hogs: int) -> tuple[list, list]:
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(hogs)]
    try:
        spec, base = [], []
        for _ in range(repeats):
            spec.append(timed(pair, chats, SPEC))
            base.append(timed(pair, chats, BASE))
        return spec, base
    finally:
        for p in procs:
            p.kill()
            p.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cycles", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(1)
    pair = specdec.load_pair()
    chats = [user_turn(p.prompt) for p in round_robin(load_prompts("chat"), 4)]
    timed(pair, chats[:1], SPEC)                                   # warm up
    runs = {"idle": ([], []), "busy": ([], [])}
    for _ in range(args.cycles):
        for name, hogs in (("idle", 0), ("busy", 2)):
            spec, base = phase(pair, chats, args.repeats, hogs)
            runs[name][0].extend(spec)
            runs[name][1].extend(base)
    print(f"{pair.target_name} <- {pair.draft_name}, 4 chats x 48 tokens, T = 0, k = 4, {cpu_model()}, 1 thread")
    for clock in ("cpu", "wall"):
        idle, busy = (statistics.median(speedups(*runs[n], clock)) for n in ("idle", "busy"))
        print(f"{clock:>4}: idle {idle:.3f}x  busy (2 competing processes) {busy:.3f}x  "
              f"busy / idle {busy / idle:.3f}")


if __name__ == "__main__":
    main()
