"""The box's "In short": every k's runs at one T, the best by the box's rule and the next (review 33)."""
from ui.lessons.bottom_line import Run, bottom_line, ranked, restates


def test_the_best_k_by_its_runs_median_with_the_range_of_all_its_runs():
    # k = 1: a shipped run 1.08 (1.03–1.10) and one here 1.02 (1.01–1.04): median 1.05, range 1.01–1.10
    runs = {1: [Run(1.08, 1.03, 1.10), Run(1.02, 1.01, 1.04)], 2: [Run(1.03, 0.99, 1.05)], 4: [Run(0.73, 0.68, 0.74)]}
    said = bottom_line(0.7, runs)
    assert said == ("**In short**, at T = 0.7 on this machine the best is k = 1: a little, under 10% (2 runs, "
                    "1.08× and 1.02×; 1.01–1.10× over the prompts). Next: k = 2, 1.03×."), said


def test_a_best_whose_range_holds_one_is_break_even_and_none_that_reaches_one_pays_nothing():
    even = bottom_line(0.0, {1: [Run(1.07, 0.93, 1.10)], 2: [Run(0.96, 0.9, 1.0)]})
    assert even.startswith("**In short**, at T = 0 on this machine: no k pays clearly; the nearest, k = 1: one run, "
                           "1.07× (0.93–1.10× over the prompts).")          # review 38: not "the best is … break-even"
    none = bottom_line(0.7, {4: [Run(0.73, 0.68, 0.74)], 8: [Run(0.5, 0.45, 0.55)]})
    assert none == ("**In short**, at T = 0.7 on this machine: no k pays; the best, k = 4: one run, 0.73× (0.68–0.74× "
                    "over the prompts). Next: k = 8, 0.50×.")
    assert bottom_line(0.7, {}) is None and bottom_line(0.7, {1: []}) is None
    assert bottom_line(0.7, {2: [Run(1.2, 1.12, 1.3)]}).startswith(
        "**In short**, at T = 0.7 on this machine the best is k = 2: it pays (one run, 1.20×")     # one k: no "Next"


def test_the_k_the_prices_pick_is_named_and_a_lone_run_the_verdict_states_is_not_repeated():
    runs = {1: [Run(1.08, 1.03, 1.10)], 4: [Run(0.73, 0.68, 0.74)]}
    assert bottom_line(0.7, runs, picked=1).startswith(
        "**In short**, at T = 0.7 on this machine: no k pays clearly; the nearest, k = 1, the k this machine's prices "
        "pick: one run, 1.08×")                                  # one run's gain under 10%: no more than noise
    assert "prices pick" not in bottom_line(0.7, runs, picked=2)
    assert not restates(runs, 4) and not restates(runs, None)   # the verdict's k = 4 is not the best: In short
    assert restates(runs, 1)                                    # the verdict states k = 1's one run: once is enough
    assert not restates({1: [Run(1.08, 1.03, 1.10), Run(1.0, 0.98, 1.02)]}, 1)   # two runs: In short names each
    assert ranked({1: [Run(1.0, 1, 1)], 2: [Run(1.03, 1, 1.1)], 3: []}) == [2, 1]


def test_runs_from_here_and_from_a_machine_like_this_one_are_named_by_where_they_ran():
    mixed = {1: [Run(1.08, 1.03, 1.10, here=False), Run(1.03, 1.00, 1.06)]}
    assert "(2 runs, 1.08× on a machine like this one and 1.03× here; 1.00–1.10× over the prompts)" in \
        bottom_line(0.7, mixed), bottom_line(0.7, mixed)
    alike = {1: [Run(1.08, 1.03, 1.10, here=False), Run(1.02, 1.01, 1.06, here=False)]}
    assert "(2 runs, 1.08× and 1.02×;" in bottom_line(0.7, alike)          # one origin: said once
    assert bottom_line(0.7, alike).startswith("**In short**, at T = 0.7 on a machine like this one the best is k = 1")


def test_one_ks_runs_in_a_few_words_weigh_them_as_in_short_does():
    """The sidebar's "at k = 1" (review 37: its newest run's "Break-even, within 3%, 1.01×" beside In short's
    "a little" for the same k): the runs' median and range by the box's rule, each run named."""
    from ui.lessons.bottom_line import k_words
    two = [Run(1.08, 1.03, 1.10), Run(1.01, 1.00, 1.03)]                 # median 1.045, all above 1: a little
    assert k_words(1, two) == "at k = 1: A little, under 10% (2 runs, 1.08× and 1.01×)"
    assert k_words(1, two[1:]) == "at k = 1: Break-even, within 3% of the target alone (one run, 1.01×)"
