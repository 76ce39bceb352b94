"""Captions computed from measurements: fixed synthetic measurements in both directions, so a
caption cannot state an effect its data contradicts."""
from dataclasses import replace

import pytest
from points import point

from specdec.bench.points import TempPoint
from specdec.bench.where import KindPoint
from specdec.records.provenance import Clock
from ui.lessons.fast import size_note, spread_warning, temperature_caption, tradeoff_caption


def row(draft, params, acc, speedup, lo=None, hi=None, load=0.3):
    return point(draft=draft, params=params, acceptance_rate=acc, speedup=speedup, speedup_min=lo or speedup,
                 speedup_max=hi or speedup, load=load)


def temp(t: float, alpha: float) -> TempPoint:
    return TempPoint(temperature=t, alpha=alpha, acceptance_rate=0.5, mean_acceptance_length=1.5)


def kind(name: str, acc: float) -> KindPoint:
    return KindPoint(name, 2, acc, 1.5, 1.0, 1.0, 1.0, (acc,), (1, 1))


def test_tradeoff_caption_follows_the_data_both_ways():
    rising = [row("d1", 1, 0.30, 1.1), row("d2", 2, 0.45, 1.3), row("d4", 4, 0.60, 1.2)]
    text = tradeoff_caption(rising)
    assert text == (":green-badge[measured here] Acceptance rises with draft size; the "
                    "fastest measured is d2 at 1.30×. A draft pays when it is accepted often *and* cheap (c).")
    falling = [row("d1", 1, 0.50, 0.9), row("d2", 2, 0.40, 0.8), row("d4", 4, 0.45, 0.7)]
    text = tradeoff_caption(falling)
    assert "does not simply rise" in text and "d1 0.50, d2 0.40, d4 0.45" in text
    assert "none beats the target alone (the best: d1, 0.90×)" in text
    # the smallest beats the largest (4× its size) by the most: 0.50 against 0.45 and 0.40
    assert size_note(falling) == ("d1 (0.0M parameters) is accepted more often than d4 (0.0M, 4× its size): what "
                                  "a draft learned to imitate counts for more than its size.")
    assert size_note(rising) is None
    # a larger draft accepted more often still is said too, not left out (review 29: a 29-layer exit at 25% against 23%)
    mixed = [row("d1", 1, 0.50, 0.9), row("d2", 2, 0.40, 0.8), row("d4", 4, 0.45, 0.7), row("d8", 8, 0.55, 0.6)]
    assert size_note(mixed) == ("d1 (0.0M parameters) is accepted more often than d4 (0.0M, 4× its size): what a "
                                "draft learned to imitate counts for more than its size. Only d8 (0.0M) is accepted "
                                "more often still (55% against 50%).")


def test_temperature_caption_follows_the_data_both_ways():
    sharper = [temp(0.0, 0.7), temp(1.5, 0.4)]
    said = temperature_caption(sharper, "8 code chats")
    assert said.startswith("On 8 code chats, from T = 0 to T = 1.5, α̂ went from 0.70 to 0.40")   # its prompts named
    assert "agree more often, as expected" in said
    flatter = [temp(0.0, 0.3), temp(1.5, 0.5)]
    assert "agrees *more* at high temperature" in temperature_caption(flatter, "x")
    flat = [temp(0.0, 0.50), temp(1.5, 0.51)]
    assert "no clear effect" in temperature_caption(flat, "x")


def test_spread_warning_only_when_repeats_disagree():
    assert spread_warning([row("d", 1, 0.5, 1.2, 1.15, 1.25)]) is None
    wide = spread_warning([row("d", 1, 0.5, 1.0, 0.6, 1.3)])
    assert wide and "at k = 4 the repeats" in wide and "2.17×" in wide and "0.60–1.30×" in wide
    assert spread_warning([row("d", 1, 0.5, 1.2, 1.15, 1.25, load=1.6)]) is None   # busy: CPU time


def test_a_busy_machine_is_said_with_both_clocks():
    from ui.lessons.fast import clock_note
    assert clock_note([row("d", 1, 0.5, 1.2)]) is None
    busy = [replace(row("d", 1, 0.5, 1.2, load=1.6), clock=Clock.CPU, speedup_wall=0.8),
            replace(row("e", 1, 0.5, 1.4, load=1.3), clock=Clock.CPU, speedup_wall=0.9)]
    note = clock_note(busy)
    assert "load 1.6 per core" in note and "1.20–1.40×" in note and "0.80–0.90×" in note
    assert note.startswith("The machine was busy")                    # measured here
    assert clock_note(busy, "Some Xeon").startswith(":orange-badge[Some Xeon] The machine was busy")
    one = clock_note(busy[:1])                                        # one figure, not "1.20–1.20×" (review 38)
    assert "needed (1.20×); on the wall-clock they read 0.80×." in one, one


def test_kind_caption_never_names_one_kind_as_best_and_worst():
    from ui.lessons.where import kind_caption
    one = kind_caption([kind("code", 0.4)])
    assert "Only one kind was run (code): 40%" in one and "least" not in one
    tie = kind_caption([kind("code", 0.40), kind("prose", 0.41)])
    assert "about the same" in tie
    spread = kind_caption([kind("code", 0.6), kind("prose", 0.3)])
    assert "highest on **code** text (60%)" in spread and "lowest on **prose** (30%)" in spread
    assert spread.endswith("What those prompts ask: **code**: a program, whose syntax and names repeat; "
                           "**prose**: free writing, where many next words fit equally well.")
    assert "What those prompts ask" not in kind_caption([kind("mine", 0.6), kind("yours", 0.3)])   # a user's kinds


def test_a_caption_says_why_acceptance_and_alpha_move_apart(pair):
    """Issue 28: shown only when they differ by 0.08 or more; its counts are the run's own."""
    import specdec
    from ui.metrics_view import APART, apart
    runs = [specdec.generate(pair, p, k=4, temperature=1.0, seed=s, max_new_tokens=24)
            for s in range(4) for p in ("abc", "(a b")]
    far = [r for r in runs if abs(r.metrics.acceptance_rate - r.metrics.mean_beta) >= APART]
    near = [r for r in runs if abs(r.metrics.acceptance_rate - r.metrics.mean_beta) < APART]
    assert far and all(apart(r.rounds, r.metrics) is None for r in near)
    for run in far:
        positions = [p for r in run.rounds for p in r.positions]
        discarded = sum(p.verdict == "discarded" for p in positions)
        text = apart(run.rounds, run.metrics)
        assert f"including the {discarded} discarded" in text
        assert f"each of the {len(positions) - discarded} examined drafts" in text


def test_the_profile_caption_names_the_largest_gap_and_the_iid_shortfall():
    from ui.lessons.fast import profile_caption
    rows = [point(k=1, speedup=1.10, profile_speedup=1.00, expected_length=1.5, mean_acceptance_length=1.6),
            point(k=2, speedup=0.95, profile_speedup=1.00, expected_length=1.7, mean_acceptance_length=2.1)]
    text = profile_caption(rows)
    assert "within 10%" in text and "k = 1: measured 1.10×, predicted 1.00×" in text
    # the chart's line: eq. (1) at the mean α̂ over k (0.4 at both): (1 − 0.4³) / 0.6 = 1.56 at k = 2, not the
    # 1.70 of k = 2's own α̂ (review 42: the caption said 2.11 where the line it sits under read 2.02)
    assert "At k = 2 eq. (1) at the mean α̂ = 0.40 expects 1.56 tokens a round and the runs kept 2.10" in text
    assert profile_caption([point(k=1, speedup=1.0)]) is None and profile_caption([]) is None


def test_the_profile_caption_says_what_the_prompt_and_the_bookkeeping_cost():
    from ui.lessons.fast import profile_caption
    row = point(expected_length=1.5, mean_acceptance_length=1.6, base_prefill_steps=0.8, prefill_steps=1.05,
                round_overhead=0.12, base_overhead=0.05)
    rows = [replace(row, k=1, speedup=0.88, profile_speedup=0.77, predicted_run=0.85),
            replace(row, k=2, speedup=0.68, profile_speedup=0.51, predicted_run=0.66)]
    text = profile_caption(rows)
    assert "within 33% of the measured speedup" in text                # the profile line: 0.68 / 0.51 - 1
    assert "0.80 steps per generated token" in text and "(1.05 with the draft's own reading)" in text
    assert "0.12 steps per round" in text
    assert "It lands within 4% of the measured speedup at every k (largest gap at k = 1)" in text   # 0.88 / 0.85


def test_the_ngram_caption_names_another_drafter_that_won_its_best_kind():
    from specdec.bench.compared import ALL, DrafterPoint
    from specdec.bench.sweeps import NGRAM
    from ui.lessons.drafters import ngram_caption

    def pt(drafter, kind, speedup):
        return DrafterPoint(drafter=drafter, kind=kind, acceptance_rate=0.3, mean_acceptance_length=2.0, c=0.0,
                            speedup=speedup, speedup_min=speedup, speedup_max=speedup, load=0.1)
    points = [pt(NGRAM, ALL, 2.0), pt(NGRAM, "code", 1.1), pt(NGRAM, "translation", 1.53),
              pt("suffix match", "translation", 1.61), pt("suffix match", "code", 1.0)]
    text = ngram_caption(points, str.upper)
    # its best kind is translation (not ALL's 2.0), where suffix match won
    assert "best on **TRANSLATION** text (1.53×; the winner there: suffix match at 1.61×)." in text
    alone = ngram_caption(points[:3], str.upper)
    assert "(1.53×)." in alone and "winner" not in alone
    # where the draft model is accepted least on that kind, the caption says so
    draft = [replace(pt("draft", "code", 0.9), acceptance_rate=0.2), replace(pt("draft", "translation", 0.6),
                                                                             acceptance_rate=0.1)]
    assert text.endswith("so it pays where the answer repeats it.")
    assert ngram_caption(points + draft, str.upper, draft="draft").endswith(
        "The draft model is accepted least there (10%): it predicts the answer, while a lookup copies it.")
    assert ngram_caption(points[3:], str.upper) is None
    # at this machine's prices, as the winners' table reads them: every point keeps 2.0 tokens a round; n-gram's
    # rounds pay 1.25 steps here (1.60× on code and translation alike: the first kind it meets, code), suffix
    # match's 1.0 (2.00×)
    from specdec.bench.repriced import Repriced
    price = {NGRAM: 1.25, "suffix match": 1.0}
    text = ngram_caption(points, str.upper, lambda ps: [Repriced(p, 0.0, price[p.drafter], 1.5, True) for p in ps])
    assert text.startswith("The n-gram drafter costs nothing; at this machine's prices it does best on **CODE** text "
                           "(1.60×; the winner there: suffix match at 2.00×)."), text


def test_each_kinds_winner_is_priced_here_and_a_speedup_beyond_its_tokens_is_called_out():
    from dataclasses import replace

    from specdec.bench.compared import ALL, DrafterPoint
    from specdec.bench.repriced import Repriced
    from ui.lessons.drafters import beyond_caption, beyond_tokens, most, ngram_caption, winners

    def pt(drafter, kind, speedup, tokens):
        return DrafterPoint(drafter=drafter, kind=kind, acceptance_rate=0.1, mean_acceptance_length=tokens, c=0.0,
                            speedup=speedup, speedup_min=speedup, speedup_max=speedup, load=0.1)
    # translation: n-gram "measured" 1.54x with 1.16 tokens a round (impossible); the draft 0.78x with 1.2
    points = [pt("n-gram lookup", ALL, 0.9, 1.15), pt("n-gram lookup", "translation", 1.54, 1.16),
              pt("draft", "translation", 0.78, 1.2), pt("draft", "code", 0.72, 1.68)]
    # priced here at k = 4, c = 0.1 (draft) / 0 (n-gram), v(5) = 1.9: 1.16 / 1.9 = 0.61, 1.2 / 2.3 = 0.52
    c = {"n-gram lookup": 0.0, "draft": 0.1}
    rows = winners(points, ["code", "translation"],
                   lambda ps: [Repriced(p, c[p.drafter], 1.9, 4) for p in ps])
    assert [(r["kind"], r["drafter"]) for r in rows] == [("code", "draft"), ("translation", "n-gram lookup")]
    assert rows[1]["speedup_here"] == pytest.approx(1.16 / 1.9) and rows[1]["speedup"] == 1.54
    assert rows[0]["speedup_here"] == pytest.approx(1.68 / 2.3)
    unpriced = winners(points, ["translation"], lambda ps: [])      # no profile: the fastest as measured
    assert unpriced[0]["drafter"] == "n-gram lookup" and unpriced[0]["speedup_here"] is None
    text = beyond_caption(points, str.upper, 0.7)
    assert "n-gram lookup on TRANSLATION: 1.54× with 1.16 tokens a round" in text and "T = 0.7" in text
    assert "draft on" not in text                                      # 0.78 with 1.2 tokens is possible
    assert beyond_caption(points[2:], str.upper, 0.7) is None
    # with the measuring machine's pass price for a drafter that drafts k every round (v(5) = 1.9):
    # the draft's 0.78x with 1.2 tokens a round is more than 1.2 / 1.9 = 0.63x allows, code's 0.72 with 1.68 is not
    v = {"draft": 1.9, "n-gram lookup": 1.0}
    text = beyond_caption(points[2:], str.upper, 0.7, lambda p: v[p.drafter])
    assert "draft on TRANSLATION: 0.78× with 1.20 tokens a round, where a pass of v(k + 1) = 1.90 steps a round " \
           "allows at most 0.63×" in text and "and 1 more" not in text
    assert "TRANSLATION" not in (ngram_caption(points, str.upper) or "")   # its impossible best is not quoted
    both = beyond_caption(points + [pt("draft", "code", 1.9, 1.68)], str.upper, 0.7)  # two: each named
    assert "draft on CODE: 1.90× with 1.68 tokens a round" in both and "; and 1 more row)" in both   # the table: ⚠
    # where the runs recorded their prefill, a lookup whose runs sampled a longer text than the plain
    # ones (0.29 steps of prefill a token against 0.57) may pass its tokens a round: the whole run allows
    # (0.57 + 1 + 0.04) / (0.29 + (1 + 0.05) / 1.15) = 1.34×, so 1.07× is no longer called out
    longer = replace(pt("n-gram lookup", "translation", 1.07, 1.15), prefill_steps=0.29, base_prefill_steps=0.57,
                     round_overhead=0.05, base_overhead=0.04)
    assert most(longer) == pytest.approx(1.61 / (0.29 + 1.05 / 1.15))
    assert beyond_tokens([longer]) == [] and beyond_tokens([replace(longer, speedup=1.5)]) != []


def test_a_kinds_speedup_its_rounds_cannot_give_wins_nothing_and_the_text_written_is_named():
    """Review 31: n-gram lookup "won" translation at 1.35× with 1.10 tokens a round (k = 1), suffix match at 1.23×
    with 1.15 (k = 4): the target alone's runs wrote shorter answers, so they read their prompt 1.26 steps a token
    against 0.63 for the speculative runs; the rounds alone allow at most 1.10× and 1.15×."""
    from dataclasses import replace

    from specdec.bench.compared import DrafterPoint
    from ui.lessons.drafters import beyond_caption, beyond_tokens, ngram_caption, text_written, winners

    def pt(drafter, speedup, tokens):
        return DrafterPoint(drafter=drafter, kind="translation", acceptance_rate=0.1, mean_acceptance_length=tokens,
                            c=0.0, speedup=speedup, speedup_min=speedup, speedup_max=speedup, load=0.1,
                            prefill_steps=0.63, base_prefill_steps=1.26, round_overhead=0.05, base_overhead=0.04)
    lookup, draft = pt("n-gram lookup", 1.35, 1.10), pt("draft", 0.97, 1.30)
    # the whole run allows (1.26 + 1 + 0.04) / (0.63 + 1.05 / 1.10) = 1.45x: the text written explains 1.35x
    assert beyond_tokens([lookup, draft]) == [lookup] and text_written(lookup)
    assert not text_written(replace(lookup, base_prefill_steps=0.5))      # the target alone's text was the longer
    row = winners([lookup, draft], ["translation"], lambda ps: [], [lookup])[0]
    assert row["drafter"] == "draft" and row["speedup"] == 0.97
    assert winners([lookup], ["translation"], lambda ps: [], [lookup])[0]["drafter"] == "n-gram lookup"  # all odd
    text = beyond_caption([lookup, draft], str.upper, 0.7)
    assert "n-gram lookup on TRANSLATION: 1.35× with 1.10 tokens a round, where its rounds alone allow at most " \
           "1.10×" in text
    assert "0.63 steps a token against 1.26" in text and "the text written, not the drafting" in text
    assert "no run can be" not in text and "priced here" not in text
    assert "no run can be" in beyond_caption([replace(lookup, speedup=1.9)], str.upper, 0.7)   # beyond the whole run
    assert "TRANSLATION" not in (ngram_caption([lookup, draft], str.upper) or "")


def test_a_kind_whose_target_alone_wrote_far_shorter_answers_is_marked():
    """Review 31: on translation the target alone's runs read their prompt 1.26 steps a token against 0.63 for the
    speculative runs (far shorter answers), so every drafter's speedup there, the winner's too, is the text."""
    from specdec.bench.compared import DrafterPoint
    from ui.lessons.drafters import text_kinds, text_kinds_caption

    def pt(drafter, kind, spec, base):
        return DrafterPoint(drafter=drafter, kind=kind, acceptance_rate=0.3, mean_acceptance_length=1.3, c=0.1,
                            speedup=1.1, speedup_min=1.0, speedup_max=1.2, load=0.1, prefill_steps=spec,
                            base_prefill_steps=base, round_overhead=0.05, base_overhead=0.04)
    points = [pt("draft", "translation", 0.61, 1.26), pt("n-gram lookup", "translation", 0.65, 1.26),
              pt("draft", "code", 0.60, 0.66), pt("draft", "edit", 0.60, 0.85),           # 1.42x: not far enough
              DrafterPoint(drafter="draft", kind="prose", acceptance_rate=0.3, mean_acceptance_length=1.3, c=0.1,
                           speedup=1.0, speedup_min=1.0, speedup_max=1.0, load=0.1)]       # nothing recorded
    assert text_kinds(points) == {"translation": (0.63, 1.26)}
    said = text_kinds_caption(points, str.upper)
    assert "TRANSLATION: 1.26 against 0.63" in said and "mostly the text written" in said and "CODE" not in said
    assert text_kinds_caption(points[2:], str.upper) is None


def test_the_lookups_best_kind_is_never_a_kind_whose_figures_are_the_text_written():
    """Review 33: "n-gram … did best on translation (1.08×)" beside the table's "—" for translation (†)."""
    from specdec.bench.compared import DrafterPoint
    from ui.lessons.drafters import ngram_caption

    def pt(kind, speedup, spec, base):
        return DrafterPoint(drafter="n-gram lookup", kind=kind, acceptance_rate=0.2, mean_acceptance_length=1.15,
                            c=0.0, speedup=speedup, speedup_min=speedup, speedup_max=speedup, load=0.1,
                            prefill_steps=spec, base_prefill_steps=base, round_overhead=0.05, base_overhead=0.04)
    points = [pt("translation", 1.08, 0.63, 1.18), pt("edit", 1.05, 0.6, 0.62)]
    said = ngram_caption(points, str.upper)
    assert "did best on **EDIT** text (1.05×)" in said and "TRANSLATION" not in said, said


def test_the_k_sweeps_caption_counts_against_the_free_pass_theorem_and_the_drawn_dashed_line_apart():
    """Review 42: "below Theorem 3.8 at 8 of 8 k" sat under points drawn above the chart's solid line; the
    free-pass theorem is not drawn, so the caption gives its range, and counts against the dashed line too."""
    from ui.fast_ksweep_view import theorem_caption
    rows = [point(k=1, speedup=1.05, bound=1.30, bound_with_verify=1.00),       # above the dashed line
            point(k=2, speedup=0.90, bound=1.45, bound_with_verify=0.95)]
    text = theorem_caption(rows)
    assert text.startswith("Theorem 3.8 with a pass at one target step (not drawn: 1.30–1.45× at these k): measured "
                           "speed sits below it at 2 of 2 k.")
    assert "measured sits below it at 1 of 2 k" in text


def test_a_kind_whose_speedups_are_the_text_written_is_priced_by_its_rounds_alone():
    """Review 55: suffix match "won" translation (†) at 1.40× priced here with 1.10 tokens a round: its runs'
    prompt reading (0.63 steps a token against the target alone's 1.26) carried into the whole-run price. A round
    pays at least one pass, so its rounds allow 1.10 / v(d̄ + 1) at most: the table and the n-gram sentence rank that."""
    from specdec.bench.compared import DrafterPoint
    from specdec.bench.repriced import Repriced
    from ui.lessons.drafters import ngram_caption, text_kinds_caption, winners

    def pt(drafter, tokens, kind="translation", spec=0.63, base=1.26):
        return DrafterPoint(drafter=drafter, kind=kind, acceptance_rate=0.3, mean_acceptance_length=tokens, c=0.0,
                            speedup=0.9, speedup_min=0.9, speedup_max=0.9, load=0.1, prefill_steps=spec,
                            base_prefill_steps=base, round_overhead=0.05, base_overhead=0.04)
    lookup, draft, code = pt("n-gram lookup", 1.10), pt("draft", 1.30), pt("n-gram lookup", 1.30, "code", 0.6, 0.66)
    # the lookup: c = 0, d̄ = 0.1, v(1.1) = 1.0; the draft: c = 0.1, k = 4, v(5) = 1.9
    price = {"n-gram lookup": (0.0, 1.0, 0.1), "draft": (0.1, 1.9, 4)}

    def priced_of(ps):
        return [Repriced(p, *price[p.drafter]) for p in ps]
    whole = priced_of([lookup])[0].speedup                 # (1.26 + 1 + 0.04) / (0.63 + 1.05 / 1.10) = 1.45
    assert whole == pytest.approx(2.30 / (0.63 + 1.05 / 1.10))
    rows = winners([lookup, draft, code], ["translation", "code"], priced_of)
    assert rows[0]["drafter"] == "n-gram lookup" and rows[0]["speedup_here"] == pytest.approx(1.10 / 1.0)
    assert rows[1]["speedup_here"] == pytest.approx(priced_of([code])[0].speedup)      # a plain kind: the whole run
    said = ngram_caption([lookup, draft, code], str.upper, priced_of)
    # code's whole run, (0.66 + 1 + 0.04) / (0.6 + 1.05 / 1.30) = 1.21, now beats translation's rounds (1.10)
    assert f"{whole:.2f}×" not in said and f"**CODE** text ({1.70 / (0.6 + 1.05 / 1.30):.2f}×)" in said, said
    alone = ngram_caption([lookup, draft], str.upper, priced_of)
    assert "**TRANSLATION** text (1.10×)" in alone and f"{whole:.2f}" not in alone, alone
    assert text_kinds_caption([lookup, draft], str.upper, priced=True).endswith(
        "the table leaves it out and prices that kind's rounds alone.")
