"""A feature draft (EAGLE) for SmolLM2-135M-Instruct, trained on the target's own features.

    python -m specdec.train.smollm2.features --threads 2             # first: the data (resumable)
    python -m specdec.train.smollm2.feature_draft --threads 2         # resumable, logs to stdout
    python -m specdec.train.smollm2.feature_draft --export            # -> assets/models/smollm2/draft

On a machine without build/ (a new session): `python -m specdec.train.smollm2.relabel` and
`python -m specdec.train.smollm2.features` rebuild the data from committed tokens and offline text;
training then continues from the committed export (its step count; a fresh optimizer).

The draft (specdec/models/feature.py) reads pairs (f_j, s_{j+1}) and learns two things at
once on every answer position: h_j close to the target's next feature f_{j+1} (smooth L1,
so that its own guesses stay usable as inputs for d_2, d_3, ...) and its q close to the
target's top-K distribution p_{j+1} (cross-entropy, renormalised over the draft's
vocabulary: the 12,288 tokens the target writes most, feature_vocab.py; until step 2,000 it
was draft-2l's 8,192). Inputs get small uniform noise so the draft tolerates its own imperfect guesses.
It starts from the target: its last decoder layer, final norm and (restricted) embedding
rows as LM head; `fc` starts as the sum of the two inputs.
Held out: selfgen shards 0 and 1 (shard 0's greedy answers are the agreement check).
Batches are a pure function of (seed, step), so a resumed run continues where it stopped.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch

from specdec.files import atomic
from specdec.models import head8
from specdec.train.common import log
from specdec.train.smollm2 import draft_2l
from specdec.train.smollm2.draft_2l import OUT, SEED, WORK, load_target, lr_at
from specdec.train.smollm2.feature_batches import (  # FeatureSpec: imported from here by its users
    FeatureSpec,
    Seq,
    load_seqs,
    make_batch,
    pick,
    split,
    training_seqs,
)
from specdec.train.smollm2.feature_vocab import carried_rows, onpolicy_vocab

VOCAB_FROM = Path("assets/models/smollm2/draft-2l/draft_vocab.json")
CKPT_EVERY, LOG_EVERY = 25, 5


SPEC = FeatureSpec()
# How the committed smollm2/draft was actually trained (the schedule was shortened twice to fit
# a 3-hour session; a run from scratch with SPEC follows SPEC alone).
HISTORY = " ".join(Path(__file__).with_name("history.md").read_text().split())   # history.md, one line


def init_draft(target, spec: FeatureSpec, keep_ids: list[int]):
    """A FeatureDraft started from the target's last layer, norm and embedding rows."""
    import copy

    from transformers import LlamaForCausalLM

    from specdec.models.feature import FeatureDraft
    config = copy.deepcopy(target.config)
    config.num_hidden_layers, config.vocab_size, config.tie_word_embeddings = 1, len(keep_ids), True
    net = LlamaForCausalLM(config)
    net.model.embed_tokens.weight.data.copy_(target.model.embed_tokens.weight.detach()[keep_ids])
    net.model.layers[0].load_state_dict(target.model.layers[spec.init_layer].state_dict())
    net.model.norm.load_state_dict(target.model.norm.state_dict())
    net.tie_weights()
    h = config.hidden_size
    fc = torch.nn.Linear(2 * h, h, bias=False)
    fc.weight.data.copy_(torch.cat([torch.eye(h), torch.eye(h)], dim=1))
    draft = FeatureDraft(net.float(), fc, keep_ids, target.config.vocab_size)
    draft.attach(target)
    for p in target.parameters():
        p.requires_grad_(False)
    return draft.train()


def unroll_mask(width: int, m: int, device=None) -> torch.Tensor:
    """(W, m·W) bool: what pass m's row j may attend to among the keys of passes 1..m, as at
    inference when d_m is drafted at pair j: the real pairs before j − m + 2 (pass 1) and
    one guessed pair from each later pass, on the diagonal j − (m − i) of pass i."""
    j = torch.arange(width, device=device)[:, None]                              # (W, 1)
    c = torch.arange(width, device=device)[None, :]                              # (1, W)
    blocks = [c <= j - (m - 1)] + [c == j - (m - i) for i in range(2, m + 1)]
    return torch.cat(blocks, dim=1)


def batch_loss(draft, batch, n: int, weight: float, unroll: int = 1):
    """Cross-entropy to the target's p_{j+1} plus smooth L1 to f_{j+1}, summed over passes:
    pass 1 reads the real features; pass m reads pass m − 1's guesses shifted by one
    position (training-time test, EAGLE-3), with the attention it would have at inference.
    Returns (loss, pass-1 ce, pass-1 reg, ce of the last pass)."""
    ids, feats, _, rows, cols, nxt, targets = batch
    total, first, last_ce = 0.0, None, 0.0
    for m, hidden in enumerate(unrolled(draft, ids, feats, unroll), 1):
        keep = cols >= m - 1                                                       # rows with a guess
        h = hidden[rows[keep], cols[keep]]                                         # (M, H)
        ce = -(targets[keep] * draft.net.lm_head(h).log_softmax(-1)).sum(-1).mean()
        reg = torch.nn.functional.smooth_l1_loss(h, nxt[keep])
        total = total + ce + weight * reg
        first = first or (ce.item(), reg.item())
        last_ce = ce.item()
    return total, first[0], first[1], last_ce


def unrolled(draft, ids: torch.Tensor, feats: torch.Tensor, unroll: int) -> list[torch.Tensor]:
    """The draft's outputs (B, W, H) of passes 1..unroll over pairs (features, ids): pass m
    reads pass m − 1's outputs shifted by one position (h_{j−1} in place of f_j), and its
    keys and values join one cache so later passes attend as `unroll_mask` says."""
    from transformers import DynamicCache
    width = ids.shape[1]
    cache = DynamicCache(config=draft.net.config)
    pos = torch.arange(width, device=ids.device)[None].expand(ids.shape[0], -1)   # (B, W)
    out = []
    for m in range(1, unroll + 1):
        mask = None if m == 1 else \
            unroll_mask(width, m, ids.device)[None, None].expand(ids.shape[0], 1, -1, -1)
        hidden = draft(ids, features=feats, cache=cache, attention_mask=mask,
                       position_ids=pos).hidden_states[0]                          # (B, W, H)
        out.append(hidden)
        feats = torch.cat([torch.zeros_like(hidden[:, :1]), hidden[:, :-1]], dim=1)  # h_{j-1}
    return out


@torch.no_grad()
def agreement(draft, seqs: list[Seq], to_draft, n: int) -> float:
    """Teacher-forced, one step: does argmax q_{j} equal the target's argmax (answers only)?"""
    rng = np.random.default_rng(0)
    return agreement_over(draft, (make_batch(seqs[i:i + 8], SPEC_EVAL, to_draft, n, rng, 0.0)
                                  for i in range(0, len(seqs), 8)))


def agreement_over(draft, batches) -> float:
    """Share of answer positions where the draft's argmax is the target's, over feature batches
    (ids, feats, mask, rows, cols, _, targets): this file's data and gpu_feature's alike."""
    draft.eval()
    hit = total = 0
    with torch.no_grad():
        for ids, feats, mask, rows, cols, _, targets in batches:
            h = draft(ids, features=feats, attention_mask=mask, use_cache=False).hidden_states[0]
            best = draft.net.lm_head(h[rows, cols]).argmax(-1)
            hit, total = hit + int((best == targets.argmax(-1)).sum()), total + len(best)
    draft.train()
    return hit / max(1, total)


SPEC_EVAL = FeatureSpec(window=4096)


def ckpt_path(spec: FeatureSpec) -> Path:
    return WORK / f"feature-{spec.name}" / "ckpt.pt"


def setup(spec: FeatureSpec):
    target = load_target()
    keep = onpolicy_vocab(spec.vocab, target.config.vocab_size)
    draft = init_draft(target, spec, keep)
    params = [p for p in draft.parameters() if p.requires_grad]
    optim = torch.optim.AdamW(params, lr=spec.lr, betas=(0.9, 0.95), weight_decay=0.0)
    state = torch.load(ckpt_path(spec), weights_only=False) if ckpt_path(spec).exists() else None
    if state:
        old_keep = state.get("keep_ids") or json.loads(VOCAB_FROM.read_text())["keep_ids"]
        load_rows(draft, state["model"], "net.", old_keep, keep)
        if old_keep == keep:
            optim.load_state_dict(state["optim"])
        else:                                   # the head changed shape: a fresh optimizer
            log(f"[feature {spec.name}] vocabulary {len(old_keep)} -> {len(keep)} tokens")
    elif (OUT / spec.name / "training.json").exists():
        state = from_export(draft, OUT / spec.name, keep)     # a new machine: no build/ checkpoint
    return draft, optim, keep, state["step"] if state else 0, state["elapsed"] if state else 0.0


def load_rows(draft, weights: dict, prefix: str, old_keep: list[int], keep: list[int]) -> None:
    """Load a state dict whose LM head covers `old_keep` into a draft over `keep`: rows carried
    by token (feature_vocab.carried_rows), everything else as saved."""
    weights = dict(weights)
    head = prefix + "model.embed_tokens.weight"
    table = draft.embed(torch.arange(draft.config.vocab_size)).detach()            # (V, H)
    weights[head] = carried_rows(weights[head].float(), old_keep, keep, table)
    weights.pop(prefix + "lm_head.weight", None)
    module = draft if prefix else draft.net
    missing, unexpected = module.load_state_dict(weights, strict=False)
    assert not unexpected and all("lm_head" in k for k in missing), (missing, unexpected)
    draft.net.tie_weights()


def from_export(draft, folder: Path, keep: list[int]) -> dict:
    """Continue from the committed weights (fp16, so within rounding) where no checkpoint is
    left; the optimizer starts afresh, the step count goes on from training.json."""
    from safetensors.torch import load_file

    from specdec.models.feature import FC_FILE
    net = head8.read_weights(folder) if head8.has_head(folder) else \
        {k: v.float() for k, v in load_file(str(folder / "model.safetensors")).items()}
    old_keep = json.loads((folder / "draft_vocab.json").read_text())["keep_ids"]
    load_rows(draft, net, "", old_keep, keep)
    draft.fc.weight.data.copy_(load_file(str(folder / FC_FILE))["weight"].float())
    stats = json.loads((folder / "training.json").read_text())
    log(f"[feature {folder.name}] no checkpoint: continuing from {folder} at step {stats['steps']}")
    return {"step": stats["steps"], "elapsed": stats["train_seconds"]}


def save_ckpt(spec, draft, optim, step: int, elapsed: float) -> None:
    path = ckpt_path(spec)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic.replacing(path) as tmp:            # a checkpoint cut short keeps the last one
        torch.save({"model": draft.state_dict(), "optim": optim.state_dict(), "step": step,
                    "elapsed": elapsed, "spec": asdict(spec), "keep_ids": draft.keep_ids.tolist()}, tmp)


def to_draft_map(keep: list[int]) -> np.ndarray:
    out = np.full(65536, len(keep), dtype=np.int64)
    out[keep] = np.arange(len(keep))
    return out


def train(spec: FeatureSpec) -> None:
    draft, optim, keep, step, elapsed = setup(spec)
    n, to_draft = len(keep), to_draft_map(keep)
    seqs, held = training_seqs(), load_seqs("gen", ["gen_0000"])
    pools = split(seqs)
    total = spec.steps
    log(f"[feature {spec.name}] {sum(p.numel() for p in draft.parameters()):,} params, vocab {n}, "
        f"{len(pools[0])} on-policy + {len(pools[1])} offline sequences, steps {step}->{total}, "
        f"held-out agreement {agreement(draft, held, to_draft, n):.3f}")
    t0 = time.perf_counter()
    while step < total:
        for group in optim.param_groups:
            group["lr"] = lr_at(step, total, spec.lr)
        rng = np.random.default_rng([SEED, step])
        picked = pick(pools, spec, rng)
        loss, ce, reg, ce_last = batch_loss(draft, make_batch(picked, spec, to_draft, n, rng, spec.noise),
                                            n, spec.feature_weight, spec.unroll)
        optim.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_([p for p in draft.parameters() if p.requires_grad], 1.0)
        optim.step()
        step += 1
        if step % LOG_EVERY == 0:
            log(f"[feature {spec.name}] step {step}/{total} ce {ce:.3f} reg {reg:.3f} "
                f"ce(pass {spec.unroll}) {ce_last:.3f} "
                f"elapsed {elapsed + time.perf_counter() - t0:.0f}s")
        if step % CKPT_EVERY == 0 or step == total:
            save_ckpt(spec, draft, optim, step, elapsed + time.perf_counter() - t0)
        if step % (CKPT_EVERY * 4) == 0:
            seqs = training_seqs()         # features.py may have written more shards
            pools = split(seqs)
            log(f"[feature {spec.name}] held-out agreement {agreement(draft, held, to_draft, n):.3f}")


def runs_file() -> Path:
    return ckpt_path(SPEC).with_name("gpu_runs.json")


def gpu_runs() -> list[dict]:
    """The GPU runs behind the checkpoint (build/), else behind the committed export (read from
    assets/ even when OUT points elsewhere, as scripts/train_kinds.sh's trial export does)."""
    if runs_file().exists():
        return json.loads(runs_file().read_text())
    committed = draft_2l.OUT / SPEC.name / "training.json"
    return json.loads(committed.read_text()).get("gpu_runs", []) if committed.exists() else []


def export(spec: FeatureSpec) -> Path:
    """Checkpoint -> assets/models/smollm2/<name>: fp16 net + fc, tokenizer, vocabulary."""
    from transformers import AutoTokenizer

    from specdec.models.feature import save_fc
    from specdec.models.gguf import converted_target
    draft, _, keep, step, elapsed = setup(spec)
    score = agreement(draft, load_seqs("gen", ["gen_0000"]), to_draft_map(keep), len(keep))
    dest = OUT / spec.name
    dest.mkdir(parents=True, exist_ok=True)
    draft.net.to(torch.float16).save_pretrained(dest)
    head8.split_head(dest)                   # the LM head in 8 bits: the drafts stay within 40 MB
    save_fc(draft.fc, dest)
    tokenizer = AutoTokenizer.from_pretrained(converted_target())
    tokenizer.save_pretrained(dest)
    atomic.write_text(dest / "draft_vocab.json", json.dumps(
        {"target_vocab_size": len(tokenizer), "keep_ids": [int(i) for i in keep],
         "reads": "target features"}))
    stats = {**asdict(spec), "kind": "feature draft (EAGLE)", "history": HISTORY, "steps": step,
             "train_seconds": round(elapsed), "positions_seen": int(step * spec.batch * spec.window),
             "held_out_agreement_teacher_forced": round(score, 4), "gpu_runs": gpu_runs()}
    atomic.write_text(dest / "training.json", json.dumps(stats, indent=1) + "\n")
    log(f"[feature {spec.name}] exported to {dest}: {stats}")
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m specdec.train.smollm2.feature_draft", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--export", action="store_true", help="write the checkpoint into assets/")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=SPEC.steps, help="the schedule's length")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    from dataclasses import replace
    (export if args.export else train)(replace(SPEC, steps=args.steps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
