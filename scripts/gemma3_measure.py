"""The figures of Gemma 3 270M's model card (assets/models/gemma3/README.md), measured on this CPU.

    .venv/bin/python scripts/gemma3_measure.py [--prompts 16] [--tokens 24] [--repeats 15]

Prints, one thread: the CPU; the one-token step and a 5-token pass (after 64 cached positions,
median of --repeats) in float32 (torch's plain and oneDNN's packed layout) and in intdot (the
layers rounded to Q4_1 blocks and the head to Q8_0, integer sums); which precision `auto` keeps
here; how far intdot's text is from float32's (the bundled raw-text prompts: greedy continuations
in float32, intdot's argmax teacher-forced along them, and whole greedy texts equal); and the
n-gram and early-exit drafters at k = 3, T = 0 on the same prompts in the auto precision
(acceptance, tokens a round, tokens/s against the target alone, and that the text is the target's).
A measurement, not a test: minutes on 2 cores.
"""
import argparse
import json
import time
from pathlib import Path

import torch

import specdec
from specdec.models import kernels
from specdec.models.load import load_model, load_tokenizer
from specdec.models.runtime import forward, new_cache

NAME = "gemma3/target"
PROMPTS = Path(__file__).resolve().parents[1] / "assets" / "prompts.json"


def steps(model, repeats: int) -> str:
    return " / ".join(f"{kernels.pass_ms(model, rows, repeats):.1f}" for rows in (1, 5))


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
    runs = {"target alone": [], "n-gram": [], "early exit after layer 4": []}
    for text in texts:
        base = specdec.autoregressive(pair, text, temperature=0, max_new_tokens=tokens)
        runs["target alone"].append(base)
        for label, extra in (("n-gram", {"drafter": "ngram"}), ("early exit after layer 4",
                                                                {"drafter": "early-exit", "exit_layer": 4})):
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
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    tok = load_tokenizer(NAME)
    print(f"CPU: {kernels.cpu_model()}, torch {torch.__version__}, 1 thread")
    texts = prompts(args.prompts)
    f32 = load_model(NAME, precision="float32")
    print(f"float32 ({kernels.describe(f32)}): step / 5-token pass {steps(f32, args.repeats)} ms")
    for layout in kernels.LAYOUTS:
        kernels.set_layout(f32, {rows: layout for rows in kernels.ROWS})
        print(f"  float32/{layout}: {steps(f32, args.repeats)} ms")
    kernels.set_precision(f32, "float32")
    kernels.set_layout(f32, {rows: "plain" for rows in kernels.ROWS})
    q = load_model(NAME, precision="intdot")
    print(f"intdot ({kernels.describe(q)}): step / 5-token pass {steps(q, args.repeats)} ms")
    share, same = fidelity(f32, q, tok, texts, args.tokens)
    print(f"intdot against float32 on {len(texts)} raw prompts x {args.tokens} tokens: top-1 {share:.1%} "
          f"teacher-forced, {same} of {len(texts)} greedy texts identical")
    del f32, q
    drafters(texts[: max(4, len(texts) // 2)], args.tokens)
    print(f"({time.perf_counter() - t0:.0f} s in all)")


if __name__ == "__main__":
    main()
