"""Ranking quality against labelled answers (binary relevance), the usual IR definitions:

- reciprocal rank @n: 1 / rank of the first relevant passage in the top n, else 0 (MRR: its mean);
- nDCG@n: Σ_{i<=n} rel_i / log2(i + 1), divided by the same sum for the ideal order;
- recall@n: the share of the relevant passages found in the top n.
A ranking is a list of passage ids, best first.
"""
from __future__ import annotations

import math


def reciprocal_rank(ranking: list[str], relevant, n: int = 10) -> float:
    for i, pid in enumerate(ranking[:n], start=1):
        if pid in relevant:
            return 1.0 / i
    return 0.0


def ndcg(ranking: list[str], relevant, n: int = 10) -> float:
    gain = sum(1.0 / math.log2(i + 1) for i, pid in enumerate(ranking[:n], start=1) if pid in relevant)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(n, len(relevant)) + 1))
    return gain / ideal if ideal else 0.0


def recall(ranking: list[str], relevant, n: int) -> float:
    return len(set(ranking[:n]) & set(relevant)) / len(relevant) if relevant else 0.0


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0
