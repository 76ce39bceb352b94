"""The target's own answers, made on a GPU for specdec/train/smollm2/gpu_feature.py: instructions
(fresh seeds of both instruction sets, and ones the target writes itself from an empty user
turn — Magpie, Xu et al. 2024) answered in large batches, greedily or sampled per row.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from specdec.train.common import log
from specdec.train.smollm2.selfgen import COMMITTED, left_pad


@dataclass(frozen=True)
class GpuSpec:
    chat_seed: int = 3           # chat_instructions.build's seed (1 and 2 made the CPU shards)
    chat_n: int = 6000
    first_seed: int = 4          # instructions.build's seed (0 made the first shards)
    first_n: int = 2000
    magpie_n: int = 4000         # instructions the target writes itself (before dropping)
    temps: tuple = (0.0, 0.0, 0.7, 1.0)   # each instruction's answer: one drawn from these
    max_new: int = 256
    gen_batch: int = 1024
    gen_share: float = 0.35      # of the budget, at most, for making answers
    batch: int = 48              # sequences per optimizer step
    max_len: int = 768           # longer sequences are cut there
    lr: float = 3e-4
    warmup: int = 100
    held: int = 10_000           # held-out sequences measured (all of shard 0)
    seed: int = 7


def pick_tokens(logits: torch.Tensor, temps: torch.Tensor, gen) -> torch.Tensor:
    """(B,) next ids: argmax where the row's T is 0, else a draw from softmax(logits / T)."""
    probs = (logits / temps.clamp(min=1e-4)[:, None]).softmax(-1)                  # (B, V)
    sampled = torch.multinomial(probs, 1, generator=gen)[:, 0]
    return torch.where(temps == 0, logits.argmax(-1), sampled)


@torch.no_grad()
def answer(model, rows: list[list[int]], temps: torch.Tensor, max_new: int, eos: int,
           gen) -> list[tuple[list[int], bool]]:
    """Each row's continuation up to and including eos, and whether it reached eos."""
    from transformers import DynamicCache
    device = temps.device
    ids, mask = (t.to(device) for t in left_pad(rows, eos))                        # (B, W)
    pos = (mask.cumsum(-1) - 1).clamp(min=0)
    cache = DynamicCache(config=model.config)
    out = model(input_ids=ids, attention_mask=mask, position_ids=pos, cache=cache, use_cache=True,
                logits_to_keep=1)
    logits, nxt = out.logits[:, -1].float(), pos[:, -1:] + 1
    done = torch.zeros(len(rows), dtype=torch.bool, device=device)
    toks = []
    for _ in range(max_new):
        tok = torch.where(done, eos, pick_tokens(logits, temps, gen))              # (B,)
        toks.append(tok)
        done |= tok == eos
        if bool(done.all()):
            break
        mask = torch.cat([mask, torch.ones_like(mask[:, :1])], 1)
        out = model(input_ids=tok[:, None], attention_mask=mask, position_ids=nxt, cache=cache,
                    use_cache=True)
        logits, nxt = out.logits[:, -1].float(), nxt + 1
    table = torch.stack(toks, 1).tolist()                                          # (B, A)
    result = []
    for row in table:
        end = row.index(eos) + 1 if eos in row else len(row)
        result.append((row[:end], eos in row))
    return result


def magpie(model, tokenizer, n: int, gen, device: str) -> list[str]:
    """Instructions the target writes from an empty user turn (the template up to the user's
    text), sampled at T = 1; unfinished, very short and repeated ones dropped."""
    marker = "\x00MARK\x00"
    text = tokenizer.apply_chat_template([{"role": "user", "content": marker}], tokenize=False)
    prefix = tokenizer(text[:text.index(marker)], add_special_tokens=False)["input_ids"]
    out: dict[str, None] = {}
    for start in range(0, n, 2048):
        rows = [prefix] * min(2048, n - start)
        temps = torch.ones(len(rows), device=device)
        for ids, ended in answer(model, rows, temps, 96, tokenizer.eos_token_id, gen):
            words = tokenizer.decode(ids, skip_special_tokens=True).strip()
            if ended and len(words.split()) >= 4:
                out.setdefault(words, None)
    return list(out)


def instructions(model, tokenizer, spec: GpuSpec, gen, device: str) -> list[tuple[str, str]]:
    """(source, instruction): fresh seeds of both sets and the target's own; held-out dropped."""
    from specdec.prompts import load_prompts
    from specdec.train.smollm2 import chat_instructions, kind_instructions
    from specdec.train.smollm2 import instructions as first
    texts = kind_instructions.kind_passages(COMMITTED, tokenizer)   # shards before the kinds set: fixed
    made = [("chat", t) for t in chat_instructions.build(spec.chat_n, texts, spec.chat_seed)]
    made += [("first", t) for t in first.build(spec.first_n, spec.first_seed)]
    made += [("magpie", t) for t in magpie(model, tokenizer, spec.magpie_n, gen, device)]
    held = {" ".join(p.prompt.split()) for p in load_prompts("chat")}
    kept = [(s, t) for s, t in made if " ".join(t.split()) not in held]
    rng = np.random.default_rng(spec.seed)
    return [kept[i] for i in rng.permutation(len(kept))]


def make_answers(model, tokenizer, todo: list[tuple[str, str]], spec: GpuSpec, deadline: float,
                 gen, device: str) -> dict[str, np.ndarray]:
    """Answers batch by batch (prompts of like length together) until `deadline`, and at
    least one batch however late it is."""
    from specdec.train.smollm2.selfgen import chat_ids
    rng = np.random.default_rng(spec.seed + 1)
    prompts = chat_ids(tokenizer, [t for _, t in todo])
    temps = rng.choice(np.array(spec.temps), size=len(prompts))
    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
    batches = [order[i:i + spec.gen_batch] for i in range(0, len(order), spec.gen_batch)]
    rng.shuffle(batches)                     # every kind of length early, should time run out
    kept, last = [], 0.0
    for batch in batches:
        if kept and time.perf_counter() + last > deadline:      # at least one batch
            break
        t0 = time.perf_counter()
        t = torch.tensor(temps[batch], dtype=torch.float32, device=device)
        outs = answer(model, [prompts[i] for i in batch], t, spec.max_new, tokenizer.eos_token_id, gen)
        kept += [(i, ids) for i, (ids, _) in zip(batch, outs)]
        last = time.perf_counter() - t0
        log(f"answers: {len(kept)}/{len(prompts)}, {sum(len(a) for _, a in kept):,} tokens, "
            f"batch {last:.1f}s")
    sources = {"chat": 0, "first": 1, "magpie": 2}
    return {
        "prompt_ids": np.concatenate([np.array(prompts[i], dtype=np.uint16) for i, _ in kept]),
        "prompt_lens": np.array([len(prompts[i]) for i, _ in kept], dtype=np.int32),
        "answer_ids": np.concatenate([np.array(a, dtype=np.uint16) for _, a in kept]),
        "answer_lens": np.array([len(a) for _, a in kept], dtype=np.int32),
        "temps": temps[[i for i, _ in kept]].astype(np.float32),
        "sources": np.array([sources[todo[i][0]] for i, _ in kept], dtype=np.int8),
    }
