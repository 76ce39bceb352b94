"""The prices a measurement's runs paid beside this machine's profile, the one price set every prediction uses
(ui/lessons/payoff_paid.py): where the working names them, what they give, when they explain a gap, and the why
line beside a measurement (expected values worked out by hand in the comments)."""
from dataclasses import replace

import pytest
from test_payoff import PRICES

from specdec.bench import payoff
from specdec.records.provenance import Clock


def test_beside_a_measurement_the_prediction_keeps_the_profile_and_names_the_c_its_runs_paid():
    """One price set for every prediction (the pair card, the k sweep's chart and the sliders price at
    the profile too): the runs' own c only beside it, in the details."""
    found = payoff.Measured(0.8, 0.7, 0.9, 3, Clock.WALL, 3.0, "ksweep", 8, c=0.75)
    p = payoff.answer(4, PRICES, found)
    # 4 drafts at the profile's c = 0.5 and a pass of 2.0 steps: 4.0 steps for 3 tokens; at the runs'
    # c = 0.75: 5.0 steps, 0.6
    assert (p.c, p.paid_c, p.round_steps) == (0.5, 0.75, 4.0) and p.predicted == pytest.approx(0.75)
    assert p.at_paid == pytest.approx(0.6)
    from ui.lessons import payoff_working
    assert ("c and v: this machine's profile, as every prediction here. The measured runs paid c = 0.750 as they "
            "ran; at those prices, 0.60×.") in payoff_working.detail(p)
    alone = payoff.answer(4, PRICES, payoff.Measured(0.8, 0.7, 0.9, 3, Clock.WALL, 3.0, "ksweep", 8))
    assert alone.at_paid is None and "The measured runs paid" not in payoff_working.detail(alone)


def test_beside_a_measurement_the_pass_its_runs_paid_is_named_too():
    """A constant k's runs paid their own v(k + 1): said beside the profile's prediction; a priced
    policy's runs mix widths, so there only their c."""
    from ui.lessons import payoff_working
    found = payoff.Measured(0.8, 0.7, 0.9, 3, Clock.WALL, 3.0, "ksweep", 8, c=0.75, v=2.5)
    p = payoff.answer(4, PRICES, found)
    # the profile: 4 × 0.5 + 2.0 = 4.0 steps for 3 tokens; the runs': 4 × 0.75 + 2.5 = 5.5
    assert (p.v, p.paid_v, p.round_steps) == (2.0, 2.5, 4.0) and p.at_paid == pytest.approx(3 / 5.5)
    assert "The measured runs paid c = 0.750, v = 2.50 as they ran; at those prices, 0.55×." in payoff_working.detail(p)
    priced = payoff.answer(4, PRICES, found, priced_alpha=0.5)
    assert priced.v == PRICES.v[priced.k + 1] and priced.paid_v is None and priced.paid_c == 0.75


def test_a_measurement_outside_its_predictions_range_says_the_prices_its_runs_paid_in_the_open():
    from ui.lessons import payoff_words
    # the profile: 4 × 0.5 + 2.0 = 4.0 steps for 3 tokens, 0.75; the runs paid c = 0.25: 3.0 steps, 1.0
    far = payoff.answer(4, PRICES, payoff.Measured(0.95, 0.9, 1.0, 3, Clock.WALL, 3.0, "box", 8, c=0.25))
    assert payoff_words.why(far).endswith("Outside the range: its runs paid c = 0.250; at those, 1.00×. The sidebar's "
                                          "“Measure these prices again” (This machine) updates the profile.")
    near = payoff.answer(4, PRICES, payoff.Measured(0.77, 0.7, 0.8, 3, Clock.WALL, 3.0, "box", 8, c=0.25))
    assert "its runs paid" not in payoff_words.why(near)                     # within 5 % of 0.75
    banded = replace(far, band=payoff.Band(0.9, 1.3, 4))                      # 0.675–0.975: 0.95 lies inside
    assert "its runs paid" not in payoff_words.why(banded)


def test_a_gap_the_days_prices_do_not_explain_is_said_to_be_unexplained():
    """Review 14: the ⓘ said "the runs paid that day's prices" where those prices predicted further from
    the measurement than the profile did."""
    from specdec.trace.theory import Overheads
    from ui.lessons import payoff_working
    over = (Overheads(0.1, 0.2), Overheads(0.12, 0.05))
    # the profile predicts 0.78 (see the whole-run test); runs that paid c = 0.75 predict less:
    # (0.12 + 1 + 0.05) / (0.1 + (4 · 0.75 + 2.0 + 0.2) / 3) = 1.17 / 1.833 = 0.64
    dearer = payoff.answer(4, PRICES, payoff.Measured(0.85, 0.8, 0.9, 3, Clock.WALL, 3.0, "box", 8, c=0.75,
                                                      over=over))
    assert dearer.at_paid < dearer.predicted < 0.85
    assert "the prices these runs paid do not explain it (at those, 0.64×); the rest is unexplained here" in \
        payoff_working.detail(dearer)
    # runs that paid c = 0.4: 1.17 / (0.1 + 3.8 / 3) = 0.86, toward the measured 0.85: the prices say why
    cheaper = payoff.answer(4, PRICES, payoff.Measured(0.85, 0.8, 0.9, 3, Clock.WALL, 3.0, "box", 8, c=0.4,
                                                       over=over))
    assert "the runs' own draft and check costs (above) differ" in payoff_working.detail(cheaper)
    # review 15: runs that paid c = 0.25 predict 1.17 / (0.1 + 3.2 / 3) = 1.00, past the measured 0.85 by
    # more than the profile's 0.78 falls short: it lies between the two
    past = payoff.answer(4, PRICES, payoff.Measured(0.85, 0.8, 0.9, 3, Clock.WALL, 3.0, "box", 8, c=0.25,
                                                    over=over))
    assert past.predicted < 0.85 < past.at_paid and past.at_paid - 0.85 > 0.85 - past.predicted
    assert "it lies between the prediction at this machine's profile and the one at the prices these runs paid " \
           "(1.00×): those prices account for the gap, and more." in payoff_working.detail(past)


def test_runs_that_paid_a_c_far_off_the_profile_say_the_prices_may_have_moved():
    """Review 17: the profile's c (0.150) beside runs that paid 0.120, with nothing said in the box."""
    from ui.lessons import payoff_paid
    # the profile's c is 0.5 (PRICES); runs that paid 0.4 are 20 % off it, runs that paid 0.45 10 %
    far = payoff.answer(4, PRICES, payoff.Measured(0.95, 0.9, 1.0, 3, Clock.WALL, 3.0, "box", 8, c=0.4))
    assert payoff_paid.stale(far) == ("Its runs paid c = 0.400, the profile says 0.500: this machine's prices may "
                                       "have moved since they were measured.")
    near = payoff.answer(4, PRICES, payoff.Measured(0.95, 0.9, 1.0, 3, Clock.WALL, 3.0, "box", 8, c=0.45))
    assert payoff_paid.stale(near) == "" and payoff_paid.stale(payoff.answer(4, PRICES, None)) == ""


def test_a_measurement_near_the_profiles_prediction_names_the_prices_its_runs_paid_without_a_second_prediction():
    """Review 41: "at those prices, 0.92×" beside "Measured within two percent of the prediction" read as two
    predictions for one run; within 2% of the profile's, the runs' prices are named alone."""
    from ui.lessons import payoff_working
    found = payoff.Measured(0.75, 0.7, 0.8, 3, Clock.WALL, 3.0, "ksweep", 8, c=0.75)
    p = payoff.answer(4, PRICES, found)
    # the profile: 4 × 0.5 + 2.0 = 4.0 steps for 3 tokens, 0.75 (measured 0.75); the runs' c: 0.60
    assert p.raw == pytest.approx(0.75) and p.at_paid == pytest.approx(0.6)
    said = payoff_working.detail(p)
    assert "The measured runs paid c = 0.750 as they ran." in said and "at those prices" not in said
    assert "Measured within two percent of the prediction at this machine's prices (0.75×)." in said


def test_a_measured_figures_why_is_what_its_runs_paid():
    """Review 44: "0.91 steps a token, against 1" at the profile's prices beside a measured 0.96×; the runs had paid
    more. Beside a measurement whose runs kept c and v, the why line gives their round; the profile's stays in the
    working with the prediction."""
    from ui.lessons import payoff_words, payoff_working
    found = payoff.Measured(0.55, 0.5, 0.6, 3, Clock.WALL, 3.0, "ksweep", 8, c=0.75, v=2.5)
    p = payoff.answer(4, PRICES, found)
    # the runs: 4 × 0.75 + 2.5 = 5.5 steps for 3 tokens, 1.83 a token (the profile's 4.0, 1.33, in the working)
    assert payoff_words.why(p) == ("Why: these runs paid **5.50 steps** a round (1 step: the target alone making one "
                                   "token) and kept **3.00 tokens**: **1.83 steps a token**, against 1 for the target "
                                   "alone.")
    # the working names the profile's prices, not a second round total (review 49: 2.64 steps in the why line, 2.73
    # in the working)
    assert "4.00 steps" not in payoff_working.detail(p) and "5.50" not in payoff_working.detail(p)
    assert payoff_working.detail(p).startswith("The prediction prices a round at this machine's profile, as every "
                                               "prediction here: c = 0.500 and v(5) = 2.00. The round these runs paid "
                                               "is the why line's.")
    assert "| Rounds alone, at the profile's prices: 3.00 tokens a round | 0.75× |" in payoff_working.detail(p)
    priced = payoff.answer(4, PRICES, payoff.Measured(0.8, 0.7, 0.9, 3, Clock.WALL, 3.0, "ksweep", 8, c=0.75))
    assert payoff_working.detail(priced).startswith("A round:")         # the why line gave the profile's round itself
    # c alone (a priced policy's runs mix widths): the profile's round, as before
    assert payoff_words.why(payoff.answer(4, PRICES, payoff.Measured(0.8, 0.7, 0.9, 3, Clock.WALL, 3.0, "ksweep", 8,
                                                                     c=0.75))).startswith("Why: a round costs")
