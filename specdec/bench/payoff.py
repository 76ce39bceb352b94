"""Does speculation pay here? One answer for a pair and its settings on this machine (issue 51,
deliverable 2).

The answer holds the speedup measured on this machine (the newest figure a lesson filed for the
settings: its median over interleaved repeats and their range), one prediction beside it from this
machine's prices (machine.py), and the three numbers that say why: a round drafts k tokens at c
target steps each, verifies them in one pass of v(k + 1) steps, and keeps `tokens` of them; the
prediction is that arithmetic, tokens / (k·c + v(k + 1)) (Leviathan et al. 2023, Theorem 3.8 with
the measured pass), for a whole run where what runs at these settings paid besides their rounds is
known (reading the prompt, the bookkeeping between passes: theory.run_speedup): rounds alone
under-predict a run that pays less than the target alone, since the prompt's pass costs both modes
the same and pulls a ratio toward 1. Where three or more measurements of this machine (or shipped from
its CPU model) say how runs land against their own predictions (`Band`), the prediction is moved to their
median and given their range (`Payoff.calibrated`; the profile's own price stays as `priced`). Home, Step
through, When it is fast and Drafters compared show this one record, so they state one figure.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from typing import NamedTuple

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
    all_here: tuple[float, ...] = ()    # every figure filed here at these settings (this one too), newest first
    c: float | None = None               # the draft step these runs paid (a step of the plain runs = 1)
    acceptance_rate: float | None = None  # accepted ÷ drafted in these runs
    alpha: float | None = None           # their α̂ (mean β)
    v: float | None = None               # a pass of k + 1 tokens as these runs paid it
    at: float | None = None              # when it was filed (seconds since the epoch)
    over: tuple[Overheads, Overheads] | None = None   # what its speculative and plain runs paid besides rounds
    cpu: str | None = None               # shipped from a machine of this CPU model (None: measured on this one)
    date: str | None = None              # the day a shipped one was measured
    load: float | None = None            # the machine's load per core while it ran (1: every core busy)
    wall: float | None = None            # the same runs' speedup on the wall clock (beside a CPU-time figure)


class Elsewhere(NamedTuple):
    """Acceptance measured elsewhere, for the tokens a round the prediction uses."""
    tokens: float | None         # tokens a round
    speedup: float | None        # its speedup there (another machine's prices: it does not travel)
    cpu: str                     # where it was measured
    on: str = ""                 # which prompts, in words
    over: tuple[Overheads, Overheads] | None = None   # what its runs paid besides rounds, in their steps
    low: float | None = None     # its repeats' range, where it kept one
    high: float | None = None
    date: str | None = None      # the day it was measured


class Band(NamedTuple):
    """How measurements on this machine fell against their own predictions (each priced as the box
    prices: the profile, the tokens they kept, what they paid besides their rounds)."""
    low: float                   # the lowest measured ÷ predicted
    high: float                  # the highest
    n: int                       # measurements behind it
    shipped: int = 0             # of them, points shipped from a machine of this CPU model
    mid: float = 1.0             # their median: where a measurement typically lands against its prediction
    at_k: tuple[tuple[int, float], ...] = ()    # (k, the median of the measurements at that k), where kept
    counts: tuple[tuple[int, int, int], ...] = ()   # (k, measurements at that k, of them shipped from one like it)

    def count_at(self, k: int) -> tuple[int, int]:
        """(measurements at `k`, of them shipped from a machine like this one); (0, 0) where none."""
        return next(((n, shipped) for j, n, shipped in self.counts if j == k), (0, 0))

    def mid_for(self, k: int) -> tuple[float, bool]:
        """Where a measurement at `k` typically lands: the median of those measured at that k (True), else of all
        (False). The profile misprices wide passes more than narrow ones (review 23: every k's median moved
        k = 1's prediction to 1.16× where k = 1 measured 1.08×)."""
        found = dict(self.at_k).get(k)
        return (self.mid, False) if found is None else (found, True)


def band(pairs: list[tuple], least: int = 3, shipped: int = 0) -> Band | None:
    """The range and median of measured ÷ predicted over (measured, predicted[, k]) tuples, the last
    `shipped` of them shipped from a machine like this one, with each k's own median where given; None
    with fewer than `least`."""
    first_shipped = len(pairs) - shipped
    kept = [(t[0] / t[1], t[2] if len(t) > 2 else None, i >= first_shipped) for i, t in enumerate(pairs)
            if t[0] and t[1]]
    if len(kept) < least:
        return None
    ratios, ks = [r for r, _k, _s in kept], sorted({k for _r, k, _s in kept if k is not None})
    at_k = tuple((k, statistics.median(r for r, j, _s in kept if j == k)) for k in ks)
    counts = tuple((k, sum(j == k for _r, j, _s in kept), sum(j == k and s for _r, j, s in kept)) for k in ks)
    return Band(min(ratios), max(ratios), len(ratios), sum(s for _r, _k, s in kept), statistics.median(ratios), at_k,
                counts)


@dataclass(frozen=True)
class Payoff:
    k: int
    measured: Measured | None            # None: not measured on this machine at these settings
    tokens: float | None                 # tokens a round the prediction uses
    tokens_from: str                     # "here", or the CPU whose measurement gave them (acceptance travels)
    c: float | None                      # this machine's profile: every prediction's one price set
    v: float | None                      # v(k + 1): this machine's profile
    predicted: float | None              # the whole run (or the rounds alone) at these prices (theory.run_speedup)
    alpha: float | None = None           # the α the priced policy's prediction drafted at (None: not priced)
    paid_c: float | None = None          # the c the measured runs paid (None: no measurement, or none kept)
    paid_v: float | None = None          # the v(k + 1) they paid (None: none, or a priced policy's mixed widths)
    tokens_on: str = ""                  # which prompts the travelled tokens a round were measured on, in words
    over: tuple[Overheads, Overheads] | None = None   # the prompt's reading and bookkeeping the prediction adds
    elsewhere: Elsewhere | None = None   # the measurement elsewhere the tokens came from (its speedup: for comparison)
    band: Band | None = None             # how earlier measurements here fell against their predictions
    over_on: str = ""                    # whose runs paid `over`, in words ("": the measured runs, or none)
    picked: bool = False                 # k picked by this machine's prices (the priced policy), not asked
    priced: float | None = None          # the profile's own price where `predicted` is calibrated (`calibrated`)
    constant: bool = False               # `measured` ran a constant k: the one a priced policy picks here

    @property
    def raw(self) -> float | None:
        """The prediction at the profile's prices alone, before calibration."""
        return self.predicted if self.priced is None else self.priced

    @property
    def likely(self) -> tuple[float, float] | None:
        """Where measurements here land around the prediction: the profile's price × the band's range, that
        range carried about this k's own median where the prediction moves by it (review 45: "Predicted
        1.03× (where runs here land: 1.03–1.12×)", k = 1's runs landing lowest of every k's)."""
        if self.band is None or self.raw is None:
            return None
        centre = self.raw * self.landing()[0]
        return centre * self.band.low / self.band.mid, centre * self.band.high / self.band.mid

    def calibrated(self) -> "Payoff":
        """The prediction moved to where measurements here typically land against theirs (the profile's
        price × the band's median at this k, else over every k), so it lies inside its range; the price
        itself kept as `priced`."""
        if self.band is None or self.predicted is None or self.priced is not None:
            return self
        return replace(self, priced=self.predicted, predicted=self.predicted * self.landing()[0])

    def landing(self) -> tuple[float, bool]:
        """The band's median the prediction is moved by, and whether it is this k's own: a figure measured at
        these settings keeps every k's (this k's median would hold that very measurement, and the prediction
        beside it would only repeat it)."""
        if self.band is None:
            return 1.0, False
        return self.band.mid_for(self.k) if self.measured is None else (self.band.mid, False)

    @property
    def at_paid(self) -> float | None:
        """The same prediction at the prices the measured runs paid (their c, and their v where kept):
        how much of the gap to the measurement the day's prices explain (None: no such runs)."""
        if self.paid_c is None and self.paid_v is None or not self.tokens or self.c is None or self.v is None:
            return None
        c, v = self.paid_c or self.c, self.paid_v or self.v
        return run_speedup(self.tokens, self.k, c, v, *(self.over or ()))

    @property
    def rounds_only(self) -> float | None:
        """The rounds alone at these prices: tokens / (k·c + v(k + 1)), Theorem 3.8's price."""
        return None if self.tokens is None or not self.round_steps else self.tokens / self.round_steps

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
           typical: tuple | Elsewhere | None = None,
           priced_alpha: float | None = None, over: tuple[Overheads, Overheads] | None = None,
           over_on: str = "") -> Payoff:
    """The answer at draft length k from this machine's `prices` (None: not profiled, or no c
    for this drafter), its `measured` figure and `typical` (an `Elsewhere`, or a tuple of its fields)
    of a measurement elsewhere, used for the tokens a round only when none was measured here (its
    speedup does not travel: another machine's prices made it).
    `priced_alpha`: the run drafts as the priced policy does (models/prices.py), up to k, with
    drafts accepted at this α: the prediction prices the k it picks and eq. (1)'s tokens there (the
    measured runs' tokens a round mix the k each round picked: they are not one k's).
    Every prediction prices at this machine's profile, the one price set every page predicts with (a
    pair card's row, the k sweep's chart, the theory's sliders); the c and v(k + 1) a measurement's runs
    paid are kept beside it (`at_paid`; a run of the priced policy mixes widths, so there only its c).
    It prices the whole run with what the measured runs (else the elsewhere ones, else `over`) paid
    besides their rounds, in their steps, where known (`over_on`: whose runs paid `over`, in words)."""
    tokens, source = (measured.tokens, "here") if measured and measured.tokens else (None, "")
    elsewhere = Elsewhere(*typical) if typical else None
    on = elsewhere.on if elsewhere else ""
    if tokens is None and elsewhere and elsewhere.tokens:
        tokens, source = elsewhere.tokens, elsewhere.cpu
    if priced_alpha is not None and prices is not None:
        k = best_k(prices, priced_alpha, k)
        tokens, source = tokens_a_round(priced_alpha, k), source or "here"
    if prices is None or k + 1 not in prices.v:
        return Payoff(k, measured, tokens, source, None, None, None, priced_alpha if prices is not None else None,
                      tokens_on=on, elsewhere=elsewhere, picked=priced_alpha is not None and prices is not None)
    c, v = prices.c, prices.v[k + 1]
    paid_c = measured.c if measured and measured.c else None
    paid_v = measured.v if measured and measured.v and priced_alpha is None else None
    if measured and measured.over:
        over, over_on = measured.over, ""
    elif elsewhere and elsewhere.over:
        over, over_on = elsewhere.over, on
    predicted = run_speedup(tokens, k, c, v, *(over or ())) if tokens else None
    return Payoff(k, measured, tokens, source, c, v, predicted, priced_alpha, paid_c, paid_v, tokens_on=on,
                  over=over, elsewhere=elsewhere, over_on=over_on, picked=priced_alpha is not None)
