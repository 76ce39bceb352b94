"""Does speculation pay here? One answer for a pair and its settings on this machine (issue 51,
deliverable 2).

The answer holds the speedup measured on this machine (the newest figure a lesson filed for the
settings: its median over interleaved repeats and their range), the whole run predicted beside it
from this machine's profile (machine.py), and the three numbers that say why: a round drafts k
tokens at c target steps each, verifies them in one pass of v(k + 1) steps, and keeps `tokens`
of them (Leviathan et al. 2023, Theorem 3.8 with the measured pass; theory.run_speedup adds what
a whole run pays besides its rounds where the measurement recorded it). Home, Step through, When
it is fast and Drafters compared show this one record, so they state one figure.
"""
from __future__ import annotations

from dataclasses import dataclass

from specdec.models.prices import Prices, best_k, tokens_a_round
from specdec.records.provenance import Clock
from specdec.trace.theory import Overheads, run_speedup


@dataclass(frozen=True)
class Measured:
    """A speed figure measured on this machine at the settings asked about."""
    speedup: float               # median over repeats, on `clock`
    low: float                   # the repeats' range
    high: float
    repeats: int | None          # None: a record that did not keep its count
    clock: Clock
    tokens: float | None         # tokens a round (mean acceptance length)
    source: str                  # the section that measured it ("ksweep", "tradeoff", "drafters", ...)
    prompts: int                 # how many prompts it ran
    spec: Overheads | None = None    # what the runs paid besides their rounds, where recorded
    base: Overheads | None = None
    all_here: tuple[float, ...] = ()    # every figure filed here at these settings (this one too), newest first
    c: float | None = None               # the draft step these runs paid (a step of the plain runs = 1)


@dataclass(frozen=True)
class Payoff:
    k: int
    measured: Measured | None            # None: not measured on this machine at these settings
    tokens: float | None                 # tokens a round the prediction uses
    tokens_from: str                     # "here", or the CPU whose measurement gave them (acceptance travels)
    c: float | None                      # from this machine's profile
    v: float | None                      # v(k + 1), from this machine's profile
    predicted: float | None              # the whole run, predicted
    alpha: float | None = None           # the α the priced policy's prediction drafted at (None: not priced)

    @property
    def round_steps(self) -> float | None:
        """What a round costs here, in target steps: k·c + v(k + 1)."""
        return None if self.c is None or self.v is None else self.k * self.c + self.v

    @property
    def pays(self) -> bool | None:
        """The measured answer where there is one, else the prediction's; None without either."""
        figure = self.measured.speedup if self.measured else self.predicted
        return None if figure is None else figure > 1.0


def answer(k: int, prices: Prices | None, measured: Measured | None,
           typical: tuple[float | None, float | None, str] | None = None,
           priced_alpha: float | None = None) -> Payoff:
    """The answer at draft length k from this machine's `prices` (None: not profiled, or no c
    for this drafter), its `measured` figure and `typical` = (tokens a round, speedup, CPU) of a
    measurement elsewhere, used for the tokens a round only when none was measured here (its
    speedup does not travel: another machine's prices made it).
    `priced_alpha`: the run drafts as the priced policy does (models/prices.py), up to k, with
    drafts accepted at this α: the prediction prices the k it picks and eq. (1)'s tokens there."""
    tokens, source = (measured.tokens, "here") if measured and measured.tokens else (None, "")
    if tokens is None and typical and typical[0]:
        tokens, source = typical[0], typical[2]
    if priced_alpha is not None and prices is not None:
        k = best_k(prices, priced_alpha, k)
        tokens, source = tokens_a_round(priced_alpha, k), source or "here"
    c = v = predicted = None
    if prices is not None and k + 1 in prices.v:
        c, v = prices.c, prices.v[k + 1]
        if tokens:
            spec, base = (measured.spec, measured.base) if measured and measured.spec and measured.base \
                else (Overheads(), Overheads())
            predicted = run_speedup(tokens, k, c, v, spec, base)
    return Payoff(k, measured, tokens, source, c, v, predicted, priced_alpha if prices is not None else None)
