"""smollm2/draft trained further on a lent GPU, with on-policy data made there.

    python -m specdec.train.smollm2.gpu_feature --gguf DIR --out OUT --budget 470   # on the GPU machine
    python -m specdec.train.smollm2.gpu_feature --take OUT                          # here: -> checkpoint

A GPU lent for a few minutes does what takes this 2-core CPU days, so one run does all of
it there (scripts/device_train.sh sends the files and runs it):
1. the target, read from its GGUF by transformers (float32, as the engine runs it);
2. answers (gpu_answers.py): the target answers fresh instructions — new seeds of both
   instruction sets and instructions it writes itself from an empty user turn (Magpie, Xu et
   al. 2024) — greedily or sampled at T = 0.7 or 1, the ways the app runs it;
3. training: the committed draft goes on learning with feature_draft's losses and its
   training-time test, on these answers and the committed shards' answers, with the
   target's features and its whole next-token distribution (over the draft's vocabulary)
   computed for every batch — no feature files;
4. every minute and at the end: the draft's weights (fp16, in parts under 16 MiB) and the
   answers' tokens go to OUT.
Held out, as on the CPU: the committed shards 0 and 1 (shard 0's greedy answers give the
teacher-forced agreement) and the hand-written chat prompts (an instruction equal to one is
dropped). `--take` turns OUT into feature_draft's checkpoint, so `--export` writes the assets.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import torch

from specdec.files import atomic
from specdec.train.common import cosine_to_tenth, log, warmup
from specdec.train.smollm2.feature_draft import (
    SPEC,
    agreement_over,
    batch_loss,
    ckpt_path,
    from_export,
    gpu_runs,
    init_draft,
    runs_file,
    save_ckpt,
)
from specdec.train.smollm2.features import conversations, sequences
from specdec.train.smollm2.gpu_answers import GpuSpec, instructions, make_answers
from specdec.train.smollm2.selfgen import COMMITTED

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
DRAFT = Path("assets/models/smollm2/draft")
PARTS = ("draft_net.safetensors", "draft_head.safetensors", "fc.safetensors")
HEAD_KEY = "model.embed_tokens.weight"


# ---- 1. the target -------------------------------------------------------------------------

def load(folder: Path, device: str):
    from specdec.models.gguf import _load_gguf
    model, tokenizer = _load_gguf(folder / GGUF_NAME)
    for p in model.parameters():
        p.requires_grad_(False)
    return model.to(device), tokenizer


# ---- 2. training ---------------------------------------------------------------------------

def committed(shards: slice) -> list[tuple[np.ndarray, int]]:
    """(ids, prompt length) of the committed selfgen shards' conversations."""
    out = []
    for path in sorted(COMMITTED.glob("shard_*.tokens.npz"))[shards]:
        out += list(zip(*sequences(path)))
    return out


@torch.no_grad()
def teacher(target, chosen: list[tuple[np.ndarray, int]], keep: torch.Tensor, max_len: int,
            noise: float, gen):
    """feature_draft.batch_loss's batch, with the target's features and its distribution over
    the draft's vocabulary computed here: ids (B, W) = s_{j+1}, feats (B, W, H) = f_j, mask,
    trained (row, col), next features (M, H), targets (M, N)."""
    device = keep.device
    cut = [(s[:max_len], p) for s, p in chosen]
    width = max(len(s) for s, _ in cut)
    ids = torch.zeros((len(cut), width), dtype=torch.long)
    mask = torch.zeros((len(cut), width), dtype=torch.long)
    rows, cols = [], []
    for b, (s, p) in enumerate(cut):
        ids[b, :len(s)], mask[b, :len(s)] = torch.from_numpy(s), 1
        js = list(range(max(0, p - 2), len(s) - 2))    # h_j predicts s_{j+2}: answers only
        rows += [b] * len(js)
        cols += js
    ids, mask = ids.to(device), mask.to(device)
    hidden = target.model(input_ids=ids, attention_mask=mask).last_hidden_state  # (B, T, H)
    rows = torch.tensor(rows, dtype=torch.long, device=device)
    cols = torch.tensor(cols, dtype=torch.long, device=device)
    nxt = hidden[rows, cols + 1]                                                  # (M, H)
    table = target.get_output_embeddings().weight[keep]                          # (N, H)
    targets = (nxt @ table.T).float().softmax(-1)                                 # (M, N)
    feats = hidden[:, :-1]
    if noise:
        feats = feats + (torch.rand(feats.shape, generator=gen, device=device) * 2 - 1) * noise
    return ids[:, 1:], feats, mask[:, 1:], rows, cols, nxt, targets


@torch.no_grad()
def agreement(draft, target, seqs, keep: torch.Tensor, max_len: int) -> float:
    """Teacher-forced, one step: argmax q at pair j == the target's argmax (on the draft's
    vocabulary) at j + 1, over answer positions — feature_draft.agreement's measure."""
    return agreement_over(draft, (teacher(target, seqs[i:i + 16], keep, max_len, 0.0, None)
                                  for i in range(0, len(seqs), 16)))


def lr_at(step: int, frac: float, spec: GpuSpec) -> float:
    """Linear warm-up over spec.warmup steps, times a cosine over the time budget to 10 %."""
    return spec.lr * warmup(step, spec.warmup) * cosine_to_tenth(frac)


def start_draft(target, keep: list[int]):
    draft = init_draft(target, SPEC, keep)
    from_export(draft, DRAFT, keep)
    return draft


def save_parts(draft, out: Path, stats: dict) -> None:
    """fp16 parts under 16 MiB each (what a device run may send back), written atomically."""
    from safetensors.torch import save_file

    from specdec.models.feature import save_fc
    state = {k: v.detach().half().contiguous() for k, v in draft.net.state_dict().items()
             if k != "lm_head.weight"}
    head = {HEAD_KEY: state.pop(HEAD_KEY)}
    for name, part in ((PARTS[0], state), (PARTS[1], head)):
        save_file(part, str(out / (name + ".tmp")))
        (out / (name + ".tmp")).replace(out / name)
    save_fc(draft.fc, out)
    atomic.write_text(out / "stats.json", json.dumps(stats, indent=1) + "\n")


def train(target, draft, pool, keep_ids: list[int], spec: GpuSpec, deadline: float,
          out: Path, stats: dict, device: str) -> None:
    keep = torch.tensor(keep_ids, device=device)
    params = [p for p in draft.parameters() if p.requires_grad]
    optim = torch.optim.AdamW(params, lr=spec.lr, betas=(0.9, 0.95), weight_decay=0.0)
    rng = np.random.default_rng(spec.seed + 2)
    gen = torch.Generator(device=device).manual_seed(spec.seed)
    t0, saved, step, positions = time.perf_counter(), time.perf_counter(), 0, 0
    span = max(1.0, deadline - t0)
    while time.perf_counter() < deadline:
        for group in optim.param_groups:
            group["lr"] = lr_at(step, (time.perf_counter() - t0) / span, spec)
        chosen = [pool[i] for i in rng.integers(len(pool), size=spec.batch)]
        batch = teacher(target, chosen, keep, spec.max_len, SPEC.noise, gen)
        if not len(batch[3]):
            continue
        loss, ce, reg, ce_last = batch_loss(draft, batch, len(keep_ids), SPEC.feature_weight,
                                            SPEC.unroll)
        optim.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optim.step()
        step, positions = step + 1, positions + len(batch[3])
        if step % 50 == 0:
            log(f"step {step} ce {ce:.3f} reg {reg:.3f} ce(pass {SPEC.unroll}) {ce_last:.3f} "
                f"positions {positions:,} {time.perf_counter() - t0:.0f}s")
        if time.perf_counter() - saved > 60:
            stats.update(steps=step, positions=positions, train_seconds=round(time.perf_counter() - t0))
            save_parts(draft, out, stats)
            saved = time.perf_counter()
    stats.update(steps=step, positions=positions, train_seconds=round(time.perf_counter() - t0))


def run(folder: Path, out: Path, budget: float, spec: GpuSpec) -> None:
    t_start = time.perf_counter()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.set_float32_matmul_precision("high")
    torch.manual_seed(spec.seed)
    out.mkdir(parents=True, exist_ok=True)
    target, tokenizer = load(folder, "cpu")
    keep_ids = json.loads((DRAFT / "draft_vocab.json").read_text())["keep_ids"]
    draft = start_draft(target, keep_ids)
    target, draft = target.to(device), draft.to(device)
    log(f"loaded on {device} in {time.perf_counter() - t_start:.0f}s")
    gen = torch.Generator(device=device).manual_seed(spec.seed)
    todo = instructions(target, tokenizer, spec, gen, device)
    log(f"{len(todo)} instructions ({sum(s == 'magpie' for s, _ in todo)} the target's own)")
    data = make_answers(target, tokenizer, todo, spec, t_start + spec.gen_share * budget, gen, device)
    with atomic.replacing(out / "answers.npz") as tmp, open(tmp, "wb") as fh:
        np.savez_compressed(fh, **data)
    pool = list(zip(*conversations(data))) + committed(slice(2, None))
    held = committed(slice(0, 1))[:spec.held]
    keep = torch.tensor(keep_ids, device=device)
    stats = {"spec": asdict(spec), "device": torch.cuda.get_device_name() if device == "cuda" else "cpu",
             "torch": torch.__version__, "answers": len(data["answer_lens"]),
             "answer_tokens": int(data["answer_lens"].sum()), "pool_sequences": len(pool),
             "held_out_before": agreement(draft, target, held, keep, spec.max_len)}
    log(f"pool {len(pool)} sequences; held-out agreement before {stats['held_out_before']:.4f}")
    train(target, draft, pool, keep_ids, spec, t_start + budget - 20, out, stats, device)
    stats["held_out_after"] = agreement(draft, target, held, keep, spec.max_len)
    stats["seconds"] = round(time.perf_counter() - t_start)
    save_parts(draft, out, stats)
    log(f"done: {stats}")


# ---- 3. back here ---------------------------------------------------------------------------

def take(folder: Path) -> Path:
    """The device's parts -> feature_draft's checkpoint (fresh optimizer), ready for --export."""
    from safetensors.torch import load_file

    from specdec.train.smollm2.draft_2l import load_target
    stats = json.loads((folder / "stats.json").read_text())
    keep_ids = json.loads((DRAFT / "draft_vocab.json").read_text())["keep_ids"]
    draft = init_draft(load_target(), SPEC, keep_ids)
    weights = {**load_file(str(folder / PARTS[0])), **load_file(str(folder / PARTS[1]))}
    draft.net.load_state_dict({k: v.float() for k, v in weights.items()}, strict=False)
    draft.net.tie_weights()
    draft.fc.weight.data.copy_(load_file(str(folder / PARTS[2]))["weight"].float())
    previous = json.loads((DRAFT / "training.json").read_text())
    optim = torch.optim.AdamW([p for p in draft.parameters() if p.requires_grad])
    save_ckpt(SPEC, draft, optim, previous["steps"], previous["train_seconds"])   # CPU steps
    runs = [r for r in gpu_runs() if r["spec"]["seed"] != stats["spec"]["seed"]] + [stats]
    atomic.write_text(runs_file(), json.dumps(runs, indent=1) + "\n")
    log(f"checkpoint {ckpt_path(SPEC)} from {folder}: {stats.get('held_out_after')}")
    return ckpt_path(SPEC)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m specdec.train.smollm2.gpu_feature", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gguf", type=Path, help="folder holding the target's GGUF file")
    ap.add_argument("--out", type=Path, default=Path("build/smollm2/gpu"))
    ap.add_argument("--budget", type=float, default=470, help="seconds for the whole run")
    ap.add_argument("--take", type=Path, help="a finished run's folder -> the checkpoint")
    ap.add_argument("--small", action="store_true", help="a tiny run (checks the script on a CPU)")
    ap.add_argument("--run", type=int, default=1, help="run N: instruction seeds of its own")
    args = ap.parse_args(argv)
    if args.take:
        take(args.take)
        return 0
    spec = GpuSpec(chat_n=6, first_n=3, magpie_n=4, max_new=8, gen_batch=4, batch=2,
                   max_len=96, warmup=2, held=3) if args.small else GpuSpec()
    step = 2 * (args.run - 1)                # run 1: seeds 3, 4, 7; run 2: 5, 6, 9; ...
    spec = replace(spec, chat_seed=spec.chat_seed + step, first_seed=spec.first_seed + step,
                   seed=spec.seed + step, lr=spec.lr / args.run)
    run(args.gguf, args.out, args.budget, spec)
    return 0


if __name__ == "__main__":
    sys.exit(main())
