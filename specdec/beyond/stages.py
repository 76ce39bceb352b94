"""The three stages over one set of passages, and one query through them.

cheap: BM25 (lexical.py) · middle: sentence embeddings (dense.py; absent when the model is not
installed) · expensive: the target as judge (judge.py). The first stage hands on a pool: its
top-n passages, ranked by BM25, by embeddings, or by both fused (reciprocal rank fusion,
Cormack et al. 2009: Σ 1 / (60 + rank)); the judge re-orders the pool.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from specdec.beyond.corpus import Passage
from specdec.beyond.lexical import Lexical

FIRST_STAGES = ("bm25", "dense", "hybrid")
RRF_K = 60


@dataclass
class Stages:
    passages: list[Passage]
    lexical: Lexical
    dense: object = None                  # dense.Dense, or None: no embedding stage
    vectors: np.ndarray | None = None     # (N, 384) passage vectors of `dense`
    ids: list[str] = field(init=False)

    def __post_init__(self):
        self.ids = [p.id for p in self.passages]

    @property
    def first_stages(self) -> tuple[str, ...]:
        return FIRST_STAGES if self.dense is not None else ("bm25",)


def build(passages: list[Passage], dense=None, store=None) -> Stages:
    """Index the passages for BM25, and embed them when a dense model is given."""
    from specdec.beyond.dense import passage_vectors
    texts = [p.body for p in passages]
    vectors = passage_vectors(dense, texts, store) if dense is not None else None
    return Stages(passages, Lexical(texts), dense, vectors)


@dataclass(frozen=True)
class Cheap:
    """One query's first-stage results: rankings (passage indices, best first) and scores."""
    rankings: dict            # stage name -> (N,) indices, best first
    scores: dict              # stage name -> (N,) scores
    ms: dict                  # "bm25" | "dense" -> ms this query took there


def order(scores: np.ndarray) -> np.ndarray:
    """Indices by score, best first; ties keep corpus order."""
    return np.argsort(-scores, kind="stable")


def fuse(rankings: list[np.ndarray], size: int) -> np.ndarray:
    """(N,) reciprocal-rank-fusion scores of several rankings of the same N passages."""
    fused = np.zeros(size, dtype=np.float64)
    for ranking in rankings:
        fused[ranking] += 1.0 / (RRF_K + np.arange(1, size + 1))
    return fused


def cheap(stages: Stages, query: str) -> Cheap:
    t0 = time.perf_counter()
    scores = {"bm25": stages.lexical.scores(query)}
    ms = {"bm25": (time.perf_counter() - t0) * 1e3}
    if stages.dense is not None:
        t0 = time.perf_counter()
        scores["dense"] = stages.dense.scores(query, stages.vectors)
        ms["dense"] = (time.perf_counter() - t0) * 1e3
    rankings = {name: order(s) for name, s in scores.items()}
    if stages.dense is not None:
        scores["hybrid"] = fuse([rankings["bm25"], rankings["dense"]], len(stages.passages))
        rankings["hybrid"] = order(scores["hybrid"])
    return Cheap(rankings, scores, ms)


def margin(scores: np.ndarray, ranking: np.ndarray) -> float:
    """How sure the first stage is of its top passage: 1 − s₂ / s₁, clipped to [0, 1] (0: a tie,
    or nothing found; toward 1: the top passage stands alone; a cosine s₂ below 0 gives 1)."""
    s1, s2 = float(scores[ranking[0]]), float(scores[ranking[1]]) if len(ranking) > 1 else 0.0
    return 0.0 if s1 <= 0 else max(0.0, min(1.0, 1.0 - s2 / s1))


def first_margin(c: Cheap, first: str) -> float:
    return margin(c.scores[first], c.rankings[first])
