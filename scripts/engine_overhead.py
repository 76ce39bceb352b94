"""What the engine adds to the runtime it drives: its autoregressive decoding on ONNX Runtime
against onnxruntime-genai's own loop on the same build, the same prompt ids and the same number
of new tokens (the runtime's loop is told to make exactly as many as the engine made, so neither
side pays its prefill over more or fewer tokens). A benchmark, not a test.

    PYTHONPATH=. .venv/bin/python scripts/engine_overhead.py [--chats 8] [--tokens 48] [--repeats 5]

One thread; both sides timed on the CPU clock (clock.py), interleaved prompt by prompt so that
a noisy neighbour hits both alike. Prints per chat and pooled: tokens/s of each, the ratio
engine / runtime (the bar: >= 0.95), its spread over the repeats, and the CPU model.
"""
import argparse
import statistics

import torch

from specdec.bench import ort_genai
from specdec.bench.clock import stopwatch
from specdec.engine.decoder import autoregressive
from specdec.engine.prompt import encode_prompt
from specdec.models.kernels import cpu_model
from specdec.models.load import load_pair
from specdec.prompts import as_input, load_prompts, round_robin
from specdec.settings import Settings


def runtime_loop(pair, ids: list[int], n: int) -> float:
    """CPU seconds of onnxruntime-genai's loop making exactly n tokens after `ids` (greedy)."""
    import onnxruntime_genai as og
    model = ort_genai._model(str(pair.passes.target.folder), torch.get_num_threads())
    params = og.GeneratorParams(model)
    params.set_search_options(max_length=len(ids) + n, min_length=len(ids) + n, do_sample=False)
    with stopwatch() as lap:
        generator = og.Generator(model, params)
        generator.append_tokens(ids)
        while not generator.is_done():
            generator.generate_next_token()
    assert len(generator.get_sequence(0)) == len(ids) + n
    return lap.cpu


def engine(pair, prompt, settings: Settings) -> tuple[int, float]:
    with stopwatch() as lap:
        run = autoregressive(pair, prompt, settings)
    return len(run.token_ids), lap.cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chats", type=int, default=8)
    ap.add_argument("--tokens", type=int, default=48)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    torch.set_num_threads(1)
    pair = load_pair(backend="onnx")
    settings = Settings(max_new_tokens=args.tokens, temperature=0.0, lean=True)
    prompts = [as_input(p, True) for p in round_robin(load_prompts("chat"), args.chats)]
    engine(pair, prompts[0], settings), runtime_loop(pair, encode_prompt(pair, prompts[0])[1], 4)   # warm
    ratios, totals = [], {"engine": [], "runtime": []}
    for rep in range(args.repeats):
        tokens, spent = 0, {"engine": 0.0, "runtime": 0.0}
        for prompt in prompts:
            n, cpu = engine(pair, prompt, settings)
            spent["engine"] += cpu
            spent["runtime"] += runtime_loop(pair, encode_prompt(pair, prompt)[1], n)
            tokens += n
        for side in spent:
            totals[side].append(tokens / spent[side])
        ratios.append(spent["runtime"] / spent["engine"])
        print(f"repeat {rep + 1}: {tokens} tokens, engine {totals['engine'][-1]:.1f} tok/s, "
              f"onnxruntime-genai {totals['runtime'][-1]:.1f} tok/s, ratio {ratios[-1]:.3f}", flush=True)
    print(f"\n{cpu_model()}, 1 thread, {len(prompts)} chats x up to {args.tokens} tokens, CPU time, "
          f"{args.repeats} repeats: engine {statistics.median(totals['engine']):.1f} tok/s, "
          f"onnxruntime-genai {statistics.median(totals['runtime']):.1f} tok/s; engine / runtime "
          f"median {statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")


if __name__ == "__main__":
    main()
