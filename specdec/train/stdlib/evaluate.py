"""Measure the shipped family for its model card (held-out files only).

Held-out loss; greedy agreement of each draft with the target along the target's
greedy continuations; acceptance at T = 0 and T = 1 (k = 4) through the engine;
per-token cost ratio c with the engine's own forward path; sample continuations.
"""
from __future__ import annotations

import numpy as np
import torch

import specdec
from specdec.bench.measure import step_ms
from specdec.models.load import load_model, load_tokenizer
from specdec.models.pair import make_pair
from specdec.models.runtime import forward, new_cache
from specdec.train.stdlib.loop import held_out_loss

SAMPLE_PROMPTS = ("def __init__(self,", "for i in range(", "import os\nimport ", '"""Return the ')
N_PROMPTS = 64        # held-out prompts for agreement and acceptance
PROMPT_LEN = 48       # tokens per prompt
CONT_LEN = 48         # tokens of greedy continuation / generation per prompt


def held_out_prompts(held: np.ndarray, n: int, length: int = PROMPT_LEN, seed: int = 7) -> list[list[int]]:
    """n prompts of `length` tokens from the held-out stream, starting after an EOT-free window."""
    rng = np.random.default_rng(seed)
    starts = rng.integers(0, len(held) - length - 1, size=n)
    return [[0] + held[s:s + length].astype(int).tolist() for s in starts]


@torch.no_grad()
def greedy_continuation(model, ids: list[int], n: int, vocab: int) -> list[int]:
    cache, out = new_cache(model), []
    row = forward(model, ids, cache, vocab)[-1]
    for _ in range(n):
        out.append(int(row.argmax()))
        row = forward(model, out[-1:], cache, vocab)[-1]
    return out


@torch.no_grad()
def agreement(draft, prompt: list[int], continuation: list[int], vocab: int) -> float:
    """Share of positions where the draft's argmax equals the target's greedy token."""
    logits = forward(draft, prompt + continuation[:-1], new_cache(draft), vocab)  # (T, V)
    guesses = logits[len(prompt) - 1:].argmax(-1).tolist()
    return float(np.mean([g == t for g, t in zip(guesses, continuation)]))


def acceptance(pair, prompts: list[str], temperature: float, k: int = 4, n: int = CONT_LEN) -> dict:
    rounds = []
    for i, prompt in enumerate(prompts):
        run = specdec.generate(pair, prompt, k=k, temperature=temperature, seed=i, max_new_tokens=n,
                               lean=True)
        rounds += run.rounds
    m = specdec.summarize(rounds)
    return {"acceptance_rate": m.acceptance_rate, "mean_acceptance_length": m.mean_acceptance_length}


def evaluate(names: list[str], held: np.ndarray, n_prompts: int = N_PROMPTS, log=print) -> dict:
    tok = load_tokenizer(names[0])
    models = {name: load_model(name, torch.device("cpu")) for name in names}
    vocab = len(tok)
    target = models[names[0]]
    ids = held_out_prompts(held, n_prompts)
    texts = [tok.decode(p[1:]) for p in ids]
    conts = [greedy_continuation(target, p, CONT_LEN, vocab) for p in ids]
    target_ms = step_ms(target, vocab)
    out = {}
    for name, model in models.items():
        ms = target_ms if model is target else step_ms(model, vocab)
        row = {"held_out_loss": held_out_loss(model, held), "step_ms": ms}
        row["c"] = row["step_ms"] / target_ms
        row["samples"] = {p: specdec.generate(make_pair(model, None, tok, name), p, temperature=0,
                                              max_new_tokens=40, mode="autoregressive").text
                          for p in SAMPLE_PROMPTS}
        if model is not target:
            row["agreement"] = float(np.mean([agreement(model, p, c, vocab) for p, c in zip(ids, conts)]))
            pair = make_pair(target, model, tok, names[0], name)
            row["T0"] = acceptance(pair, texts, 0.0)
            row["T1"] = acceptance(pair, texts, 1.0)
        out[name] = row
        log(f"{name}: { {k: v for k, v in row.items() if k != 'samples'} }")
    return out
