"""Drafts for SmolLM2-135M-Instruct, distilled from the target's own answers.

    python -m specdec.train.smollm2.draft_2l draft-2l --threads 2     # resumable, logs to stdout
    python -m specdec.train.smollm2.draft_2l draft-2l --export        # write assets/models/smollm2/draft-2l

A draft starts as a slice of the target — its embeddings (restricted to the N most
frequent answer tokens), a few of its first layers and its final norm — and is healed
by distillation (DistillSpec): on every answer position of `selfgen`'s shards it learns
the target's top-K next-token distribution (renormalised over the draft's vocabulary).
Tied input/output embeddings keep it small; the reduced vocabulary makes its LM head
cheap (see specdec/models/reduced_vocab.py for why exactness does not depend on it).
Checkpoints every CKPT_EVERY steps; batches are a pure function of (seed, step) over
the shards present, so a resumed run continues where it stopped.
"""
from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from specdec.files import atomic
from specdec.train.common import log, warmup_then_cosine

GEN = Path("build/smollm2/gen")            # on-policy: the target's answers (selfgen)
RELABEL = Path("build/smollm2/relabel")    # off-policy: offline text, teacher-forced (relabel)
WORK = Path("build/smollm2/train")
OUT = Path("assets/models/smollm2")
SEED, CKPT_EVERY, LOG_EVERY, WARMUP = 1234, 25, 5, 50


@dataclass(frozen=True)
class DraftSpec:
    name: str                    # under smollm2/
    layers: tuple[int, ...]      # the target layers it starts from
    vocab: int                   # N: draft vocabulary (most frequent answer tokens)
    tokens: int                  # answer tokens to train on (the schedule's length)
    lr: float
    batch: int = 8               # answers per step


SPECS = {
    "draft-2l": DraftSpec("draft-2l", (0, 1), 8192, 2_000_000, 1e-3),
}


@dataclass(frozen=True)
class Example:
    prompt: np.ndarray           # (P,) ids
    answer: np.ndarray           # (A,) ids
    top_ids: np.ndarray          # (A, K) the target's K most likely ids at each answer position
    top_logprobs: np.ndarray     # (A, K)
    on_policy: bool = True       # the target's own answer (selfgen), not offline text


def load_examples(dirs: tuple[Path, ...] = (GEN, RELABEL), topk: bool = True) -> list[Example]:
    """Every answer of every shard, the first directory's first (its first shards are the
    held-out check)."""
    out = []
    files = [(f, d == GEN) for d in dirs for f in sorted(Path(d).glob("shard_*.tokens.npz"))]
    for tokens_file, on_policy in files:
        d = np.load(tokens_file)
        t = np.load(str(tokens_file).replace(".tokens.", ".topk.")) if topk else None
        po = np.concatenate([[0], np.cumsum(d["prompt_lens"])])
        ao = np.concatenate([[0], np.cumsum(d["answer_lens"])])
        for i in range(len(d["prompt_lens"])):
            a = slice(ao[i], ao[i + 1])
            out.append(Example(d["prompt_ids"][po[i]:po[i + 1]].astype(np.int64),
                               d["answer_ids"][a].astype(np.int64),
                               t["topk_ids"][a].astype(np.int64) if topk else None,
                               t["topk_logprobs"][a].astype(np.float32) if topk else None,
                               on_policy))
    return out


def background_counts(tokenizer) -> np.ndarray:
    """Token counts over offline text (instructions, reference docs, stdlib code), so the
    vocabulary also covers tokens the answers generated so far have not used yet."""
    from specdec.train.smollm2.instructions import build, passages, stdlib_functions
    counts = np.zeros(65536, dtype=np.int64)
    for text in build(3000) + passages(2000) + stdlib_functions(2000):
        np.add.at(counts, tokenizer(text)["input_ids"], 1)
    return counts


def choose_vocab(examples: list[Example], n: int, always: list[int], tokenizer=None) -> list[int]:
    """The n most frequent ids — answers and the target's top-1s weigh 10x, background text
    1x — with `always` (special tokens) first."""
    counts = np.zeros(65536, dtype=np.int64) if tokenizer is None else background_counts(tokenizer)
    for ex in examples:
        np.add.at(counts, ex.prompt, 1)
        for ids in (ex.answer, ex.top_ids[:, 0]):
            np.add.at(counts, ids, 10)
    ranked = [int(i) for i in np.argsort(-counts, kind="stable") if counts[i] > 0]
    keep = list(dict.fromkeys(always + ranked))[:n]
    return sorted(keep)


def init_draft(target, layers: tuple[int, ...], keep_ids: list[int]):
    """A Llama over N + 1 ids built from the target's embeddings, layers and norm."""
    from transformers import LlamaForCausalLM
    config = copy.deepcopy(target.config)
    config.num_hidden_layers, config.vocab_size = len(layers), len(keep_ids) + 1
    draft = LlamaForCausalLM(config)
    emb = target.model.embed_tokens.weight.detach()                          # (V, H)
    rest = torch.ones(emb.shape[0], dtype=torch.bool)
    rest[keep_ids] = False
    other = emb[rest].mean(0, keepdim=True)                                  # (1, H)
    draft.model.embed_tokens.weight.data.copy_(torch.cat([emb[keep_ids], other]))
    for j, i in enumerate(layers):
        draft.model.layers[j].load_state_dict(target.model.layers[i].state_dict())
    draft.model.norm.load_state_dict(target.model.norm.state_dict())
    draft.tie_weights()
    return draft.float().train()


def soft_targets(ex: Example, to_draft: np.ndarray, n: int) -> np.ndarray:
    """(A, N) the target's top-K probabilities mapped to draft ids, renormalised."""
    probs = np.exp(ex.top_logprobs)                                          # (A, K)
    ids = to_draft[ex.top_ids]                                               # (A, K)
    out = np.zeros((len(ex.answer), n), dtype=np.float32)
    rows = np.repeat(np.arange(len(ex.answer)), ids.shape[1])
    inside = ids.ravel() < n
    np.add.at(out, (rows[inside], ids.ravel()[inside]), probs.ravel()[inside])
    return out / np.maximum(out.sum(1, keepdims=True), 1e-9)


def make_batch(examples: list[Example], to_draft: np.ndarray, n: int):
    """Right-padded inputs (B, T), the answer rows' positions, and their soft targets."""
    seqs = [np.concatenate([ex.prompt, ex.answer[:-1]]) for ex in examples]
    width = max(map(len, seqs))
    ids = np.full((len(seqs), width), n, dtype=np.int64)                     # pad = "other"
    mask = np.zeros((len(seqs), width), dtype=np.int64)
    rows, cols, targets = [], [], []
    for b, (ex, seq) in enumerate(zip(examples, seqs)):
        ids[b, :len(seq)], mask[b, :len(seq)] = to_draft[seq], 1
        start = len(ex.prompt) - 1                                          # predicts answer[0]
        rows += [b] * len(ex.answer)
        cols += list(range(start, start + len(ex.answer)))
        targets.append(soft_targets(ex, to_draft, n))
    return (torch.from_numpy(ids), torch.from_numpy(mask), torch.tensor(rows),
            torch.tensor(cols), torch.from_numpy(np.concatenate(targets)))


def batch_loss(draft, batch, n: int) -> torch.Tensor:
    """Cross-entropy of the draft against the target's distributions on answer positions."""
    ids, mask, rows, cols, targets = batch
    hidden = draft.model(input_ids=ids, attention_mask=mask).last_hidden_state   # (B, T, H)
    logits = draft.lm_head(hidden[rows, cols])[:, :n]                             # (M, N)
    return -(targets * logits.log_softmax(-1)).sum(-1).mean()


def lr_at(step: int, total: int, peak: float) -> float:
    return warmup_then_cosine(step, WARMUP, total, peak)


def to_draft_map(keep_ids: list[int], vocab: int = 65536) -> np.ndarray:
    out = np.full(vocab, len(keep_ids), dtype=np.int64)
    out[keep_ids] = np.arange(len(keep_ids))
    return out


def pick(examples: list[Example], step: int, batch: int) -> list[Example]:
    """Half the batch from the target's own answers, half from offline text (when both exist):
    the answers are what the draft will face, the text adds volume."""
    rng = np.random.default_rng([SEED, step])
    pools = [p for p in ([e for e in examples if e.on_policy], [e for e in examples if not e.on_policy])
             if p]
    return [pools[i % len(pools)][rng.integers(0, len(pools[i % len(pools)]))] for i in range(batch)]


def load_target():
    from transformers import AutoModelForCausalLM

    from specdec.models.gguf import converted_target
    return AutoModelForCausalLM.from_pretrained(converted_target(), dtype=torch.float32).eval()


def setup(spec: DraftSpec, held: int):
    """(draft, optimizer, step, elapsed, keep_ids, train examples); resumes from a checkpoint."""
    examples = load_examples()
    # shards 0 and 1 answer the same instructions (greedy, then sampled): neither is trained
    # on, and shard 0's greedy answers are the held-out agreement check
    train = examples[2 * held:]
    ckpt = WORK / spec.name / "ckpt.pt"
    state = torch.load(ckpt, weights_only=False) if ckpt.exists() else None
    if state:
        keep = state["keep_ids"]
    else:
        from transformers import AutoTokenizer

        from specdec.models.gguf import converted_target
        keep = choose_vocab(train, spec.vocab, list(range(17)),
                            AutoTokenizer.from_pretrained(converted_target()))
    draft = init_draft(load_target(), spec.layers, keep)
    optim = torch.optim.AdamW(draft.parameters(), lr=spec.lr, betas=(0.9, 0.95), weight_decay=0.0)
    if state:
        draft.load_state_dict(state["model"])
        optim.load_state_dict(state["optim"])
    return draft, optim, state["step"] if state else 0, state["elapsed"] if state else 0.0, keep, \
        train, examples[:held]


def save_ckpt(spec: DraftSpec, draft, optim, step: int, elapsed: float, keep: list[int]) -> None:
    path = WORK / spec.name / "ckpt.pt"
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic.replacing(path) as tmp:            # a checkpoint cut short keeps the last one
        torch.save({"model": draft.state_dict(), "optim": optim.state_dict(), "step": step,
                    "elapsed": elapsed, "keep_ids": keep, "spec": asdict(spec)}, tmp)


@torch.no_grad()
def agreement(draft, examples: list[Example], to_draft: np.ndarray, n: int) -> float:
    """Share of answer positions where the draft's argmax is the target's argmax."""
    draft.eval()
    hit = total = 0
    for i in range(0, len(examples), 8):
        chunk = examples[i:i + 8]
        ids, mask, rows, cols, _ = make_batch(chunk, to_draft, n)
        hidden = draft.model(input_ids=ids, attention_mask=mask).last_hidden_state
        best = draft.lm_head(hidden[rows, cols])[:, :n].argmax(-1)            # (M,)
        want = torch.from_numpy(to_draft[np.concatenate([ex.top_ids[:, 0] for ex in chunk])])
        hit, total = hit + int((best == want).sum()), total + len(want)
    draft.train()
    return hit / max(1, total)


def train(spec: DraftSpec, held: int = 48) -> None:
    draft, optim, step, elapsed, keep, examples, held_out = setup(spec, held)
    n, to_draft = len(keep), to_draft_map(keep)
    per_step = spec.batch * float(np.mean([len(ex.answer) for ex in examples]))
    total = int(spec.tokens / per_step)
    log(f"[{spec.name}] {sum(p.numel() for p in draft.parameters()):,} params, vocab {n}, "
        f"{len(examples)} answers, steps {step}->{total}, held-out agreement "
        f"{agreement(draft, held_out, to_draft, n):.3f}")
    t0 = time.perf_counter()
    while step < total:
        for group in optim.param_groups:
            group["lr"] = lr_at(step, total, spec.lr)
        loss = batch_loss(draft, make_batch(pick(examples, step, spec.batch), to_draft, n), n)
        optim.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(draft.parameters(), 1.0)
        optim.step()
        step += 1
        if step % LOG_EVERY == 0:
            log(f"[{spec.name}] step {step}/{total} loss {loss.item():.3f} "
                f"elapsed {elapsed + time.perf_counter() - t0:.0f}s")
        if step % CKPT_EVERY == 0 or step == total:
            save_ckpt(spec, draft, optim, step, elapsed + time.perf_counter() - t0, keep)
        if step % (CKPT_EVERY * 8) == 0:
            examples = load_examples()[2 * held:]     # selfgen may have written more shards
            log(f"[{spec.name}] held-out agreement {agreement(draft, held_out, to_draft, n):.3f}, "
                f"{len(examples)} answers")


def export(spec: DraftSpec, held: int = 48) -> Path:
    """Checkpoint -> assets/models/smollm2/<name>: fp16 safetensors, tokenizer, vocabulary."""
    from transformers import AutoTokenizer

    from specdec.models.gguf import converted_target
    from specdec.models.reduced_vocab import write_vocab
    draft, _, step, elapsed, keep, examples, held_out = setup(spec, held)
    n = len(keep)
    score = agreement(draft, held_out, to_draft_map(keep), n)
    dest = OUT / spec.name
    draft.to(torch.float16).save_pretrained(dest)
    AutoTokenizer.from_pretrained(converted_target()).save_pretrained(dest)
    write_vocab(dest, keep, len(AutoTokenizer.from_pretrained(dest)))
    stats = {**asdict(spec), "steps": step, "train_seconds": round(elapsed),
             "answer_tokens_seen": int(step * spec.batch * np.mean([len(e.answer) for e in examples])),
             "train_answers": len(examples), "held_out_agreement_self_generated": round(score, 4)}
    atomic.write_text(dest / "training.json", json.dumps(stats, indent=1) + "\n")
    log(f"[{spec.name}] exported to {dest}: {stats}")
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m specdec.train.smollm2.draft_2l", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("name", choices=list(SPECS))
    ap.add_argument("--export", action="store_true", help="write the checkpoint into assets/")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    if args.export:
        export(SPECS[args.name])
    else:
        train(SPECS[args.name])
    return 0


if __name__ == "__main__":
    sys.exit(main())
