"""Try it on many prompts (issue 40): one setting against another on the same prompts and
seeds, interleaved; the spread over prompts; the sentence computed from the result."""
from dataclasses import replace

import pytest

from specdec.bench import many
from specdec.records.provenance import Clock, Provenance
from specdec.settings import Settings
from ui.figures.many import many_figure
from ui.lessons.many_words import against_alone, claim, sentence

from tiny import tiny_pair

PROMPTS = ["ab(a", "hh g", "c(d)e"]
BASE = Settings(k=3, temperature=1.0, max_new_tokens=8)


def test_runs_are_interleaved_and_share_prompts_and_seeds(pair):
    seen = []
    arms = [many.Arm("A", pair, BASE), many.Arm("B", pair, BASE)]        # the same setting twice
    result = many.compare(arms, PROMPTS, lambda done, total, text: seen.append(text), seed=5)
    assert seen[:-1] == ["target alone · 1/3", "A · 1/3", "B · 1/3", "target alone · 2/3", "A · 2/3", "B · 2/3",
                         "target alone · 3/3", "A · 3/3", "B · 3/3"]
    for a, b in zip(result.of("A"), result.of("B")):                  # same prompt, same seed: same run
        assert (a.tokens, a.acceptance_rate, a.mean_acceptance_length) == \
            (b.tokens, b.acceptance_rate, b.mean_acceptance_length)
    assert result.provenance.threads and result.prompts == len(PROMPTS)


def test_a_self_draft_accepts_everything_and_plain_decoding_passes_once_per_token():
    self_pair = tiny_pair(self_draft=True, eos=False)
    arms = [many.Arm("self", self_pair, BASE), many.Arm("plain", self_pair, replace(BASE, mode="autoregressive"))]
    result = many.compare(arms, PROMPTS)
    mine, plain = many.summary(result)
    assert (mine.arm, plain.arm) == ("self", "plain")
    assert mine.acceptance_rate.lo == mine.acceptance_rate.hi == 1.0
    assert plain.target_forwards_per_token.mean == 1.0   # the first token's is the prompt's own
    assert plain.acceptance_rate is None           # nothing drafted: no rate, not 0
    assert mine.of("target_forwards_per_token").hi < 1.0


def test_each_setting_is_timed_against_the_target_alone_on_the_same_prompt(pair):
    """The target alone runs each prompt first (plain decoding: one pass a token, nothing drafted); each
    setting's speedup is its tokens/s over that run's, prompt by prompt, on both clocks."""
    arms = [many.Arm("A", pair, BASE), many.Arm("B", pair, replace(BASE, k=1))]
    result = many.compare(arms, PROMPTS, seed=2)
    assert len(result.alone) == len(PROMPTS)
    for i, alone in enumerate(result.alone):
        assert alone.target_forwards_per_token == 1.0 and alone.acceptance_rate is None
        for arm in result.arms:
            run = result.of(arm)[i]
            assert run.speedup == pytest.approx(run.tokens_per_s / alone.tokens_per_s)
            assert run.value("speedup", Clock.CPU) == pytest.approx(run.tokens_per_cpu_s / alone.tokens_per_cpu_s)
    assert all(s.speedup is not None and s.speedup.n == len(PROMPTS) for s in many.summary(result))


def test_the_figure_marks_break_even_in_the_speedup_panel_where_the_target_alone_ran():
    runs = (tuple(replace(run(0.3), speedup=x) for x in (0.8, 1.2)), tuple(replace(run(0.2), speedup=x)
                                                                            for x in (0.6, 0.7)))
    alone = many.Comparison(("A", "B"), runs, 2, Provenance(load=0.0), alone=(run(None), run(None)))
    lines = [s for s in many_figure(alone).layout.shapes if s.type == "line"]
    assert len(lines) == 1 and lines[0].y0 == lines[0].y1 == 1 and lines[0].yref == "y5"   # the fifth panel
    assert "run three ways" in many_figure(alone).layout.title.text and "red: break-even" in \
        many_figure(alone).layout.title.text
    assert not [s for s in many_figure(fake([0.3], [0.2])).layout.shapes if s.type == "line"]


def test_the_speedup_sentence_gives_each_settings_mean_range_and_wins():
    runs = (tuple(replace(run(0.3), speedup=x) for x in (0.8, 1.4, 1.0)),      # mean 1.07, median 1.00
            tuple(replace(run(0.2), speedup=x) for x in (0.6, 0.7, 0.5)))
    result = many.Comparison(("k = 4", "k = 1"), runs, 3, Provenance(load=0.0))
    assert against_alone(result) == ("Against the target alone, run on each prompt just before them: k = 4 1.00× "
                                     "(the median; 0.80–1.40×), faster on 1 of 3 prompts; k = 1 0.60× (the median; "
                                     "0.50–0.70×), faster on 0 of 3 prompts.")
    assert against_alone(fake([0.3], [0.2])) is None                    # no target alone: nothing said


def test_spread_by_hand():
    s = many.spread([4.0, 1.0, 3.0, 2.0])
    assert (s.mean, s.lo, s.hi, s.q1, s.median, s.q3, s.n) == (2.5, 1.0, 4.0, 1.75, 2.5, 3.25, 4)
    assert (s.place(0.5), s.place(1.0), s.place(4.5)) == ("below", "within", "above")
    assert many.spread([]) is None


def run(rate: float | None) -> many.PromptRun:
    return many.PromptRun(rate, None, None, 10.0)


def fake(a_rates, b_rates, names=("T = 0.3", "T = 1.2")):
    runs = (tuple(map(run, a_rates)), tuple(map(run, b_rates)))
    return many.Comparison(tuple(names), runs, len(a_rates), Provenance(load=0.0))


def test_paired_counts_prompts_not_means():
    # one easy prompt carries B's mean, but A is higher on three of four prompts
    result = fake([0.3, 0.3, 0.3, 0.1], [0.2, 0.2, 0.2, 0.9])
    assert many.paired(result, "acceptance_rate") == (3, 4)


@pytest.mark.parametrize("a_rates, b_rates, word", [
    ([0.4] * 8, [0.2] * 8, "agrees"),
    ([0.2] * 8, [0.4] * 8, "goes against"),
    ([0.4] * 4 + [0.2] * 4, [0.2] * 4 + [0.4] * 4, "does not settle"),
])
def test_the_sentence_says_whether_the_average_agrees_with_the_lesson(a_rates, b_rates, word):
    text = sentence(fake(a_rates, b_rates), "temperature", 0.3, 1.2, "code")
    assert text.startswith("On 8 code prompts, the median acceptance")    # the table's statistic (review 53)
    assert word in text


def test_the_sentence_places_the_learners_run():
    result = fake([0.2, 0.3, 0.4], [0.1, 0.1, 0.1])
    assert "was within the spread of T = 0.3 (20%–40%)" in \
        sentence(result, "temperature", 0.3, 1.2, "code", run(0.25))
    assert "was above the spread" in sentence(result, "temperature", 0.3, 1.2, "code", run(0.5))


def test_claims_per_knob():
    assert claim("temperature", 0.3, 1.2).metric == "acceptance_rate"
    assert claim("k", 2, 8).metric == "tokens_per_s"
    assert claim("k", 4, 8).metric == "tokens_per_s"
    assert claim("k", 1, 2) is None                # two short drafts: no claim
    assert claim("k", 6, 8) is None                # too close to call
    assert claim("drafter", 0, 0) is None


def test_figure_has_a_box_per_setting_and_metric_and_the_learners_star():
    result = fake([0.2, 0.3], [0.1, 0.2])
    fig = many_figure(result, many.PromptRun(0.25, None, None, None))
    boxes = [t for t in fig.data if t.type == "box"]
    assert len(boxes) == 2 * 2                     # acceptance and tokens/s have values; two settings
    stars = [t for t in fig.data if t.type == "scatter" and t.marker.symbol == "star"]
    assert len(stars) == 1 and stars[0].x == ("T = 0.3",) and stars[0].y == (0.25,)


def test_step_through_runs_the_comparison_and_marks_the_learners_run(tiny_dirs):
    from apptest import app
    at = app(tiny_dirs, temperature=0.8, k=2, max_new_tokens=8)
    at.button(key="btn_next").click().run()
    at.button(key="many_run").click().run()
    assert not at.exception, at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "On 8 code prompts, the median acceptance" in text and "Your run (acceptance" in text


def test_the_sentence_and_the_table_say_the_median():
    """Review 53: the line gave medians (T = 0.7 0.75×, T = 1.2 0.78×), the table under it means (0.80, 0.76): one
    easy prompt moves a mean, so both say the median."""
    text = sentence(fake([0.1, 0.2, 0.3, 0.9], [0.25, 0.25, 0.25, 0.25]), "temperature", 0.3, 1.2, "code")
    assert "the median acceptance rate stayed at 25%" in text, text      # the means: 38% against 25%
