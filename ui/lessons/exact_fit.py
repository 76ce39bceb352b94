"""Goodness of fit of sampled tokens against exact probabilities (Pearson chi-square)."""
from __future__ import annotations

from collections import Counter

import numpy as np
from scipy.stats import chisquare


def chi2_pvalue(samples: list, expected: dict) -> float:
    """p-value of the sample counts under `expected` (token -> probability).

    Cells with an expected count below 5 are pooled so the test is valid; a sample
    outside the support of `expected` gives p-value 0.
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
    if len(obs) < 2:
        return 1.0
    exp = np.array(exp) * (sum(obs) / sum(exp))   # renormalise float error
    return float(chisquare(obs, exp).pvalue)


def in_words(pvalue: float) -> str:
    from specdec.wording import _
    if pvalue < 1e-6:
        return _("p-value {p:.1e}: essentially impossible if the tokens came from p — this rule "
                 "does **not** sample from the target.").format(p=pvalue)
    if pvalue < 0.01:
        return _("p-value {p:.3g}: unlikely under p — suspicious.").format(p=pvalue)
    return _("p-value {p:.2f}: the counts look just like exact sampling from p (differences are "
             "sampling noise).").format(p=pvalue)
