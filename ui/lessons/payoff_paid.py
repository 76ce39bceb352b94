"""Does it pay here? The prices a measurement's runs paid beside this machine's profile, the one price
set every prediction uses (review 12): what they were, what the prediction gives at them, whether they
explain the gap, and when they say the profile may be stale (ui/lessons/payoff_words.py uses them)."""
from __future__ import annotations

from specdec.bench.payoff import Payoff
from specdec.wording import N_, _, times


def off(p: Payoff) -> str:
    """Where the measurement lies outside the prediction's range (±5 % without one), in the open: the
    prices its runs paid, and what they give (the profile may be stale: the sidebar measures it again)."""
    m, prices = p.measured, paid_prices(p)
    if m is None or m.cpu is not None or p.at_paid is None or not prices:    # a machine like this one: its day
        return ""
    low, high = p.likely or (0.95 * p.raw, 1.05 * p.raw)
    if low <= m.speedup <= high:
        return ""
    return " " + _("Outside the range: its runs paid {paid}; at those, {x}. The sidebar's “Measure these prices "
                   "again” (This machine) updates the profile.").format(paid=prices, x=times(p.at_paid))


SPREAD = N_(": the runs' own draft and check costs (above) differ from this machine's profile, which the prediction "
            "uses.")


def spread(p: Payoff) -> str:
    """Why a whole-run prediction misses: the day's prices where they bring it closer to the measurement;
    where they move it past the measurement by more than the gap, that it lies between the two; else,
    said plainly, that they do not explain it (each mode's timings move with the machine's load)."""
    m, at = p.measured.speedup, p.at_paid
    if at is None or abs(m - at) < abs(m - p.raw):
        return _(SPREAD)
    if min(p.raw, at) <= m <= max(p.raw, at):
        return _(": it lies between the prediction at this machine's profile and the one at the prices these runs "
                 "paid ({x}): those prices account for the gap, and more.").format(x=times(at))
    return _(": the prices these runs paid do not explain it (at those, {x}); the rest is unexplained here: "
             "the two modes' timings move with the machine's load.").format(x=times(at))


def paid(p: Payoff) -> str:
    """The one price set (this machine's profile), and the prices the measured runs paid beside it; what the
    prediction gives at those only where the measurement lies off the profile's (review 41: "at those prices,
    0.92×" read as a second prediction beside a measurement "within two percent" of the first)."""
    said = _("c and v: this machine's profile, as every prediction here.")
    if p.at_paid is None:
        return said
    if close(p):
        return said + " " + _("The measured runs paid {paid} as they ran.").format(paid=paid_prices(p))
    return said + " " + _("The measured runs paid {paid} as they ran; at those prices, {x}.").format(
        paid=paid_prices(p), x=times(p.at_paid))


CLOSE = 0.02       # a measurement this near the profile's prediction needs no other prices to explain it


def close(p: Payoff) -> bool:
    """Whether the measurement lies within CLOSE of the prediction at this machine's profile."""
    return p.measured is not None and bool(p.raw) and abs(p.measured.speedup / p.raw - 1) < CLOSE


STALE = 0.15        # the measured runs' c off the profile's by this share: the profile may be stale


def stale(p: Payoff) -> str:
    """Where the measured runs paid a c more than STALE off the profile's, a line that says so ('' else):
    every prediction prices at the profile, so a stale one moves them all."""
    if p.measured is None or p.measured.cpu is not None or p.paid_c is None or not p.c \
            or abs(p.paid_c / p.c - 1) <= STALE:                          # another machine's c says nothing here
        return ""
    return _("Its runs paid c = {paid:.3f}, the profile says {c:.3f}: this machine's prices may have moved since "
             "they were measured.").format(paid=p.paid_c, c=p.c)


def paid_prices(p: Payoff) -> str:
    """'c = 0.104, v = 1.92': what the measured runs paid ('' without them)."""
    if p.paid_c is not None and p.paid_v is not None:
        return _("c = {c:.3f}, v = {v:.2f}").format(c=p.paid_c, v=p.paid_v)
    if p.paid_c is not None:
        return _("c = {c:.3f}").format(c=p.paid_c)
    return "" if p.paid_v is None else _("v = {v:.2f}").format(v=p.paid_v)
