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


NEAR = 0.05         # a total variation under this: the bars sit near p, too close to see by eye


def gap_words(tv: float, correct: bool, pvalue: float, rounds: int) -> str:
    """The rule's exact distance to p, and what to look for in the chart: said from the distance (review 53:
    "notice how far the bars sit" under bars 0.022 apart, which sat on p)."""
    from specdec.wording import _
    said = _("Exact total variation between this rule's output and p: {tv:.4f} (0 means lossless).").format(tv=tv)
    if correct:
        return said + " " + _("The coloured bars sit on the grey p bars up to sampling noise: pick a wrong rule "
                              "above to see them leave.")
    if tv >= NEAR:
        return said + " " + _("Notice where this wrong rule's bars leave the grey p bars.")
    if pvalue < 0.01:
        return said + " " + _("Small for this p and q, so the bars sit near p to the eye; the fit test over {n} "
                              "rounds still tells them apart.").format(n=rounds)
    return said + " " + _("Small for this p and q: too close to p for the eye or for {n} rounds to show; the exact "
                          "distance is not 0.").format(n=rounds)
