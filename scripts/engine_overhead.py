"""What the engine adds to the runtime it drives: its autoregressive decoding on ONNX Runtime
against onnxruntime-genai's own loop on the same build, the same prompt ids and the same number
of new tokens (the runtime's loop is told to make exactly as many as the engine made, so neither
side pays its prefill over more or fewer tokens). A benchmark, not a test.

    PYTHONPATH=. .venv/bin/python scripts/engine_overhead.py [--chats 8] [--tokens 48] [--repeats 5]

A third side splits the difference: the engine's graph (onnx_graph.py) driven by the plainest
loop (the prompt in one pass, argmax, one-token steps). engine / bare loop is what the engine's
own loop adds; bare loop / onnxruntime-genai is what the engine's graph changes, split into its
two edits: the prompt's pass (the LM head on its last row only: cheaper) and the one-token steps
(the padded attention row: dearer).
One thread; every side timed on the CPU clock (clock.py), interleaved prompt by prompt so that
a noisy neighbour hits all alike. Prints tokens/s of each per repeat, then the medians and the
three ratios with their range over the repeats, and the CPU model.
"""
import argparse
import statistics

import torch

from specdec.bench import ort_genai
from specdec.bench.clock import stopwatch
from specdec.engine.decoder import autoregressive
from specdec.engine.prompt import encode_prompt
from specdec.models.kernels import cpu_model
from specdec.models.pair import load_pair
from specdec.prompts import as_input, load_prompts, round_robin
from specdec.settings import Settings

SIDES = ("engine", "engine graph, bare loop", "onnxruntime-genai")


def runtime_loop(pair, ids: list[int], n: int) -> tuple[float, float]:
    """CPU seconds of onnxruntime-genai's loop making exactly n tokens after `ids` (greedy):
    (its prompt's pass, the whole run)."""
    import onnxruntime_genai as og
    model = ort_genai._model(str(pair.passes.target.folder), torch.get_num_threads())
    params = og.GeneratorParams(model)
    params.set_search_options(max_length=len(ids) + n, min_length=len(ids) + n, do_sample=False)
    with stopwatch() as lap:
        generator = og.Generator(model, params)
        with stopwatch() as prompt:
            generator.append_tokens(ids)
        while not generator.is_done():
            generator.generate_next_token()
    assert len(generator.get_sequence(0)) == len(ids) + n
    return prompt.cpu, lap.cpu


def bare_loop(pair, ids: list[int], n: int) -> tuple[float, float]:
    """CPU seconds of the engine's graph driven by the plainest loop (the prompt in one pass,
    then argmax and one-token steps), what the exact graph costs without the engine:
    (the prompt's pass, the whole run)."""
    target = pair.passes.target
    with stopwatch() as lap:
        cache = target.new_cache()
        with stopwatch() as prompt:
            logits = target.forward(ids, cache, keep=1)[0]
        for _ in range(n - 1):
            logits = target.forward([int(logits[0].numpy().argmax())], cache)[0]
    return prompt.cpu, lap.cpu


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
    rates, parts = {side: [] for side in SIDES}, {"prompt": [], "steps": []}
    for rep in range(args.repeats):
        tokens, spent, split = 0, dict.fromkeys(SIDES, 0.0), [0.0, 0.0, 0.0, 0.0]
        for prompt in prompts:
            n, cpu = engine(pair, prompt, settings)
            ids = encode_prompt(pair, prompt)[1]
            (bare_prompt, bare), (genai_prompt, genai) = bare_loop(pair, ids, n), runtime_loop(pair, ids, n)
            for side, took in zip(SIDES, (cpu, bare, genai)):
                spent[side] += took
            parted = (bare_prompt, bare - bare_prompt, genai_prompt, genai - genai_prompt)
            split = [a + b for a, b in zip(split, parted)]
            tokens += n
        for side in SIDES:
            rates[side].append(tokens / spent[side])
        parts["prompt"].append(split[2] / split[0])
        parts["steps"].append(split[3] / split[1])
        print(f"repeat {rep + 1}: {tokens} tokens; " +
              ", ".join(f"{side} {rates[side][-1]:.1f} tok/s" for side in SIDES), flush=True)
    print(f"\n{cpu_model()}, 1 thread, {len(prompts)} chats x up to {args.tokens} tokens, CPU time, "
          f"{args.repeats} repeats (median, min-max of the per-repeat ratios):")
    for side in SIDES:
        print(f"  {side}: {statistics.median(rates[side]):.1f} tok/s")
    for a, b, what in (("engine", "onnxruntime-genai", "the bar (>= 0.95)"),
                       ("engine", "engine graph, bare loop", "the engine's own loop"),
                       ("engine graph, bare loop", "onnxruntime-genai", "the graph's two edits")):
        r = [x / y for x, y in zip(rates[a], rates[b])]
        print(f"  {a} / {b}: {statistics.median(r):.3f} ({min(r):.3f}-{max(r):.3f})  <- {what}")
    for part, what in (("prompt", "the prompts' passes (LM head on the last row)"),
                       ("steps", "the one-token steps (the padded attention row)")):
        r = parts[part]
        print(f"  speed of {what}, bare loop / onnxruntime-genai: {statistics.median(r):.3f} "
              f"({min(r):.3f}-{max(r):.3f})")


if __name__ == "__main__":
    main()
