"""The default pair's pass prices on a GPU, for "When it is fast", section 5: v(M) — a pass of M
tokens in one-token steps, M = 1…9 — and each embedded draft's c, measured where a GPU is, to
set beside the roofline's prediction for a datacenter GPU (the page shows the file, labelled
with the device, when it is shipped).

    .venv/bin/python scripts/gpu_pass_cost.py               # -> assets/bench/gpu-pass-cost.json
    .venv/bin/python scripts/gpu_pass_cost.py --device cpu --out /tmp/cpu.json   # the same on a CPU

The engine's own passes (the torch backend) in bfloat16 on the device, after 64 cached
positions; the device is synchronised around each timed pass; the median of 30 passes.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from specdec.bench.pass_prices import PassPrices  # noqa: E402
from specdec.files import atomic  # noqa: E402
from specdec.models.backend import TorchBackend  # noqa: E402
from specdec.models.load import load_model  # noqa: E402
from specdec.models.pair import load_pair  # noqa: E402
from specdec.records import codec  # noqa: E402
from specdec.records.provenance import here  # noqa: E402

OUT = ROOT / "assets" / "bench" / "gpu-pass-cost.json"
WIDTHS = range(1, 10)
TARGET, DRAFTS = "smollm2/target", ("smollm2/draft", "smollm2/draft-2l")


def pass_ms(backend, vocab: int, tokens: int, device: torch.device, reps: int = 30, prefix: int = 64) -> float:
    """Median ms of a pass of `tokens` tokens after `prefix` cached positions."""
    cache = backend.new_cache()
    backend.forward([1 + i % (vocab - 1) for i in range(prefix)], cache, keep=1)
    times = []
    for i in range(reps + 3):                     # the first three warm the kernels up
        ids = [1 + (i + j) % (vocab - 1) for j in range(tokens)]
        _sync(device)
        t0 = time.perf_counter()
        backend.forward(ids, cache)
        _sync(device)
        times.append((time.perf_counter() - t0) * 1e3)
        cache.crop(-tokens)
    return statistics.median(times[3:])


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    from specdec.models.kernels import cpu_model
    return cpu_model()


def measure(device: torch.device, dtype: torch.dtype, target_name: str = TARGET, drafts=DRAFTS,
            reps: int = 30) -> PassPrices:
    started = time.perf_counter()
    pair = load_pair(target_name, None, device=device, backend="torch")
    target = TorchBackend(pair.target.to(dtype), pair.vocab_size)
    ms = {m: pass_ms(target, pair.vocab_size, m, device, reps) for m in WIDTHS}
    step = ms[1]
    c = {}
    for name in drafts:
        draft = TorchBackend(load_model(name, device).to(dtype), pair.vocab_size)
        c[name.split("/")[-1]] = round(pass_ms(draft, pair.vocab_size, 1, device, reps) / step, 4)
    return PassPrices(target_name, device_name(device), str(dtype).removeprefix("torch."), round(step, 3),
                      tuple(WIDTHS), tuple(round(ms[m] / step, 3) for m in WIDTHS), c, here(pair, None, started))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda", help="cuda (default) or cpu")
    ap.add_argument("--dtype", default="bfloat16", choices=("bfloat16", "float32"))
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--target", default=TARGET, help="the target's name (default: the default pair's)")
    ap.add_argument("--reps", type=int, default=30, help="timed passes per width (the median is kept)")
    ap.add_argument("--drafts", default=",".join(DRAFTS), help="comma-separated draft names")
    args = ap.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        print("gpu_pass_cost: no CUDA device here (use --device cpu to try it on this CPU)", file=sys.stderr)
        return 2
    result = measure(torch.device(args.device), getattr(torch, args.dtype), args.target,
                     [d for d in args.drafts.split(",") if d], max(1, args.reps))
    atomic.write_text(args.out, codec.to_json(result, indent=1) + "\n")
    print(codec.to_json(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
