"""Goodness-of-fit helper for the losslessness tests."""
from __future__ import annotations

from collections import Counter

import numpy as np
from scipy.stats import chisquare


def chi2_pvalue(samples: list, expected: dict) -> float:
    """Pearson chi-square of sample counts against exact probabilities.

    Cells with an expected count below 5 are pooled into one cell so the test is valid.
    A sample outside the support of `expected` gets p-value 0.
    """
    n = len(samples)
    counts = Counter(samples)
    if any(s not in expected or expected[s] == 0 for s in counts):
        return 0.0
    big = [c for c, p in expected.items() if p * n >= 5]
    small = [c for c, p in expected.items() if 0 < p * n < 5]
    obs = [counts[c] for c in big]
    exp = [expected[c] * n for c in big]
    if sum(expected[c] for c in small) * n >= 1:
        obs.append(sum(counts[c] for c in small))
        exp.append(sum(expected[c] for c in small) * n)
    exp = np.array(exp) * (sum(obs) / sum(exp))   # renormalise float error
    return float(chisquare(obs, exp).pvalue)
