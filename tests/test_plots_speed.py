"""When it is fast's figures and the speed charts of Drafters compared and Where it works: the theorem beside the
measured speedups, which points are whose, the learner's k, and axes that keep acceptance and speedup apart."""
import pytest


def test_acceptance_and_speedup_get_separate_axes_and_labels_clear_the_break_even_line():
    from specdec.bench.compared import DrafterPoint
    from specdec.bench.where import KindPoint
    from ui.figures.drafters import drafters_figure
    from ui.figures.where import kind_figure
    rows = [KindPoint("code", 2, 0.62, 2.0, 1.8, 1.7, 1.9, (0.6,), (1, 1)),
            KindPoint("prose", 2, 0.31, 1.4, 0.97, 0.9, 1.0, (0.3,), (1, 1))]
    fig = kind_figure(rows)
    acc, speed = fig.data
    assert acc.orientation == speed.orientation == "h" and acc.xaxis != speed.xaxis   # kinds read across
    assert list(fig.layout.xaxis.range) == [0, 1.02] and fig.layout.yaxis.automargin   # room for any name
    line = next(s for s in fig.layout.shapes if s.x0 == 1.0)
    assert line.layer == "below" and line.xref.startswith("x2")     # drawn behind, on the speedup axis
    assert list(acc.text) == ["62%", "31%"] and list(speed.text) == ["1.80", "0.97"]     # each bar's value on it
    # a speedup's value inside the end of its bar: one near 1 outside sat on the break-even line (review 31)
    assert (speed.textposition, speed.insidetextanchor, acc.textposition) == ("inside", "end", "outside")
    def drafter(name, speedup):
        return DrafterPoint(drafter=name, kind="all", acceptance_rate=0.3, mean_acceptance_length=1.4, c=0.1,
                            speedup=speedup, speedup_min=speedup, speedup_max=speedup, load=0.1)
    bars = drafters_figure([drafter("n-gram", 1.02), drafter("draft", 0.4)], "speedup", "Wall-clock speedup")
    assert (bars.data[0].textposition, bars.data[0].textangle) == ("outside", 0)      # level, above the bar
    assert list(bars.data[0].text) == ["1.02", "0.40"]
    assert next(s for s in bars.layout.shapes if s.y0 == 1.0).layer == "below"
    assert bars.layout.yaxis.range[1] > 1.02 * 1.1                  # room above the tallest label
    from ui.figures.rounds import COLORS
    assert list(bars.data[0].marker.color) == [COLORS.accepted, COLORS.draft]       # the one that pays in green
    slow = drafters_figure([drafter("n-gram", 0.91), drafter("draft", 0.4)], "speedup", "Wall-clock speedup")
    assert COLORS.accepted not in list(slow.data[0].marker.color)   # none pays: no winner's green (review 52)


@pytest.mark.parametrize("eps", [0.0, 0.1])
def test_the_speedup_formula_in_the_title_is_balanced(eps):
    from ui.figures.fast import theory_figure
    title = theory_figure(0.7, 4, 0.05, eps=eps).layout.title.text
    formula = title[title.index("(1 − α"):]
    assert formula.count("(") == formula.count(")")
    assert ("k·ε" in formula) == bool(eps) and "c = 0.05" in formula


def test_the_theory_line_of_tokens_per_round_rises_with_k_whatever_each_k_measured():
    from points import point

    from ui.figures.fast import tokens_figure
    alphas = (0.5, 0.3, 0.6, 0.2, 0.5, 0.3)
    rows = [point(k=k, alpha=a, mean_acceptance_length=1.5) for k, a in zip(range(1, 7), alphas)]
    theory = tokens_figure(rows).data[0].y
    assert all(b > a for a, b in zip(theory, theory[1:]))                     # no zig-zag
    assert theory[0] == pytest.approx(1 + 0.4)                                # α = mean 0.4, k = 1


def test_your_k_sits_on_the_measured_speedup_where_k_was_measured():
    """The k sweep's chart: the learner's k marks what was measured there, not the free-pass theory."""
    from points import point

    from ui.figures.fast import theory_figure
    measured = [point(k=1, speedup=1.05), point(k=4, speedup=0.78)]
    fig = theory_figure(0.5, 4, 0.1, measured)
    assert [t.name for t in fig.data if "α" in t.name and "theorem" in t.name] == [      # the sweep's α̂ alone
        "theorem at the mean α̂ = 0.50, c and ε as these runs paid"]                    # named as what it is
    assert len([t for t in theory_figure(0.5, 4, 0.1).data if t.name.startswith("α =")]) > 1   # the theory's family
    dot = next(t for t in fig.data if t.name.startswith("your k"))
    assert list(dot.y) == [0.78] and dot.name == "your k, as measured"
    free = next(t for t in theory_figure(0.5, 3, 0.1, measured).data if t.name.startswith("your k"))
    # k = 3 not measured: the theorem (1 − 0.5⁴) / ((1 − 0.5)(3 · 0.1 + 1)) = 0.9375 / 0.65
    assert free.name == "your k" and free.y[0] == pytest.approx(0.9375 / 0.65)


def test_a_shipped_sweep_is_drawn_as_predicted_here_with_the_other_machines_points_behind():
    """Section 2 on a shipped sweep: this machine's prediction and its c lead; the other machine's
    measured speedups carry its name and their spread; nothing priced at its prices is drawn."""
    from points import point

    from specdec.bench.repriced import Repriced
    from ui.figures.fast import repriced_sweep_figure
    shipped = [point(k=1, speedup=0.9, speedup_min=0.85, speedup_max=0.95),
               point(k=2, speedup=0.8, speedup_min=0.7, speedup_max=0.82)]
    here = [Repriced(shipped[0], 0.1, 1.2), Repriced(shipped[1], 0.1, 1.5)]
    fig = repriced_sweep_figure(0.5, 2, here, "Some Xeon")
    assert "c = 0.100" in fig.layout.title.text
    names = [t.name for t in fig.data]
    assert names[1].startswith("predicted here") and "measured on Some Xeon, for comparison" in names
    assert not any("verification cost" in n or "bookkeeping" in n for n in names)
    other = next(t for t in fig.data if t.name.startswith("measured on"))
    assert list(other.error_y.array) == pytest.approx([0.05, 0.02])
    assert list(other.error_y.arrayminus) == pytest.approx([0.05, 0.1])
    dot = next(t for t in fig.data if t.name == "your k, predicted here")
    assert list(dot.y) == pytest.approx([here[1].speedup])


def test_the_k_sweeps_chart_names_the_points_measured_here_since():
    """Review 32: after "Measure k = 1 here" the chart still called k = 1 "measured on a machine like this one"."""
    from types import SimpleNamespace

    from ui.figures.fast import theory_figure

    def pt(k, x):
        return SimpleNamespace(k=k, speedup=x, speedup_min=x - 0.02, speedup_max=x + 0.02, bound_with_verify=x + 0.1,
                               profile_speedup=None, predicted_run=None)
    points = [pt(1, 1.01), pt(2, 1.03), pt(4, 0.67)]
    fig = theory_figure(0.5, 4, 0.16, points, k_max=8, measured_on="EPYC", here_ks=frozenset({1, 4}))
    by_name = {t.name: list(t.x) for t in fig.data if t.name and t.name.startswith("measured")}
    assert by_name == {"measured on EPYC": [2], "measured here": [1, 4]}
    alone = theory_figure(0.5, 4, 0.16, points, k_max=8, measured_on="EPYC")
    assert {t.name: list(t.x) for t in alone.data if t.name and t.name.startswith("measured")} == {
        "measured on EPYC": [1, 2, 4]}


def test_the_k_sweeps_chart_draws_the_theorem_and_the_measurements_and_its_method_the_refinements():
    """Review 56: six lines for one setting. The section's chart: the theorem at α̂, the measured speedups and
    the learner's k; the lines pricing what a whole run pays (the pass as paid, the acceptance profile, the
    prompt and bookkeeping) only in the chart behind the section's expander."""
    from points import point

    from ui.figures.fast import theory_figure
    points = [point(k=k, speedup=1.0 - k / 20, profile_speedup=0.9, predicted_run=0.8) for k in (1, 2, 3)]
    plain = {t.name for t in theory_figure(0.5, 2, 0.1, points).data}
    refined = {t.name for t in theory_figure(0.5, 2, 0.1, points, refined=True).data}
    assert plain == {"theorem at the mean α̂ = 0.50, c and ε as these runs paid", "your k, as measured",
                     "measured here"}
    assert refined - plain == {"theory at the measured verification cost v(k + 1)",
                               "the same price, tokens a round from the measured acceptance profile",
                               "each k's own tokens a round, plus the prompt and the bookkeeping"}
