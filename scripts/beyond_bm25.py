"""bm25s or rank-bm25 for the cheap stage? Same words (lexical.words, stemmed, stop words out),
both libraries' BM25 (Okapi, k1 = 1.5, b = 0.75), the whole corpus, the development queries:
time to index, ms per query, MRR@10 and recall@20 of each.

    PYTHONPATH=. .venv/bin/python scripts/beyond_bm25.py
"""
from __future__ import annotations

import time

import bm25s
import numpy as np
import Stemmer
from rank_bm25 import BM25Okapi

from specdec.beyond import corpus, metrics, queries
from specdec.beyond.lexical import WORD

STEM = Stemmer.Stemmer("english")
STOP = set(bm25s.stopwords.STOPWORDS_EN)


def tokens(text: str) -> list[str]:
    return STEM.stemWords([w for w in WORD.findall(text.lower()) if w not in STOP])


def measure(name: str, build, score, passages, qs) -> None:
    t0 = time.perf_counter()
    index = build([tokens(p.body) for p in passages])
    built = time.perf_counter() - t0
    rr, rec, t0 = [], [], time.perf_counter()
    for q in qs:
        order = np.argsort(-score(index, tokens(q.text["en"])), kind="stable")[:20]
        ranking = [passages[i].id for i in order]
        rr.append(metrics.reciprocal_rank(ranking, q.answers))
        rec.append(metrics.recall(ranking, q.answers, 20))
    ms = (time.perf_counter() - t0) * 1e3 / len(qs)
    print(f"{name:10s} index {built:5.2f} s   {ms:6.2f} ms/query   "
          f"MRR@10 {np.mean(rr):.3f}   recall@20 {np.mean(rec):.3f}")


def bm25s_index(docs):
    index = bm25s.BM25(k1=1.5, b=0.75)
    index.index(_ids(index, docs),
                show_progress=False)
    return index


def _ids(index, docs):
    vocab = {w: i for i, w in enumerate(sorted({w for d in docs for w in d}))}
    index.words = vocab
    return bm25s.tokenization.Tokenized(ids=[[vocab[w] for w in d] for d in docs], vocab=vocab)


def bm25s_score(index, words):
    return index.get_scores([w for w in words if w in index.words])


if __name__ == "__main__":
    passages, qs = corpus.load(), queries.load(split="dev")
    print(f"{len(passages)} passages, {len(qs)} development queries (English)")
    measure("bm25s", bm25s_index, bm25s_score, passages, qs)
    measure("rank-bm25", lambda docs: BM25Okapi(docs, k1=1.5, b=0.75), lambda ix, w: ix.get_scores(w), passages, qs)
