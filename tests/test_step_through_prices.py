"""A Step-through round's times in this machine's steps beside the profile (review 15), by hand."""
from types import SimpleNamespace

from ui.lessons import step_through_prices as round_prices
from ui.lessons.step_through_prices import Priced, alone_now, in_steps

PRICED = Priced(step_ms=20.0, c=0.15, v={1: 1.0, 5: 2.2})


def rnd(index=1, drafted=4, verify_ms=40.0, draft_ms=10.0, draft_forwards=4, emitted=(1, 2)):
    return SimpleNamespace(index=index, drafted=drafted, verify_ms=verify_ms, draft_ms=draft_ms,
                           draft_forwards=draft_forwards, emitted=emitted)


def test_a_round_at_the_profiles_prices_is_said_in_steps_without_a_reason():
    # 40 ms / 20 ms = 2.00 steps against v(5) = 2.2; 10 ms / 4 drafts / 20 ms = 0.125 against c = 0.15
    said = in_steps(rnd(), PRICED)
    assert said == ("In target steps (20.0 ms): this pass 2.00 (the profile: 2.20), a draft step 0.125 (the profile's "
                    "c: 0.150)."), said


def test_a_slow_round_says_why_from_the_load_or_the_cold_first_round(monkeypatch):
    monkeypatch.setattr(round_prices, "machine_load", lambda: 1.7)
    slow = in_steps(rnd(verify_ms=160.0), PRICED)                 # 8.00 steps > 1.5 × 2.2
    assert "this pass 8.00" in slow and slow.endswith("Slower than the profile: other work shares the cores "
                                                          "(load now 1.7 per core).")
    assert "Slower" in in_steps(rnd(draft_ms=40.0), PRICED)      # a draft step 0.5 > 1.5 × 0.15
    assert in_steps(rnd(index=0, verify_ms=160.0), PRICED).endswith("the first round runs on cold caches.")
    monkeypatch.setattr(round_prices, "machine_load", lambda: 0.2)
    assert in_steps(rnd(verify_ms=160.0), PRICED).endswith("(the load now: 0.2 per core).")
    # a round clicked 2.5 s after the last (review 50: draft steps 0.28-0.54 beside c = 0.137, "the load now")
    paused = PRICED._replace(pauses={1: 2.5, 2: 0.05})
    assert "this round began 2.5 s after the last (your click)" in in_steps(rnd(draft_ms=40.0), paused)
    assert in_steps(rnd(index=2, draft_ms=40.0), paused).endswith("(the load now: 0.2 per core).")   # Run to end
    assert "began" not in in_steps(rnd(), paused)                  # at the profile's prices: no reason needed
    assert in_steps(rnd(drafted=7), PRICED) == "" and in_steps(rnd(), None) == ""     # v(8) not measured; no profile


def test_a_finished_run_is_set_against_the_target_alone_timed_on_the_same_prompt():
    # the target alone: 960 ms for 48 tokens (20.0 a token); the run's rounds 800 ms for 48 (16.7): 1.20×
    said = alone_now(48, 800.0, 48, 960.0)
    assert said == ("Timed just now on this prompt, the target alone's passes took 20.0 ms a token and this run's "
                    "rounds 16.7: **1.20×** :green-badge[measured here]."), said
    assert alone_now(48, 800.0, 0, 0.0) == "" and alone_now(0, 0.0, 48, 960.0) == ""
    # one token after a 3,000-token prompt read "0.5 ms a token … 1213.2: 0.00×" (review 43): too few to time
    assert alone_now(1, 1213.2, 1, 0.5) == ("Too few new tokens to time against the target alone (1; the first comes "
                                            "from reading the prompt).")


def test_a_finished_run_says_its_tokens_a_round_beside_the_boxs(monkeypatch):
    from specdec.bench.payoff import Measured, Payoff
    from specdec.records.provenance import Clock
    from ui.lessons.step_through_prices import beside_box
    box = Payoff(4, Measured(0.73, 0.68, 0.74, 3, Clock.WALL, 1.85, "ksweep", 8), 1.85, "here", 0.16, 2.48, 0.7)
    assert beside_box(2.67, box) == ("This prompt kept 2.67 tokens a round, the answer box's prompts 1.85: one "
                                     "prompt is one draw, and one timing moves with the machine's load, so its ratio "
                                     "is not the answer box's 0.73×.")
    predicted = Payoff(4, None, 1.85, "here", 0.16, 2.48, 0.7)
    assert beside_box(2.67, predicted).endswith("not the answer box's 0.70×.")          # no measurement: its prediction
    assert beside_box(None, box) == "" and beside_box(2.67, Payoff(4, None, None, "", None, None, None)) == ""
    # more tokens a round than the box's, and slower: the timing, not the text, went the other way
    monkeypatch.setattr(round_prices, "machine_load", lambda: 1.4)
    assert "Its timing went the other way" in beside_box(2.67, box, 0.66) and "(load now 1.4 per core)" in \
        beside_box(2.67, box, 0.66)
    assert "other way" not in beside_box(2.67, box, 0.99) and "other way" not in beside_box(1.5, box, 0.6)


def test_a_run_stepped_by_hand_names_its_cold_rounds_not_the_load():
    """Review 56: a run clicked through by hand, then finished, read "0.85× … one timing moves with the machine's
    load" where the same prompt run back to back gave 1.22×: rounds after a pause run cold, and the note says so."""
    from specdec.bench.payoff import Measured, Payoff
    from specdec.records.provenance import Clock
    from ui.lessons.step_through_prices import beside_box
    box = Payoff(4, Measured(0.74, 0.71, 0.76, 3, Clock.WALL, 1.85, "box", 8), 2.4, "here", 0.14, 1.98, 0.76)
    said = beside_box(2.67, box, 0.85, (5, 22))
    assert "5 of its 22 rounds began after a pause (your clicks)" in said and "Reset and Run to end" in said
    assert "machine's load" not in said
    assert "machine's load" in beside_box(2.67, box, 0.85, (0, 22))            # back to back: as before
