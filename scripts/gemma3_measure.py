"""The figures of Gemma 3 270M's model card (assets/models/gemma3/README.md), measured on this CPU.

    .venv/bin/python scripts/gemma3_measure.py [--prompts 16] [--tokens 24] [--repeats 15]

Prints, one thread: the CPU; the one-token step and a 5-token pass (after 64 cached positions,
fastest of --repeats, the models in turn) in float32 (torch's plain and oneDNN's packed layout) and in intdot (the
layers rounded to Q4_1 blocks and the head to Q8_0, integer sums); which precision `auto` keeps
here; how far intdot's text is from float32's (the bundled raw-text prompts: greedy continuations
in float32, intdot's argmax teacher-forced along them, and whole greedy texts equal); and the
n-gram and early-exit (after layers 4, 9, 14) drafters at k = 3, T = 0 on the same prompts in the auto precision
(acceptance, tokens a round, tokens/s against the target alone, and that the text is the target's).
A measurement, not a test: minutes on 2 cores.
"""
import argparse
import json
import sys
import time
from pathlib import Path

import torch

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]
import specdec  # noqa: E402
from specdec.models import kernels  # noqa: E402
from specdec.models.load import load_model, load_tokenizer  # noqa: E402
from specdec.models.runtime import crop_cache, forward, new_cache  # noqa: E402

NAME = "gemma3/target"
EXITS = (4, 9, 14)                # of 18 layers
PROMPTS = Path(__file__).resolve().parents[1] / "assets" / "prompts.json"


@torch.no_grad()
def steps(models: dict, repeats: int) -> dict[str, tuple[float, float]]:
    """Fastest of `repeats` one-token steps and 5-token passes after 64 cached positions, the models
    taking turns (another job on the machine slows every model alike instead of one of them)."""
    caches = {name: new_cache(m) for name, m in models.items()}
    for name, m in models.items():
        forward(m, [0] * 64, caches[name], m.config.vocab_size, keep=1)
    best = {name: [float("inf"), float("inf")] for name in models}
    for _ in range(repeats):
        for name, m in models.items():
            for i, rows in enumerate((1, 5)):
                t0 = time.perf_counter()
                forward(m, [0] * rows, caches[name], m.config.vocab_size, keep=rows)
                best[name][i] = min(best[name][i], (time.perf_counter() - t0) * 1e3)
                crop_cache(caches[name], 64)
    return {name: (one, five) for name, (one, five) in best.items()}


def prompts(n: int) -> list[str]:
    """The bundled raw-text prompts, one of each kind in turn."""
    by_kind: dict[str, list[str]] = {}
    for row in json.loads(PROMPTS.read_text())["prompts"]:
        by_kind.setdefault(row["kind"], []).append(row["prompt"])
    return [text for group in zip(*by_kind.values()) for text in group][:n]


@torch.no_grad()
def fidelity(reference, other, tok, texts: list[str], tokens: int) -> tuple[float, int]:
    """intdot's argmax along float32's greedy continuations, and how many whole texts agree."""
    agree = total = same = 0
    for text in texts:
        ids = tok(text)["input_ids"]
        ref = specdec.autoregressive(_pair(reference, tok), text, temperature=0, max_new_tokens=tokens).token_ids
        mine = specdec.autoregressive(_pair(other, tok), text, temperature=0, max_new_tokens=tokens).token_ids
        logits = forward(other, ids + list(ref[:-1]), new_cache(other), len(tok))[len(ids) - 1:]   # (T, V)
        agree += int((logits.argmax(-1) == torch.tensor(ref)).sum())
        total, same = total + len(ref), same + (tuple(ref) == tuple(mine))
    return agree / total, same


def _pair(model, tok):
    return specdec.make_pair(model, None, tok, NAME, None)


def drafters(texts: list[str], tokens: int) -> None:
    pair = specdec.load_pair(NAME, None)
    print(f"auto keeps: {kernels.describe(pair.target)}")
    drafts = {"n-gram": {"drafter": "ngram"}} | {f"early exit after layer {n}": {"drafter": "early-exit",
                                                                                "exit_layer": n} for n in EXITS}
    runs = {"target alone": []} | {label: [] for label in drafts}
    for text in texts:
        base = specdec.autoregressive(pair, text, temperature=0, max_new_tokens=tokens)
        runs["target alone"].append(base)
        for label, extra in drafts.items():
            run = specdec.generate(pair, text, k=3, temperature=0, max_new_tokens=tokens, **extra)
            assert run.token_ids == base.token_ids, (label, text)
            runs[label].append(run)
    alone = _rate(runs["target alone"])
    for label, done in runs.items():
        if label == "target alone":
            continue
        drafted = sum(r.drafted for run in done for r in run.rounds)
        kept = sum(r.n_accepted for run in done for r in run.rounds)
        rounds = sum(len(run.rounds) for run in done)
        emitted = sum(len(run.token_ids) for run in done)
        print(f"{label}: acceptance {kept / max(drafted, 1):.1%}, {emitted / rounds:.2f} tokens a round, "
              f"{_rate(done):.1f} tokens/s against {alone:.1f} alone ({_rate(done) / alone:.2f}x); text identical")


def _rate(runs) -> float:
    return sum(len(r.token_ids) for r in runs) / (sum(r.metrics.wall_ms for r in runs) / 1e3)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--prompts", type=int, default=16)
    ap.add_argument("--tokens", type=int, default=24)
    ap.add_argument("--repeats", type=int, default=21)
    args = ap.parse_args()
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    tok = load_tokenizer(NAME)
    print(f"CPU: {kernels.cpu_model()}, torch {torch.__version__}, 1 thread")
    texts = prompts(args.prompts)
    f32 = load_model(NAME, precision="float32")
    print(f"auto / float32 here: {kernels.describe(f32)}")
    plain, packed = load_model(NAME, precision="float32"), f32
    kernels.set_layout(plain, {rows: "plain" for rows in kernels.ROWS})
    kernels.set_layout(packed, {rows: "packed" for rows in kernels.ROWS})
    q = load_model(NAME, precision="intdot")
    print(f"intdot: {kernels.describe(q)}")
    timed = steps({"float32, plain layout": plain, "float32, packed layout": packed, "intdot": q}, args.repeats)
    for name, (one, five) in timed.items():
        print(f"{name}: one-token step {one:.1f} ms, 5-token pass {five:.1f} ms (v(5) = {five / one:.2f})")
    del plain
    kernels.set_layout(f32, {rows: "plain" for rows in kernels.ROWS})
    share, same = fidelity(f32, q, tok, texts, args.tokens)
    print(f"intdot against float32 on {len(texts)} raw prompts x {args.tokens} tokens: top-1 {share:.1%} "
          f"teacher-forced, {same} of {len(texts)} greedy texts identical")
    del f32, q
    drafters(texts[: max(4, len(texts) // 2)], args.tokens)
    print(f"({time.perf_counter() - t0:.0f} s in all)")


if __name__ == "__main__":
    main()
