"""Training loop for one family member: plain next-token loss or distillation.

Resumable: a checkpoint (weights, optimizer, step, elapsed time) is written every
`CKPT_EVERY` steps, and batches are a pure function of (seed, step), so a resumed
run sees exactly the batches an uninterrupted one would have.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from specdec.files import atomic
from specdec.train.common import warmup_then_cosine
from specdec.train.stdlib.family import SEQ_LEN, Member, llama_config

BATCH = 8             # sequences per step; 8 x 512 = 4096 tokens
WARMUP = 100          # steps
CKPT_EVERY = 50       # steps
LOG_EVERY = 10        # steps
EVAL_WINDOWS = 64     # held-out windows of SEQ_LEN tokens
SEED = 1234


def batch_at(stream: np.ndarray, step: int, batch: int, seq_len: int, seed: int) -> torch.Tensor:
    """Random windows for this step; (batch, seq_len + 1) int64."""
    rng = np.random.default_rng([seed, step])
    starts = rng.integers(0, len(stream) - seq_len - 1, size=batch)
    rows = np.stack([stream[s:s + seq_len + 1] for s in starts]).astype(np.int64)
    return torch.from_numpy(rows)


def lr_at(step: int, phases: list[tuple[int, float]]) -> float:
    """Within each (steps, peak) phase: linear warm-up, cosine decay to 10 % of peak."""
    for total, peak in phases:
        if step < total:
            return warmup_then_cosine(step, WARMUP, total, peak)
        step -= total
    return 0.1 * phases[-1][1]


def step_loss(model, rows: torch.Tensor, teacher=None) -> torch.Tensor:
    """Next-token cross-entropy; against the teacher's distribution when given."""
    inputs, labels = rows[:, :-1], rows[:, 1:]                   # (B, T)
    logits = model(input_ids=inputs).logits                      # (B, T, V)
    if teacher is None:
        return F.cross_entropy(logits.flatten(0, 1), labels.flatten())
    with torch.no_grad():
        soft = teacher(input_ids=inputs).logits.softmax(-1)      # (B, T, V)
    return -(soft * logits.log_softmax(-1)).sum(-1).mean()


@torch.no_grad()
def held_out_loss(model, stream: np.ndarray, windows: int = EVAL_WINDOWS,
                  seq_len: int = SEQ_LEN) -> float:
    """Mean next-token loss (nats) on fixed held-out windows."""
    model.eval()
    losses = [step_loss(model, batch_at(stream, 10_000 + i, 8, seq_len, SEED)).item()
              for i in range(max(1, windows // 8))]
    model.train()
    return float(np.mean(losses))


def _load_ckpt(path: Path, model, optim) -> tuple[int, float]:
    if not path.exists():
        return 0, 0.0
    state = torch.load(path, weights_only=False)
    model.load_state_dict(state["model"])
    optim.load_state_dict(state["optim"])
    return state["step"], state["elapsed"]


def _save_ckpt(path: Path, model, optim, step: int, elapsed: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic.replacing(path) as tmp:            # a checkpoint cut short keeps the last one
        torch.save({"model": model.state_dict(), "optim": optim.state_dict(), "step": step,
                    "elapsed": elapsed}, tmp)


def _load_teacher(m: Member, out_dir: Path):
    if m.distill_from is None:
        return None
    from transformers import AutoModelForCausalLM
    teacher = AutoModelForCausalLM.from_pretrained(out_dir / m.distill_from, dtype=torch.float32)
    return teacher.eval()


def train_member(m: Member, data_dir: Path, out_dir: Path, work_dir: Path,
                 batch: int = BATCH, seq_len: int = SEQ_LEN, log=print) -> dict:
    """Train (or resume) one member, save it in float16 under out_dir/m.name."""
    from transformers import AutoTokenizer, LlamaForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(data_dir / "tokenizer")
    train = np.load(data_dir / "train.npy")
    held = np.load(data_dir / "held_out.npy")
    torch.manual_seed(SEED)
    model = LlamaForCausalLM(llama_config(m, len(tokenizer), tokenizer.eos_token_id)).train()
    optim = torch.optim.AdamW(model.parameters(), lr=m.lr, betas=(0.9, 0.95), weight_decay=0.1)
    ckpt = work_dir / m.name / "ckpt.pt"
    start, elapsed = _load_ckpt(ckpt, model, optim)
    teacher = _load_teacher(m, out_dir)
    phases = m.phases(batch * seq_len)
    total = sum(steps for steps, _ in phases)
    log(f"[{m.name}] {sum(p.numel() for p in model.parameters()):,} params, "
        f"steps {start}->{total}, threads {torch.get_num_threads()}")
    t0 = time.perf_counter()
    for step in range(start, total):
        for group in optim.param_groups:
            group["lr"] = lr_at(step, phases)
        loss = step_loss(model, batch_at(train, step, batch, seq_len, SEED), teacher)
        optim.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optim.step()
        now = time.perf_counter()
        if (step + 1) % LOG_EVERY == 0 or step + 1 == total:
            done = (step + 1 - start) * batch * seq_len
            log(f"[{m.name}] step {step + 1}/{total} loss {loss.item():.3f} "
                f"{done / (now - t0):.0f} tok/s elapsed {elapsed + now - t0:.0f}s")
        if (step + 1) % CKPT_EVERY == 0:
            _save_ckpt(ckpt, model, optim, step + 1, elapsed + now - t0)
    elapsed += time.perf_counter() - t0
    return _finish(m, model, tokenizer, held, out_dir, total * batch * seq_len, elapsed, seq_len, log)


def _finish(m, model, tokenizer, held, out_dir: Path, tokens: int, elapsed: float, seq_len: int,
            log) -> dict:
    loss = held_out_loss(model, held, seq_len=seq_len)
    stats = {"name": m.name, "layers": m.layers, "width": m.width,
             "params": sum(p.numel() for p in model.parameters()), "tokens": tokens,
             "train_seconds": round(elapsed), "held_out_loss": round(loss, 4),
             "distilled_from": m.distill_from}
    dest = out_dir / m.name
    model.to(torch.float16).save_pretrained(dest)
    tokenizer.save_pretrained(dest)
    atomic.write_text(dest / "training.json", json.dumps(stats, indent=2) + "\n")
    log(f"[{m.name}] saved to {dest}: held-out loss {loss:.4f}")
    return stats
