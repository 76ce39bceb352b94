"""Issue 51's contradictions, each gone: a box that predicts one number and measures another says
why; the tour's batch step counts the requests whose text matched; You are the drafter's sentence
on the careful step follows Beyond tokens' numbers; judge everywhere is one pool size in every
language; the exactness table keeps its number beside the rule. Expected values by hand."""
from types import SimpleNamespace

from ui.lessons import beyond, home_race, server

from apptest import app


def racer(rounds, seconds, prefill_ms):
    return SimpleNamespace(seconds=seconds, decoder=SimpleNamespace(
        history=[SimpleNamespace(**r) for r in rounds], prefill=SimpleNamespace(target_ms=prefill_ms)))


def test_the_race_says_why_it_measured_other_than_it_predicted():
    # alone: prompt 100 ms, three 20 ms steps, 1.0 s on its clock -> 840 ms elsewhere
    alone = racer([{"verify_ms": 20.0, "draft_ms": 0.0, "target_forwards": 1}] * 3, 1.0, 100.0)
    # speculative: prompt 150 ms, two rounds of 40 + 10 ms, 0.5 s on its clock -> 250 ms elsewhere
    spec = racer([{"verify_ms": 40.0, "draft_ms": 10.0, "drafted": 4, "emitted": (1, 2, 3)}] * 2, 0.5, 150.0)
    text = home_race.why(alone, spec, "torch", "cpu")
    # predicted: 3 tokens for (40 + 10) / 20 = 2.5 steps = 1.20x; measured 1.0 / 0.5 = 2.00x
    assert "about 1.20×" in text and "measured 2.00× rather than 1.20×" in text
    assert "target alone 100 ms, speculative 150 ms" in text and "(840 ms and 250 ms)" in text


def test_a_priced_race_gives_its_rounds_alone_beside_what_its_own_timings_add():
    """Review 30: two races with the same rounds predicted 1.14× and 1.01×: the part that moves is what each race
    paid besides its rounds, timed in that race; the rounds alone at this machine's prices do not move."""
    from specdec.models.prices import Prices
    alone = racer([{"verify_ms": 20.0, "draft_ms": 0.0, "target_forwards": 1}] * 3, 1.0, 100.0)
    spec = racer([{"verify_ms": 40.0, "draft_ms": 10.0, "drafted": 1, "emitted": (1, 2), "target_forwards": 1}] * 2,
                 0.5, 150.0)
    alone.tokens, spec.tokens = 3, 4
    text = home_race.why(alone, spec, "torch", "cpu", Prices(0.2, {1: 1.0, 2: 1.3}))
    # a round: 1 draft at 0.2 + a pass of 2 tokens at 1.3 = 1.5 steps for 2 tokens: 1.33× for the rounds alone
    assert "a round of this race cost 1.50 steps and kept 2.00 tokens: 1.33× for the rounds alone" in text
    assert "timed in this race (they move from race to race)" in text and "× measured." in text
    assert "c = 0.2" not in text          # the prices are the sidebar's and the working's: not repeated (review 36)


def test_the_tour_counts_the_requests_whose_text_matched():
    from dataclasses import replace

    from specdec.bench.server import Together
    r = Together(requests=4, tokens=80, batch_s=2.0, alone_s=4.0, identical=False, same=3)
    text = server.together_words(r)
    assert "3 of 4 requests wrote token for token the text they wrote alone" in text
    assert "near-tie" in text and "the same both ways: no" not in text
    assert "near-tie" not in server.together_words(replace(r, identical=True, same=4))
    assert "Together was 2.00× faster" in text
    slower = server.together_words(replace(r, batch_s=2.3, alone_s=1.9))      # the reviewer's tour, 2 requests
    assert "not faster here (1.21× the time)" in slower and "faster:" not in slower
    close = server.together_words(replace(r, batch_s=2.0, alone_s=2.04))     # review 46: "1.02× faster"
    assert "about the same time (1.02×)" in close and "faster" not in close


def test_you_are_the_drafter_words_the_careful_step_from_beyond_tokens_numbers(tiny_dirs):
    found = beyond.shipped_result()
    assert found is not None
    result = found
    cheap, judge = (result.stages[name]["en"]["mrr"] for name in (result.first_stage, "judge-everywhere"))
    text = beyond.careful_step_words(result, "en")
    assert f"{judge:.3f}" in text and f"{cheap:.3f}" in text
    assert ("ranks worse" in text) == (judge < cheap)
    at = app(tiny_dirs, page="pages/you_draft.py")
    page = " ".join(m.value for m in at.markdown)
    assert "as good as the careful step" not in page and f"{cheap:.3f}" in page


def test_judge_everywhere_is_one_pool_size_in_every_language():
    result = beyond.shipped_result()
    sizes = {beyond.everywhere(result, lang) for lang in beyond.languages(result)}
    assert len(sizes) == 1 and result.reference in sizes
    n = sizes.pop()
    assert all(len(o.first) <= n for o in result.outcomes)
    assert {r.pool for r in result.rows} <= {p for p in range(1, n + 1)}


def test_the_exactness_table_puts_the_distance_beside_the_rule(tiny_dirs):
    at = app(tiny_dirs, page="pages/exact.py")
    table = next(d.value for d in at.dataframe if "distance to p (TV)" in d.value.columns)
    assert list(table.columns)[:2] == ["rule", "distance to p (TV)"]
