"""Every speedup of a pair in one table (issue 51): the box's answer first, then this machine's
other figures, then the shipped ones, each with its badge and why it is not the box's figure;
numbers and reasons by hand."""
import time
from dataclasses import replace

import pytest
from points import point

from specdec.bench import machine
from specdec.bench.payoff import Measured, Payoff
from specdec.bench.points import Sweep
from specdec.records.provenance import Clock, here
from specdec.settings import Settings
from ui.lessons import other_rows, shipped, speed_table, store

WIDTHS = {m: 1 + 0.25 * (m - 1) for m in range(1, 18)}              # v(5) = 2.0
SPEED = store.PromptSet.of(["a", "b"], False, 16, "speed")            # the box's prompts
OTHER = store.PromptSet.of(["c"], False, 16, "speed")


def file(settings: Settings, prompts: store.PromptSet, speedup: float, source: str, clock=Clock.WALL) -> None:
    key_of = lambda p: store.key("fam/target", "fam/draft", settings, settings.k, prompts, clock)   # noqa: E731
    store.file([point(k=settings.k, speedup=speedup, speedup_min=speedup - 0.05, speedup_max=speedup + 0.05)],
               key_of, source)


KEY = {"pair": ["fam/target", "fam/draft"], "T": 0.7, "prompts": ["a", "b"], "chat": False, "n": 16}   # SPEED's


def ship_both(made, ksweep: float, tradeoff: float) -> None:
    """The box's setting (k = 4, T = 0.7, SPEED) shipped by the k sweep and the draft sizes from one machine."""
    shipped.save("ksweep", KEY, Sweep((point(k=4, speedup=ksweep),), made))
    shipped.save("tradeoff", {**KEY, "target": "fam/target", "k": 4},
                 Sweep((point(k=4, draft="fam/draft", speedup=tradeoff),), made))


def box(speedup: float | None, predicted: float | None) -> Payoff:
    found = None if speedup is None else Measured(speedup, speedup - 0.05, speedup + 0.05, 3, Clock.WALL, 1.6,
                                                   "box", 2)
    return Payoff(4, found, 1.6, "here", 0.25, 2.0, predicted)


def test_the_box_first_then_each_figure_here_with_how_its_setting_differs(places):
    asked = speed_table.Asked("fam/target", "fam/draft", Settings(k=4, temperature=0.7), SPEED)
    for settings, prompts, speedup, source, clock in [
            (Settings(k=4, temperature=0.7), SPEED, 0.70, "ksweep", Clock.WALL),   # the box's setting, earlier
            (Settings(k=2, temperature=0.0), SPEED, 0.95, "ksweep", Clock.WALL),   # another T and k
            (Settings(k=4, temperature=0.7), OTHER, 0.60, "drafters", Clock.CPU),  # other prompts, a busy machine
            (Settings(k=4, temperature=0.7), SPEED, 0.69, "box", Clock.WALL)]:     # the box's run, the newest
        file(settings, prompts, speedup, source, clock)
        time.sleep(0.01)
    rows = speed_table.rows(asked, box(0.69, 0.66), None)
    # the k sweep's 0.70 at the box's setting and prompts was replaced by the box's newer run: one figure a setting
    assert [r.figure for r in rows] == ["0.69× (0.64–0.74)", "0.66×", "0.60× (0.55–0.65)", "0.95× (0.90–1.00)"]
    assert [r.whose.split("[")[0] for r in rows] == [":green-badge", ":gray-badge"] + [":green-badge"] * 2
    assert rows[0].why.startswith("the answer") and rows[1].why.startswith("this machine's prices")
    assert rows[2].why == "other prompts; CPU time: the machine was busy"
    assert rows[3].why == "T = 0, not 0.7; k = 2, not 4"
    assert rows[3].setting == "T = 0, k = 2, 2 code and structured prompts × 16 tokens (When it is fast)"


def test_a_shipped_figure_says_its_machine_and_its_figure_at_this_machines_prices(places):
    asked = speed_table.Asked("fam/target", "fam/draft", Settings(k=4, temperature=0.7), SPEED)
    other = Sweep((point(k=2, mean_acceptance_length=1.5), point(k=4, mean_acceptance_length=2.5, speedup=1.05,
                                                                  speedup_min=1.0, speedup_max=1.1)),
                  replace(here(), cpu="Other CPU", date="2026-12-01"))
    shipped.save("ksweep", {"pair": ["fam/target", "fam/draft"], "T": 0.7, "prompts": ["a", "b"], "chat": False,
                            "n": 16}, other)
    shipped.save("ksweep", {"pair": ["fam/target", "fam/other"], "T": 0.7}, other)         # another draft's
    profile = machine.Profile("CPU here", "torch", 1, 10.0, WIDTHS, {"fam/draft": 0.25})
    rows = speed_table.rows(asked, box(None, 0.83), profile)
    assert [r.figure for r in rows] == ["0.83×", "1.05× (1.00–1.10)"]           # k = 4's point only
    assert ":orange-badge" in rows[1].whose and "Other CPU" in rows[1].whose
    # its 2.5 tokens a round at this machine's prices: 2.5 / (4 · 0.25 + v(5) = 2.0) = 0.83
    assert rows[1].why == "another machine's prices"
    assert rows[1].here == pytest.approx(2.5 / 3.0)
    assert speed_table.rows(asked, box(None, None), None)[0].why == \
        "another machine's prices, not priced here (no profile yet)"
    # the box offers k = 2 (picked by this machine's prices): the sweep's k = 2 point is a row too
    offered = speed_table.rows(replace(asked, offered=2), box(None, 0.83), profile)
    assert len(offered) == 3 and any(r.setting.startswith("T = 0.7, k = 2,") for r in offered), offered


def test_a_figure_shipped_from_this_cpu_model_stands_as_measured_and_is_not_priced_again(places, monkeypatch):
    """A machine like this one's figure is this machine's kind's: its row says so, reads its own speedup
    as this machine's figure and leaves the column of this machine's prices empty (review 28: a shipped
    1.08× beside its own re-pricing at 1.05× was one more near-duplicate figure); another CPU's is priced."""
    from shown import stand_in_cpu
    stand_in_cpu(monkeypatch, "Same CPU")
    asked = speed_table.Asked("fam/target", "fam/draft", Settings(k=4, temperature=0.7), SPEED)
    p = point(k=4, mean_acceptance_length=2.5)
    profile = machine.Profile("Same CPU", "torch", 1, 10.0, WIDTHS, {"fam/draft": 0.25})
    assert speed_table.moved(p, asked, profile, 4, "Same CPU") == "a machine like this one, its prices that day"
    assert speed_table.moved(p, asked, None, 4, "Same CPU") == "a machine like this one, its prices that day"
    assert speed_table.moved(p, asked, None, 4, "Other CPU") == \
        "another machine's prices, not priced here (no profile yet)"
    key = {"pair": ["fam/target", "fam/draft"], "T": 0.7, "prompts": ["a", "b"], "chat": False, "n": 16}
    shipped.save("ksweep", key, Sweep((point(k=4, mean_acceptance_length=2.5, speedup=0.8),),
                                      replace(here(), cpu="Same CPU", date="2026-12-01")))
    row = speed_table.rows(asked, box(None, 0.83), profile)[1]
    assert row.figure.startswith("0.80×") and row.mine and row.here == 0.8       # this machine's kind's figure
    assert row.at_prices() is None                                               # 2.5 / 3.0 = 0.83 not shown
    assert f"| **{row.figure}** | — |" in speed_table.markdown([row])
    stand_in_cpu(monkeypatch, "Other CPU")                                       # from another CPU: priced here
    row = speed_table.rows(asked, box(None, 0.83), profile)[1]
    assert not row.mine and row.at_prices() == pytest.approx(2.5 / 3.0)


def test_one_machines_same_setting_shipped_by_two_sections_is_a_row_each_said_to_be_another_run(places):
    asked = speed_table.Asked("fam/target", "fam/draft", Settings(k=4, temperature=0.7), SPEED)
    made = replace(here(), cpu="Other CPU", date="2026-12-01")
    ship_both(made, 0.81, 0.74)
    shipped.save("tradeoff", {**KEY, "target": "fam/target", "k": 4, "backend": "torch"},        # another backend's
                 Sweep((point(k=4, draft="fam/draft", speedup=0.5),), replace(made, cpu="Third CPU")))
    rows = speed_table.rows(asked, box(None, None), None)
    assert [(r.figure, r.section) for r in rows] == [("0.81× (0.90–1.10)", "When it is fast (its k sweep)"),
                                                     ("0.74× (0.90–1.10)", "When it is fast (every draft)")], rows
    assert "another run of the same setting" in rows[1].why and "another run" not in rows[0].why
    assert rows[1].numbers.v is None and rows[0].numbers.v is not None      # the draft sizes price no pass


def test_a_draft_length_policy_is_named_in_the_settings_and_the_reason(places):
    asked = speed_table.Asked("fam/target", "fam/draft", Settings(k=4, temperature=0.7, policy="priced"), SPEED)
    file(Settings(k=4, temperature=0.7), SPEED, 0.73, "box")                       # a constant k = 4
    rows = speed_table.rows(asked, box(None, 1.14), None)
    assert rows[0].setting.startswith("T = 0.7, k by this machine's prices, up to 4, ")
    assert rows[1].setting.startswith("T = 0.7, k = 4, ")
    assert rows[1].why == "k = 4, not k by this machine's prices, up to 4"
    picked = speed_table.Asked("fam/target", "fam/draft", Settings(k=4, temperature=0.7, policy="priced"), SPEED,
                               picked=1)                                   # the k the policy picks here
    rows = speed_table.rows(picked, box(None, 1.14), None)
    assert rows[0].setting.startswith("T = 0.7, k by this machine's prices (here k = 1), up to 4, ")
    assert rows[1].why == "k = 4, not k by this machine's prices (here k = 1), up to 4"
    assert picked.policy_reason(4) == ["k = 4, not k by this machine's prices (here k = 1), up to 4"]
    assert asked.policy_reason(4) == ["k = 4, not k by this machine's prices, up to 4"]


def test_the_table_is_markdown_with_one_line_a_row(places):
    asked = speed_table.Asked("fam/target", "fam/draft", Settings(k=4, temperature=0.7), SPEED)
    file(Settings(k=2, temperature=0.0), SPEED, 0.95, "ksweep")
    lines = speed_table.markdown(speed_table.rows(asked, box(None, 0.66), None)).splitlines()
    assert len(lines) == 2 + 2 and lines[1] == "|---|---|---|---|---|---|---|"
    assert lines[0].startswith("| # | whose | speedup: median (repeats' range) | at this machine's prices |")
    assert lines[3].startswith("| 2 | :green-badge[") and "| **0.95× (0.90–1.00)** | — |" in lines[3]  # not counted
    assert "| **0.66×** | 0.66× |" in lines[2]                              # the box's prediction: its price
    profile = machine.Profile("CPU here", "torch", 1, 10.0, WIDTHS, {"fam/draft": 0.25})
    lines = speed_table.markdown(speed_table.rows(asked, box(None, 0.66), profile)).splitlines()
    # measured here, it stands as measured: its 1.5 tokens a round at 2 · 0.25 + v(3) = 1.5 steps (0.75×) are
    # not a second figure beside the 0.95× it measured (review 28)
    assert "| **0.95× (0.90–1.00)** | — |" in lines[3] and "0.75×" not in lines[3], lines[3]


def test_one_sentence_gives_the_range_of_this_machines_figures_at_the_boxs_settings(places):
    asked = speed_table.Asked("fam/target", "fam/draft", Settings(k=4, temperature=0.7), SPEED)
    file(Settings(k=4, temperature=0.7), OTHER, 0.60, "drafters")          # the box's settings, other prompts
    file(Settings(k=2, temperature=0.0), SPEED, 1.30, "ksweep")            # another setting: not counted
    other = Sweep((point(k=4, mean_acceptance_length=2.5, speedup=1.05),), replace(here(), cpu="Other CPU"))
    shipped.save("ksweep", {"pair": ["fam/target", "fam/draft"], "T": 0.7, "prompts": ["a", "b"], "chat": False,
                            "n": 16}, other)
    profile = machine.Profile("CPU here", "torch", 1, 10.0, WIDTHS, {"fam/draft": 0.25})
    rows = speed_table.rows(asked, box(None, 0.66), profile)
    # counted: the prediction 0.66, the filed 0.60 (other prompts), the shipped sweep priced here 2.5 / 3.0 = 0.83;
    # not: the k = 2 figure (another setting) and the shipped 1.05 (another machine's prices)
    said = speed_table.summary(rows, asked.settings)
    assert said.startswith("At these settings (T = 0.7, k = 4) 3 of these figures answer for this machine (1 "
                           "measured here, 2 predicted from its profile); their medians run **0.60–0.83×**. The "
                           "others differ"), said              # whose each is (review 49: shipped ones called "here")
    assert speed_table.summary(rows[:1], asked.settings) is None                  # one figure: nothing to range
    # whether they pay is the box's word (review 25: "every one pays" beside the box's "Break-even")
    both = [replace(rows[0], here=0.9), replace(rows[0], here=1.1)]
    assert "**0.90–1.10×**." in speed_table.summary(both, asked.settings)
    assert "pays" not in speed_table.summary(both, asked.settings)


def test_a_servers_tokens_a_round_are_priced_at_this_machines_prices():
    from types import SimpleNamespace
    asked = speed_table.Asked("fam/target", "fam/draft", Settings(k=4, temperature=0.7), SPEED)
    profile = machine.Profile("CPU here", "torch", 1, 10.0, WIDTHS, {"fam/draft": 0.25})
    facts = SimpleNamespace(tokens_per_pass_1=1.84, pass_ratio_1=1.5, draft_ms_1=8.0, ar_pass_ms_1=20.0)
    # 1.84 tokens a round at 4 · 0.25 + v(5) = 2.0: 3.0 steps a round
    assert other_rows._server_here(facts, 4, asked, profile) == pytest.approx(1.84 / 3.0)
    assert other_rows._server_here(facts, 4, asked, None) is None
    # its round in its own passes: 1.5 + 8 / 20 = 1.9; its plain pass 20 ms, twice this machine's 10 ms step
    said = other_rows._server_prices(facts, profile)
    assert "round cost 1.90 of its target-alone passes and kept 1.84 tokens" in said and "20.0 ms, 2.0×" in said


def test_where_it_works_shipped_row_is_priced_here_for_the_whole_run_its_prompts_paid(places):
    """A typical run shipped from another CPU with its pooled overheads: its tokens a round at this
    machine's prices for the whole run (as every other priced row), not its rounds alone."""
    from specdec.trace.theory import Overheads, run_speedup
    from ui.lessons import other_rows
    from ui.typical import Typical
    asked = speed_table.Asked("fam/target", "fam/draft", Settings(k=4, temperature=0.7), SPEED)
    over = (Overheads(0.2, 0.1), Overheads(0.25, 0.05))
    t = Typical(None, 64, 0.18, 0.42, 1.66, 0.71, "Other CPU", over)
    profile = machine.Profile("CPU here", "torch", 1, 10.0, WIDTHS, {"fam/draft": 0.25})
    row = other_rows.where_rows(asked, t, profile)[0]
    # a round: 4 · 0.25 + v(5) = 2.0 → 3.0 steps for 1.66 tokens; plus prefill and bookkeeping both ways
    assert row.here == pytest.approx(run_speedup(1.66, 0, 0.0, 3.0, *over))
    assert row.here != pytest.approx(1.66 / 3.0)                         # not the rounds alone
    bare = other_rows.where_rows(asked, replace(t, over=None), profile)[0]
    assert bare.here == pytest.approx(1.66 / 3.0)                         # nothing recorded: the rounds


def test_many_drafts_at_once_gives_the_card_its_chain_and_its_tree(places, monkeypatch):
    """Chain against tree at the box's T, kept here: both figures are this machine's (each repeat's
    tokens a second over the target alone's in the same repeat); shipped from another CPU, the chain
    is priced here like any constant k (rounds alone), the tree is not (a tree's draft forward is no c)."""
    from specdec.records.provenance import Provenance
    from ui.lessons import result_cache
    from ui.lessons.trees import ChainOrTree, Row
    asked = speed_table.Asked("fam/target", "fam/draft", Settings(k=4, temperature=0.7), SPEED)
    rows = (Row("alone", 1.0, (), (20.0, 21.0, 19.0), 1.0, 0.0),
            Row("chain", 1.75, (0.5,), (12.0, 12.6, 11.4), 8.0, 7.0),
            Row("tree", 1.9, (0.6,), (10.0, 10.5, 9.5), 8.8, 3.9))
    table = ChainOrTree(8, 2, rows, Provenance(cpu="Other CPU", date="2026-12-06"))
    key = {"pair": ["fam/target", "fam/draft"], "settings": {"temperature": 0.7, "max_new_tokens": 32}}
    profile = machine.Profile("CPU here", "torch", 1, 10.0, WIDTHS, {"fam/draft": 0.25})
    result_cache.save("trees", key, table)
    chain, tree = other_rows.tree_rows(asked, profile)
    assert (chain.figure, chain.here, tree.figure, tree.here) == ("0.60×", pytest.approx(0.6), "0.50×",
                                                                  pytest.approx(0.5))
    assert chain.setting == "T = 0.7, k = 8, 6 prompts × 32 tokens" and chain.why.startswith("k = 8, not 4")
    assert chain.numbers.tokens == 1.75 and tree.setting.startswith("T = 0.7, a tree of 8 nodes")
    assert other_rows.tree_rows(replace(asked, settings=Settings(k=4, temperature=0.0)), profile) == []   # another T
    monkeypatch.setattr(result_cache, "kept", lambda kind, record: [])
    monkeypatch.setattr(shipped, "all_of", lambda kind, record: [(key, table)])
    chain, tree = other_rows.tree_rows(asked, profile)
    assert chain.here == pytest.approx(1.75 / (8 * 0.25 + 3.0))          # 8 drafts at c + v(9) = 3.0 steps
    assert tree.here is None and "not priced here" in tree.why and "Other CPU" in chain.whose
    assert chain.why.endswith("priced for its rounds alone: Many drafts at once kept no prefill")


def test_another_shipped_run_of_the_box_setting_is_said_to_be_another_run(places, monkeypatch):
    """Review 48: the box's shipped figure (row 1, 0.74×) and another day's run of the same setting on a machine of
    this CPU model (0.76×), the second said only to be "its prices that day": it is another run of the setting."""
    from shown import stand_in_cpu
    stand_in_cpu(monkeypatch, "Same CPU")
    asked = speed_table.Asked("fam/target", "fam/draft", Settings(k=4, temperature=0.7), SPEED)
    key = {"pair": ["fam/target", "fam/draft"], "T": 0.7, "prompts": ["a", "b"], "chat": False, "n": 16}
    shipped.save("ksweep", key, Sweep((point(k=4, speedup=0.74),), replace(here(), cpu="Same CPU", date="2026-12-05")))
    shipped.save("ksweep", {**key, "run": 2}, Sweep((point(k=4, speedup=0.76),),
                                                               replace(here(), cpu="Same CPU", date="2026-12-01")))
    answered = replace(box(None, None), measured=Measured(0.74, 0.71, 0.76, 3, Clock.WALL, 1.6, "ksweep", 2,
                                                          cpu="Same CPU"))
    rows = [r for r in speed_table.rows(asked, answered, None) if r.figure.startswith("0.76×")]
    assert len(rows) == 1 and "another run of the same setting" in rows[0].why, rows


def test_the_sentence_counts_shipped_figures_of_this_cpu_model_as_shipped_not_measured_here():
    from ui.lessons import badges
    rows = [speed_table.SpeedRow(badges.here(), "s", "0.74×", "x", "", 0.74, True),
            speed_table.SpeedRow(badges.like_this_legend(), "s", "0.76×", "x", "", 0.76, True),
            speed_table.SpeedRow(badges.like_this_legend(), "s", "0.71×", "x", "", 0.71, True)]
    said = speed_table.summary(rows, Settings(k=4, temperature=0.7))
    assert "(1 measured here, 2 shipped from a machine like this one, on other days)" in said, said


def test_a_shipped_run_of_the_box_setting_measured_here_since_is_listed_once_as_measured_here(places, monkeypatch):
    """Review 56: the card listed "When it is fast (its k sweep) 0.74×" (and "every draft" 0.76×), shipped from a
    machine like this one, under a section chart that draws the 0.77× measured here since at that k: those
    sections show the newer run (store.agree), so the card does too; another CPU's run stays, for comparison."""
    from shown import stand_in_cpu
    stand_in_cpu(monkeypatch, "Same CPU")
    asked = speed_table.Asked("fam/target", "fam/draft", Settings(k=4, temperature=0.7), SPEED)
    alike = replace(here(), cpu="Same CPU", date="2026-12-05")
    ship_both(alike, 0.74, 0.76)
    shipped.save("ksweep", {**KEY, "run": 2}, Sweep((point(k=4, speedup=0.9),), replace(alike, cpu="Other CPU")))
    before = [r.figure.split("×")[0] for r in speed_table.rows(asked, box(None, None), None)]
    assert sorted(before) == ["0.74", "0.76", "0.90"], before       # nothing measured here yet: each is a row
    file(Settings(k=4, temperature=0.7), SPEED, 0.77, "box")
    after = [r.figure.split("×")[0] for r in speed_table.rows(asked, box(0.77, 0.76), None)]
    assert after == ["0.77", "0.76", "0.90"], after                 # measured here, its prediction, the other CPU's
    file(Settings(k=4, temperature=0.7), OTHER, 0.6, "drafters")    # a run here on other prompts: not the same
    assert speed_table.measured_here_since(asked, SPEED) and not speed_table.measured_here_since(
        replace(asked, prompts=OTHER, settings=Settings(k=2, temperature=0.7)), OTHER)
