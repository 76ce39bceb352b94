"""Home's race: the target alone against speculative decoding on one prompt, its verdict and its box,
its why in target steps, and the target alone's rate split by this machine's step (AppTest, tiny models)."""
import re

from apptest import app


def test_home_race_shows_both_runs_and_a_verdict_from_them(tiny_dirs, monkeypatch):
    at = app(tiny_dirs, page=None, k=3, max_new_tokens=16, race_greedy=True, race_priced=True)
    monkeypatch.setattr("specdec.bench.measure.machine_load", lambda: 1.7)      # another job shares the cores
    at.button(key="race_go").click().run()
    assert not at.exception
    text = race_box(at)
    assert "At T = 0 both texts are identical" in text and "passes" in text
    assert any("target alone" in m.value for m in at.markdown)
    assert any("speculative" in m.value for m in at.markdown)
    assert any(c.value.startswith("Why: on this machine") and "target on torch" in c.value for c in at.caption)
    box = [m.value for m in at.markdown if m.value.startswith("**Does it pay here?**")]
    assert len(box) == 1 and "One race on one prompt" in box[0], box
    ratio = re.search(r"\*\*([0-9.]+)×\*\* the target alone", box[0]).group(1)     # the race's measured ratio
    assert "race again" in box[0]
    assert any("busy during the race (load 1.7 per core" in c.value for c in at.caption)
    # a text that stopped at the token limit says so under its column (the tiny model writes to the limit)
    cut = [c.value for c in at.caption if c.value.startswith("Cut at the sidebar's limit of 16 new tokens")]
    assert cut and len(cut) == sum(" · 16 tokens · " in m.value for m in at.markdown)
    at.button(key="race_go").click().run()                                # the same race again: its spread
    box = [m.value for m in at.markdown if m.value.startswith("**Does it pay here?**")]
    low, high = re.search(r"median of 2 races on this prompt, ([0-9.]+)–([0-9.]+)×", box[0]).groups()
    assert ratio in (low, high), (ratio, box)                              # the first race is one end of it
    last = race_box(at)
    at.button(key="pair_card_box").click().run()               # a rerun without a race: the box still answers for them
    box = [m.value for m in at.markdown if m.value.startswith("**Does it pay here?**")]
    assert "median of 2 races" in box[0], box
    # and the last race stays in view as it ended (review 28: opening the pair card erased it)
    assert race_box(at) == last
    assert sum(" · 16 tokens · " in m.value for m in at.markdown) == len(cut)
    card = [m.value for m in at.markdown if m.value.startswith("| # | whose | section |")]
    assert card and "| 1 | :green-badge[measured here] | Home's race |" in card[0]
    # its row carries the newest race's acceptance, tokens a round and c; no v: a priced race mixes widths
    row = [cell.strip() for cell in next(r for r in card[0].splitlines() if r.startswith("| 1 |")).split("|")[1:-1]]
    assert re.fullmatch(r"\d+%", row[4]) and re.fullmatch(r"\d\.\d\d", row[5]), row
    assert float(row[6]) >= 1 and re.fullmatch(r"\d\.\d+", row[7]) and row[8] == "—", row


def test_race_why_prices_a_round_in_target_steps():
    """The reason is the race's own numbers: a round's pass and drafting over a target step,
    against the tokens the round kept."""
    from types import SimpleNamespace

    from ui.lessons.home_race import why

    def racer(rounds, seconds=1.0, prefill_ms=0.0):
        return SimpleNamespace(seconds=seconds, decoder=SimpleNamespace(
            history=[SimpleNamespace(**{"draft_ms": 0.0, **r}) for r in rounds],
            prefill=SimpleNamespace(target_ms=prefill_ms)))
    alone = racer([{"verify_ms": 0.1, "target_forwards": 0}, {"verify_ms": 10.0, "target_forwards": 1},
                   {"verify_ms": 30.0, "target_forwards": 1}, {"verify_ms": 20.0, "target_forwards": 1}])
    # median step 20 ms: the first round made no pass (the prompt's gave its token) and is left out
    spec = racer([{"verify_ms": 40.0, "draft_ms": 10.0, "drafted": 4, "emitted": (1, 2, 3)},
                  {"verify_ms": 40.0, "draft_ms": 10.0, "drafted": 4, "emitted": (1,)}])
    text = why(alone, spec, "onnx", "Some CPU")
    # pass 40 / 20 = 2.00 steps, drafting 10 / 20 = 0.50, 2 tokens kept a round: 2 / 2.5 = 0.80x
    for part in ("Some CPU, target on onnx", "20.0 ms", "5.0 tokens", "2.00 steps", "0.50 steps",
                 "2.00 tokens for 2.50 steps", "about 0.80×"):
        assert part in text, part
    assert why(racer([]), spec, "torch", "x") is None


def test_race_verdict_follows_the_numbers():
    """The sentence says faster or slower as the measured times say, never fixed text."""
    from types import SimpleNamespace

    from ui.lessons.home_race import facts, verdict_words

    def racer(seconds, ids):
        return SimpleNamespace(seconds=seconds, steps=len(ids), tokens=len(ids),
                               decoder=SimpleNamespace(generated=ids))
    assert "2.00× (faster" in verdict_words(facts(racer(2.0, [1, 2]), racer(1.0, [1, 2])), greedy=True)
    assert "0.50× (slower" in verdict_words(facts(racer(1.0, [1, 2]), racer(2.0, [1, 2])), greedy=True)
    assert "texts differ" in verdict_words(facts(racer(1.0, [1, 2]), racer(1.0, [1, 3])), greedy=True)


def test_the_races_target_alone_rate_is_split_by_this_machines_step():
    """The target-alone tokens/s is its passes at the profile's step, the prompt's prefill and the rest:
    20 passes at 10 ms = 0.20 s, prefill 0.05 s, of 0.40 s: 0.15 s left for sampling and bookkeeping."""
    from types import SimpleNamespace

    from ui.lessons.home_race import alone_rate
    alone = SimpleNamespace(tokens=20, steps=20, seconds=0.4, tokens_per_s=50.0,
                            decoder=SimpleNamespace(prefill=SimpleNamespace(target_ms=50.0)))
    text = alone_rate(alone, 10.0)
    for part in ("50.0 tokens/s: 20 tokens in 0.40 s", "(10.0 ms) its 20 one-token passes take 0.20 s (100 tokens/s)",
                 "reading the prompt took 0.05 s", "the other 0.15 s"):
        assert part in text, (part, text)
    assert "profile step" not in alone_rate(alone, None)                  # no profile: the rate alone


def race_box(at) -> str:
    """The race's verdict: a caption under the lanes, no coloured banner (review 48: a blue "1.10× (faster on this
    one prompt)" was the first figure read, above the box's "No, 0.74×"; the box's race line gives the figure)."""
    found = [c.value for c in at.caption if "Speculative decoding wrote" in c.value]
    assert len(found) == 1, found
    assert not [b.value for b in (*at.success, *at.info) if "Speculative decoding wrote" in b.value]
    return found[0]


def test_a_race_kept_in_view_speaks_the_language_of_the_moment(tiny_dirs):
    """Review 48: a race run in English stayed English after the switch to Korean (its words were kept, not its
    numbers)."""
    at = app(tiny_dirs, page=None, k=3, max_new_tokens=16)
    at.button(key="race_go").click().run()
    assert race_box(at)
    at.session_state["lang"] = "ko"
    at.run()
    assert not at.exception
    texts = [c.value for c in at.caption] + [m.value for m in at.markdown]
    assert not any("Speculative decoding wrote" in t or "tokens/s · " in t and "target passes" in t for t in texts)
    assert any(c.value.startswith("추측 디코딩은") and "초" in c.value for c in at.caption)


def test_after_a_race_the_box_keeps_the_prompt_sets_verdict_and_gives_the_race_under_it(tiny_dirs, monkeypatch):
    """Review 46: a race's "1.26× (faster on this one prompt)" in green, and the box's headline the race's, above the
    prompt set's "No, 0.74×": the set's verdict heads the box, the race is one line under it, and not green."""
    from specdec.bench.payoff import Measured, Payoff
    from specdec.records.provenance import Clock
    from ui import payoff_answer, payoff_view
    m = Measured(0.74, 0.71, 0.76, 3, Clock.WALL, 1.85, "ksweep", 8, acceptance_rate=0.5)
    fixed = (Payoff(3, m, 1.85, "here", 0.12, 2.1, 0.75), None)
    monkeypatch.setattr(payoff_view, "answer", lambda pair, s: fixed)
    monkeypatch.setattr(payoff_answer, "answer", lambda pair, s: fixed)
    at = app(tiny_dirs, page=None, k=3, max_new_tokens=16)
    at.button(key="race_go").click().run()
    assert not at.exception
    box = [m.value for m in at.markdown if m.value.startswith("**Does it pay here?**")]
    assert len(box) == 1 and box[0].startswith("**Does it pay here?** No: **0.74×** the target alone"), box
    line = [m.value for m in at.markdown if m.value.startswith("This prompt's race: **")]
    assert len(line) == 1 and "a figure, not a verdict" in line[0], line
    assert "of the time, against 50% on the answer box's prompts: a" in line[0]          # how this prompt compares
    assert not at.success                                                         # the box says no: no green
    said = next(c.value for c in at.caption if c.value.startswith("Speculative decoding wrote"))
    assert "×" not in said and "the answer box above sets this one prompt against many" in said   # ratio: the box's
    assert any(e.label == "Why this race's speed, and how this run compares" for e in at.expander)


def test_the_race_line_gives_the_races_and_how_the_prompt_compares():
    from ui.lessons.payoff_words import race_line
    one = race_line((1.26,), 0.48, 0.18)
    assert one.startswith("This prompt's race: **1.26×**") and one.endswith(
        "Its drafts were accepted 48% of the time, against 18% on the answer box's prompts: an easier prompt than "
        "most.")
    two = race_line((1.1, 1.3), 0.18, 0.18)
    assert "This prompt's 2 races: **1.20×**" in two and "(median, 1.10–1.30×, wall-clock)" in two
    assert two.endswith("a prompt like most.") and race_line((0.9,), 0.1, 0.18).endswith("a harder prompt than most.")
    assert "accepted" not in race_line((0.9,), None, 0.18)


def test_an_empty_message_gets_a_plain_word_not_the_chat_api_s(tiny_dirs):
    """Review 60: Home's one box answered an empty message with "message 1 (user) has no text"."""
    at = app(tiny_dirs, page=None, race_prompt="   ")
    at.button(key="race_go").click().run()
    assert not at.exception
    assert [w.value for w in at.warning] == ["Your message is empty: type something to race on."]
