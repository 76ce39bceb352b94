"""The pair card (issue 51): every figure of the pair in one numbered table with the acceptance
and prices behind it — by hand: which numbers each row carries, how they are written, and that
the box and the sidebar open the same card."""
import json
from dataclasses import replace

import torch
from points import point

from specdec.bench import machine
from specdec.bench.payoff import Measured, Payoff
from specdec.bench.points import Sweep
from specdec.records.provenance import Clock, here
from specdec.settings import Settings
from ui.lessons import badges, other_rows, pair_card, shipped, speed_table, store

from apptest import app, working

SPEED = store.PromptSet.of(["a", "b"], False, 16, "speed")


def test_a_rows_numbers_are_the_fields_its_point_has():
    n = pair_card.Numbers.of(point(acceptance_rate=0.23, alpha=0.5, mean_acceptance_length=1.85, c=0.16,
                                   verify_cost=2.0))
    assert n == pair_card.Numbers(0.23, 0.5, 1.85, 0.16, 2.0)
    assert pair_card.Numbers.of(object()) == pair_card.Numbers()           # a section that recorded none


def test_the_card_numbers_its_rows_and_writes_a_dash_for_what_was_not_recorded():
    rows = [speed_table.SpeedRow("W1", "Sec A", "0.74× (0.71–0.76)", "T = 0.7, k = 4, p", "why",
                                 numbers=pair_card.Numbers(0.234, 0.5, 1.85, 0.1604, 2.0)),
            speed_table.SpeedRow("W2", "Sec B", "0.98×", "T = 0.7, k = 4, q", "why")]
    lines = pair_card.markdown(rows, pair_card.Numbers(c=0.142, v=1.95)).splitlines()
    assert lines[0] == ("| # | whose | section | settings | acceptance rate | α̂ (mean β) | tokens a round (L) | c | "
                        "v(k + 1) | speedup |")
    assert lines[2].startswith("| 0 | :violet-badge[") and lines[2].endswith("| — | — | — | 0.142 | 1.95 | — |")
    assert lines[3] == ("| 1 | W1 | Sec A | T = 0.7, k = 4, p | 23% | 0.50 | 1.85 | 0.160 | 2.00 | "
                        "**0.74× (0.71–0.76)** |")
    assert lines[4] == "| 2 | W2 | Sec B | T = 0.7, k = 4, q | — | — | — | — | — | **0.98×** |"
    assert len(pair_card.markdown(rows).splitlines()) == 2 + 2                 # no profile yet: no row 0
    assert pair_card.row_of(rows, 0.7, 4, section="Sec B") == 2 and pair_card.row_of(rows, 0.0, 4) is None
    assert pair_card.row_of(rows, 0.7, 4, whose="W2") == 2 and pair_card.row_of(rows, 0.7, 4, prompts="p") == 1


def test_the_card_says_the_range_of_c_measured_on_this_cpu_model_against_row_0():
    """This machine's and a machine like it's c count; another CPU's and the server's batched loop's do not."""
    def row(whose, c, section="Sec"):
        return speed_table.SpeedRow(whose, section, "1×", "s", "why", numbers=pair_card.Numbers(c=c))
    rows = [row(badges.here(), 0.13), row(badges.like_this_legend(), 0.18), row(badges.another_legend(), 0.4),
            row(badges.here(), 0.05, "In a server")]
    said = pair_card.c_spread(rows, pair_card.Numbers(c=0.15), 20.0)
    assert said.startswith("c on this CPU model, where a run measured it: 0.130–0.180 (row 0: 0.150).") and \
        "about 3.0 ms" in said, said
    assert said.endswith("In a server's c (0.050) is left out: there a draft step is set against the batched loop's "
                         "own pass of the target alone, a slower one.")  # the row left out, named (review 36)
    assert "In a server" not in pair_card.c_spread(rows[:3], pair_card.Numbers(c=0.15), 20.0)
    assert pair_card.c_spread(rows[:1], pair_card.Numbers(c=0.15), 20.0) == ""         # one figure: no range
    assert pair_card.c_spread(rows, None, 20.0) == ""                                  # no profile yet


def test_every_speedup_row_carries_the_numbers_of_its_runs(places):
    asked = speed_table.Asked("fam/target", "fam/draft", Settings(k=4, temperature=0.7), SPEED)
    key_of = lambda p: store.key("fam/target", "fam/draft", Settings(k=2, temperature=0.0), 2, SPEED,  # noqa: E731
                                 Clock.WALL)
    store.file([point(k=2, acceptance_rate=0.4, alpha=0.55, mean_acceptance_length=1.7, c=0.15, verify_cost=1.4)],
               key_of, "ksweep")
    sweep = Sweep((point(k=4, acceptance_rate=0.23, alpha=0.5, mean_acceptance_length=1.85, c=0.16,
                         verify_cost=2.0),), here())
    shipped.save("ksweep", {"pair": ["fam/target", "fam/draft"], "T": 0.7, "prompts": ["a", "b"], "chat": False,
                            "n": 16}, sweep)
    box = Payoff(4, Measured(0.7, 0.68, 0.72, 3, Clock.WALL, 1.8, "box", 2, (), 0.17, 0.21, 0.48, 1.9),
                 1.8, "here", 0.17, 1.9, 0.65)
    rows = speed_table.rows(asked, box, None)
    assert [r.numbers for r in rows] == [
        pair_card.Numbers(0.21, 0.48, 1.8, 0.17, 1.9),            # the box's run
        pair_card.Numbers(None, None, 1.8, 0.17, 1.9),            # its prediction: tokens and prices, no count
        pair_card.Numbers(0.4, 0.55, 1.7, 0.15, 1.4),             # filed here at k = 2
        pair_card.Numbers(0.23, 0.5, 1.85, 0.16, 2.0)]            # shipped from a machine like this one
    assert rows[3].whose == badges.shipped(here().cpu, date=here().date) and here().date in rows[3].whose


def test_the_box_and_the_sidebar_open_one_card(tiny_dirs, monkeypatch, tmp_path):
    """After the box measured its settings, its button opens the card with that run as row 1 (its
    acceptance, its c) under this machine's profile as row 0; a page without the box (Where it
    works) opens the same card from the sidebar."""
    from specdec.models.kernels import cpu_model
    from ui.lessons import result_cache
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path / "kept")
    monkeypatch.setattr(machine, "STORE", tmp_path / "machine.json")
    target, draft = str(tiny_dirs / "target"), str(tiny_dirs / "draft")
    widths = {m: round(1 + 0.2 * (m - 1), 3) for m in range(1, 18)}
    profile = machine.Profile(cpu_model(), "torch", torch.get_num_threads(), 5.0, widths, {draft: 0.25},
                              target=target)
    machine.STORE.write_text(json.dumps({profile.key(): json.loads(json.dumps(machine.asdict(profile)))}))
    state = {"k": 2, "temperature": 0.0, "max_new_tokens": 4}
    at = app(tiny_dirs, page="pages/step_through.py", **state)
    at.button(key="payoff_measure").click().run()
    at.button(key="pair_card_box").click().run()
    assert not at.exception
    card = [m.value for m in at.markdown if m.value.startswith("| # | whose | section |")]
    assert len(card) == 1, [m.value[:40] for m in at.markdown]
    lines = card[0].splitlines()
    assert lines[2].startswith("| 0 | :violet-badge[") and lines[2].endswith("| 0.250 | 1.40 | — |")
    assert lines[3].startswith("| 1 | :green-badge[measured here]")
    assert "| T = 0, k = 2, 8 " in lines[3] and lines[3].count("| — |") <= 1, lines[3]
    figures = len(lines) - 3                    # below the header, its rule and row 0 (prices, not a figure)
    assert at.button(key="pair_card_box").label == at.sidebar.button(key="pair_card_sidebar").label  # no count
    assert any(f"Rows 1–{figures}: the figures" in c.value for c in at.caption)
    at = app(tiny_dirs, page="pages/where.py", **state)
    at.sidebar.button(key="pair_card_sidebar").click().run()
    assert not at.exception
    again = [m.value for m in at.markdown if m.value.startswith("| # | whose | section |")]
    assert again and again[0].splitlines()[3] == lines[3]
    # measured at k = 1 too: at k = 2 the card shows its own rows, k = 1's behind the toggle (review 50: 17 rows)
    at = app(tiny_dirs, page="pages/step_through.py", **{**state, "k": 1})
    at.button(key="payoff_measure").click().run()
    at = app(tiny_dirs, page="pages/step_through.py", **state)
    at.button(key="pair_card_box").click().run()
    short = next(m.value for m in at.markdown if m.value.startswith("| # | whose | section |"))
    assert "| T = 0, k = 2," in short and "| T = 0, k = 1," not in short, short
    assert at.toggle(key="pair_card_all").label == "Show every figure, other settings too (+1)"
    at.session_state["pair_card_all"] = True        # the toggle on (in a browser the dialog reruns alone, open;
    at.button(key="pair_card_box").click().run()    # here a rerun closes it: open it again, the toggle set)
    every = next(m.value for m in at.markdown if m.value.startswith("| # | whose | section |"))
    assert "| T = 0, k = 1," in every and len(every.splitlines()) == len(short.splitlines()) + 1, every


def test_the_benchmark_and_homes_races_have_their_rows(places):
    """The card lists the benchmark's speculative row of each (T, k) with its runs' numbers and why it
    differs, priced here where it was shipped; on Home, the races at the box's settings come first."""
    from specdec.bench.record import Bench, Row, Setting
    asked = speed_table.Asked("fam/target", "fam/draft", Settings(k=4, temperature=0.7), SPEED)
    spec = Row("engine speculative", 30.0, speedup=0.97, acceptance_rate=0.5, alpha=0.5, mean_acceptance_length=1.5)
    bench = Bench("fam/target", "fam/draft", 6, 48, 3, 0.16, (Setting(1, 0.0, (spec,), verify_cost=1.28),),
                  provenance=here())
    profile = machine.Profile("CPU here", "torch", 1, 10.0, {m: 1 + 0.25 * (m - 1) for m in range(1, 18)},
                              {"fam/draft": 0.25})
    mine = other_rows.bench_rows(asked, bench, True, profile)
    assert len(mine) == 1 and mine[0].figure == "0.97×" and mine[0].here == 0.97
    assert mine[0].numbers == pair_card.Numbers(0.5, 0.5, 1.5, 0.16, 1.28)
    assert mine[0].setting == "T = 0, k = 1, 6 held-out chats × 48 tokens (the benchmark)"
    assert mine[0].why.startswith("T = 0, not 0.7; k = 1, not 4; other prompts")
    elsewhere = replace(bench, provenance=replace(here(), cpu="Other CPU"))
    shipped_row = other_rows.bench_rows(asked, elsewhere, False, profile)[0]
    assert shipped_row.here == 1.5 / (1 * 0.25 + 1.25)                # its tokens a round at this machine's prices
    alike = other_rows.bench_rows(asked, bench, False, profile)[0]     # shipped from this CPU model: as measured
    assert alike.here == 0.97 and alike.at_prices() is None
    assert other_rows.bench_rows(replace(asked, draft="fam/other"), bench, True) == []   # another pair's bench
    races = other_rows.race_rows(asked, (1.35, 1.09))
    assert races[0].figure == "1.22× (1.09–1.35)" and races[0].section == "Home's race" and races[0].same
    assert other_rows.race_rows(asked, ()) == []


def test_a_figure_at_the_k_the_policy_picks_is_not_said_to_differ_in_k(places):
    """Home's box drafts k by prices (here k = 1): a benchmark row at k = 1 differs by drafting it in
    every round, not by 'k = 1, not 4'; one at k = 2 by its k."""
    from specdec.bench.record import Bench, Row, Setting
    asked = speed_table.Asked("fam/target", "fam/draft", Settings(k=4, temperature=0.0, policy="priced"), SPEED,
                              picked=1)
    rows = [Setting(k, 0.0, (Row("engine speculative", 30.0, speedup=0.97, mean_acceptance_length=1.5),))
            for k in (1, 2)]
    one, two = other_rows.bench_rows(asked, Bench("fam/target", "fam/draft", 6, 48, 3, 0.16, tuple(rows),
                                                   provenance=here()), True)
    assert one.why.startswith("this row fixes k = 1; the answer box's policy picks k each round; other "
                              "prompts"), one.why
    assert "not 4" not in one.why and "not 4" not in two.why
    assert two.why.startswith("k = 2, not k by this machine's prices (here k = 1), up to 4"), two.why


def test_the_sidebar_measures_this_machines_prices_again_and_every_prediction_follows(tiny_dirs, monkeypatch,
                                                                                       tmp_path):
    """"Measure these prices again" replaces the profile (the pair's draft priced with it) and the page
    predicts with the new one: the box's why line and the sidebar both show the new c."""
    from specdec.models.kernels import cpu_model
    from ui.lessons import result_cache
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path / "kept")
    monkeypatch.setattr(machine, "STORE", tmp_path / "machine.json")
    target, draft = str(tiny_dirs / "target"), str(tiny_dirs / "draft")
    widths = {m: round(1 + 0.2 * (m - 1), 3) for m in range(1, 18)}
    old = machine.Profile(cpu_model(), "torch", torch.get_num_threads(), 5.0, widths, {draft: 0.25}, target=target)
    machine.STORE.write_text(json.dumps({old.key(): json.loads(json.dumps(machine.asdict(old)))}))
    asked = []

    def measure(pair, drafts, progress=lambda *_: None):
        asked.append(sorted(drafts))
        return replace(old, step_ms=4.0, c={draft: 0.125})
    monkeypatch.setattr(machine, "measure", measure)
    at = app(tiny_dirs, page="pages/step_through.py", k=2, temperature=0.0, max_new_tokens=4)
    assert "at 0.250 each (c) and a check of 3 tokens" in working(at)
    at.button(key="profile_again").click().run()
    assert not at.exception and asked == [[draft]]                       # the pair's draft priced again
    assert "at 0.125 each (c) and a check of 3 tokens" in working(at)      # the box follows
    assert any("a target step **4.0 ms**" in c.value for c in at.sidebar.caption)


def test_the_cards_legend_names_only_the_badges_it_shows():
    shown = f"| 1 | {badges.here()} | 0.76× |\n| 2 | {badges.shipped('Some other CPU (family 1, model 2)')} |"
    said = pair_card.legend(shown)
    assert "a run on this machine" in said and "shipped from another CPU" in said
    assert "computed from those prices" not in said and "this CPU model" not in said and "family only" not in said
    assert pair_card.legend().count("-badge[") == 6                       # the glossary's: every badge
