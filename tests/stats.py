"""The tests' goodness-of-fit check (the same Pearson chi-square the lesson page shows)."""
from ui.lessons.exact_fit import chi2_pvalue  # noqa: F401
