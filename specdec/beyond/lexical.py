"""The cheap stage: BM25 over the passages (bm25s, Lù 2024: scores precomputed into a sparse
matrix at indexing, so a query is a sum of a few rows). Chosen over rank-bm25 by measurement:
scripts/beyond_bm25.py times both and compares their rankings on the development queries.

Words: lower-cased runs of letters and digits, dotted and snake-case names split into parts as
well (`os.path.join` -> os, path, join), English stop words dropped, Snowball-stemmed.
"""
from __future__ import annotations

import re

import numpy as np

WORD = re.compile(r"[^\W_]+", re.UNICODE)


def words(text: str) -> list[str]:
    """`read_csv` and `os.path.join` give their parts; Korean words stay whole."""
    return WORD.findall(text.lower())


class Lexical:
    """A BM25 index of passage texts; `scores(query)` is (N,) float32, one per passage."""

    def __init__(self, texts: list[str]):
        import bm25s
        import Stemmer
        self.stemmer = Stemmer.Stemmer("english")
        self.index = bm25s.BM25()
        self.index.index(self._tokens(texts), show_progress=False)
        self.size = len(texts)

    def _tokens(self, texts: list[str]):
        import bm25s
        return bm25s.tokenize(texts, stopwords="en", stemmer=self.stemmer, show_progress=False,
                              token_pattern=WORD.pattern)

    def scores(self, query: str) -> np.ndarray:
        import bm25s
        tokens = bm25s.tokenize([query], stopwords="en", stemmer=self.stemmer, show_progress=False,
                                token_pattern=WORD.pattern, return_ids=False)[0]
        known = [t for t in tokens if t in self.index.vocab_dict]
        if not known:
            return np.zeros(self.size, dtype=np.float32)            # (N,)
        return self.index.get_scores(known).astype(np.float32)    # (N,)
