"""Batches for the feature draft's training: the target's features and top-K per sequence
(written by specdec.train.smollm2.features), windows over them, and soft targets on the draft's
vocabulary. A batch is a pure function of (sequences, spec, rng).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

FEAT = Path("build/smollm2/feat")


@dataclass(frozen=True)
class FeatureSpec:
    name: str = "draft"          # under smollm2/
    init_layer: int = 29         # the target layer the draft's one layer starts from
    steps: int = 2800            # the schedule's length in optimizer steps
    lr: float = 1e-3
    batch: int = 8               # sequences per step
    window: int = 384            # positions per sequence (longer ones: a random window)
    feature_weight: float = 1.0  # loss = cross-entropy + feature_weight * smooth L1
    noise: float = 0.2           # uniform input noise on the features, +-noise
    unroll: int = 3              # training-time test: passes 2..unroll read the draft's own h
    on_policy: float = 0.75      # share of each batch from the target's own answers
    vocab: int = 12288           # the target's most written tokens (feature_vocab.py)


@dataclass(frozen=True)
class Seq:
    ids: np.ndarray              # (T,) s_0..s_{T-1}
    prompt_len: int
    feats: np.ndarray            # (T, H) float16, f_j
    top_ids: np.ndarray          # (T, K) the target's K likeliest next ids at j
    top_logprobs: np.ndarray     # (T, K)
    on_policy: bool


def load_seqs(source: str, names: list[str] | None = None) -> list[Seq]:
    out = []
    for path in sorted(FEAT.glob(f"{source}_*.npz")):
        if names is not None and path.stem not in names:
            continue
        d = dict(np.load(path))          # each array read once (an NpzFile re-reads on access)
        offsets = np.concatenate([[0], np.cumsum(d["lens"])])
        ids, top_ids = d["ids"].astype(np.int64), d["topk_ids"].astype(np.int64)
        top_lps = d["topk_logprobs"].astype(np.float32)
        for i, plen in enumerate(d["prompt_lens"]):
            s = slice(offsets[i], offsets[i + 1])
            out.append(Seq(ids[s], int(plen), d["feats"][s], top_ids[s], top_lps[s], source == "gen"))
    return out


def training_seqs() -> list[Seq]:
    gen = [p.stem for p in sorted(FEAT.glob("gen_*.npz"))][2:]      # shards 0 and 1 held out
    return load_seqs("gen", gen) + load_seqs("relabel")


def split(seqs: list[Seq]) -> tuple[list[Seq], list[Seq]]:
    """The target's own answers (what the draft will face) and offline text (volume)."""
    return [s for s in seqs if s.on_policy], [s for s in seqs if not s.on_policy]


def pick(pools: tuple[list[Seq], list[Seq]], spec: FeatureSpec, rng) -> list[Seq]:
    """A batch: spec.on_policy of it from the answers, the rest from offline text (either
    pool alone when the other is empty)."""
    on, off = pools
    n_on = spec.batch if not off else (0 if not on else round(spec.batch * spec.on_policy))
    return [on[rng.integers(len(on))] for _ in range(n_on)] + \
        [off[rng.integers(len(off))] for _ in range(spec.batch - n_on)]


def soft_targets(top_ids: np.ndarray, top_logprobs: np.ndarray, to_draft: np.ndarray,
                 n: int) -> torch.Tensor:
    """(M, N) the target's top-K probabilities on draft ids, renormalised."""
    ids = torch.from_numpy(to_draft[top_ids])                                  # (M, K)
    probs = torch.from_numpy(np.exp(top_logprobs)) * (ids < n)
    out = torch.zeros(len(ids), n + 1).scatter_add_(1, ids.clamp(max=n), probs)[:, :n]
    return out / out.sum(1, keepdim=True).clamp(min=1e-9)


def window_of(seq: Seq, width: int, rng) -> slice:
    """A window that contains answer positions (the whole sequence when it fits)."""
    if len(seq.ids) <= width:
        return slice(0, len(seq.ids))
    lo = max(0, min(seq.prompt_len - width // 2, len(seq.ids) - width))
    start = int(rng.integers(lo, len(seq.ids) - width + 1))
    return slice(start, start + width)


def make_batch(seqs: list[Seq], spec: FeatureSpec, to_draft, n: int, rng, noise: float):
    """Right-padded pairs: ids (B, W) = s_{j+1}, feats (B, W, H) = f_j (+ noise), mask, the
    trained (row, col) positions, their next features (M, H) and soft targets (M, N)."""
    cut = [window_of(s, spec.window + 1, rng) for s in seqs]
    width = max(c.stop - c.start for c in cut) - 1
    hidden = seqs[0].feats.shape[1]
    ids = np.zeros((len(seqs), width), dtype=np.int64)
    feats = np.zeros((len(seqs), width, hidden), dtype=np.float32)
    mask = np.zeros((len(seqs), width), dtype=np.int64)
    rows, cols, nxt, tid, tlp = [], [], [], [], []
    for b, (s, c) in enumerate(zip(seqs, cut)):
        t = c.stop - c.start - 1                          # pairs j = c.start .. c.stop - 2
        ids[b, :t], feats[b, :t], mask[b, :t] = s.ids[c.start + 1:c.stop], s.feats[c.start:c.stop - 1], 1
        first = max(0, s.prompt_len - 2 - c.start)        # h_j predicts s_{j+2}: answers from P
        js = np.arange(first, t - 1)                       # keep p_{j+1} for a real next token
        rows += [b] * len(js)
        cols += list(js)
        nxt.append(s.feats[c.start + 1 + js])
        tid.append(s.top_ids[c.start + 1 + js])
        tlp.append(s.top_logprobs[c.start + 1 + js])
    x = torch.from_numpy(feats)
    if noise:
        x = x + (torch.rand(x.shape, generator=torch.Generator().manual_seed(int(rng.integers(2**31))))
                 * 2 - 1) * noise
    return (torch.from_numpy(ids), x, torch.from_numpy(mask), torch.tensor(rows), torch.tensor(cols),
            torch.from_numpy(np.concatenate(nxt).astype(np.float32)),
            soft_targets(np.concatenate(tid), np.concatenate(tlp), to_draft, n))
