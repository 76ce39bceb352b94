"""The lesson pages added for trees, the guided tour and the rule composer (AppTest, tiny models)."""
import json

import pytest

from apptest import app, rounds


def test_trees_page_verifies_a_round_and_steps_through_siblings(tiny_dirs):
    """The page's round is the engine's tree round for the same settings; its story, the
    tree and the mask are drawn; the sibling view steps through the root's children."""
    import specdec
    at = app(tiny_dirs, page="pages/trees.py", temperature=1.0, seed=3, k=3)
    at.button(key="tree_next").click().run()
    assert not at.exception
    dec = at.session_state["tree_run"][0]
    rnd = dec.history[0]
    pair = specdec.load_pair(str(tiny_dirs / "target"), str(tiny_dirs / "draft"))
    ref = specdec.Decoder(pair, "abc (abc", dec.settings).step()
    assert rnd.emitted == ref.emitted and len(rnd.tree.nodes) == len(ref.tree.nodes) > 0
    assert any(f"**{len(rnd.tree.nodes)}** nodes" in m.value for m in at.markdown)
    assert at.selectbox(key="tree_at").value == -1                    # the root first
    steps = at.select_slider(key="tree_step_-1")
    kids = [j for j, n in enumerate(rnd.tree.nodes) if n.parent == -1 and n.verdict != "untried"]
    assert str(steps.options[0]).startswith(f"try node {kids[0]} "), steps.options   # numbered as the tree's nodes
    steps.set_value(len(steps.options) - 1).run()
    assert not at.exception
    at.button(key="pass_price_run").click().run()
    assert not at.exception and any("-token pass costs" in m.value for m in at.markdown)
    assert any(c.value.startswith("Each v: the median over five rounds") for c in at.caption)
    at.button(key="tree_exact_run").click().run()
    table = at.dataframe[0].value
    assert not at.exception and len(table) == 3
    assert all(0 <= x <= 1 for x in table["distance to p (TV)"])
    assert json.loads(at.dataframe[0].proto.columns)["distance to p (TV)"]["type_config"]["format"] == "%.3f"


def test_trees_page_chain_against_tree_states_what_it_measured(tiny_dirs):
    at = app(tiny_dirs, page="pages/trees.py", temperature=0.0, k=3)
    at.button(key="trees_run").click().run()
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table["drafting"])[1:] == ["chain, k = 8", "tree, 8 nodes, width 2"]
    assert list(table["tokens read per pass"])[0] == 1.0
    ratio = table["tokens per target pass"][2] / table["tokens per target pass"][1]
    assert any(f"**{ratio:.2f}×**" in m.value for m in at.markdown)
    shown = json.loads(at.dataframe[0].proto.columns)        # how the grid formats them (not 26.6498)
    assert {name: c["type_config"]["format"] for name, c in shown.items() if "format" in c.get("type_config", {})} == {
        "tokens read per pass": "%.2f", "tokens per target pass": "%.2f", "tokens/s (median)": "%.1f",
        "draft forwards a round": "%.1f"}
    assert list(table["draft forwards a round"])[0] == 0 and list(table["draft forwards a round"])[1] > 0
    depths = at.dataframe[1].value                        # its own table: one column a depth, none clipped
    assert list(depths["drafting"]) == list(table["drafting"])[1:] and "1" in depths.columns
    assert all(0 <= a <= 1 for a in depths["1"]) and len(depths.columns) - 1 <= 8
    again = app(tiny_dirs, page="pages/trees.py", temperature=0.0, k=3)     # another session: kept on disk
    assert list(again.dataframe[0].value["drafting"]) == list(table["drafting"])
    assert again.button(key="trees_run").label == "Recompute"


def test_chain_or_tree_is_a_record_that_ships():
    """The measurement is a record (kept per machine, shipped with the app): its JSON reads back
    as the same rows, and its rows are named from the budget and width in the page's language."""
    from specdec.records import codec
    from specdec.records.provenance import Provenance
    from ui.lessons.trees import ChainOrTree, Row
    rows = (Row("alone", 1.0, (), (20.0, 21.0, 19.5), 1.0), Row("chain", 1.8, (0.5, 0.3), (18.0, 18.5, 17.9), 4.2),
            Row("tree", 2.1, (0.7, 0.4), (16.0, 16.2, 15.8), 6.0))
    table = ChainOrTree(5, 2, rows, Provenance(cpu="Some CPU", date="2026-12-05"))
    back = codec.from_json(ChainOrTree, codec.to_json(table))
    assert back == table and back.rows[1].median_tps == 18.0
    assert [table.name(r) for r in rows] == ["target alone", "chain, k = 5", "tree, 5 nodes, width 2"]


def test_rule_composer_spells_out_the_rule_and_its_distance(tiny_dirs):
    at = app(tiny_dirs, page="pages/exact.py")
    at.selectbox(key="cmp_preset").set_value("Draft over-confident").run()
    text = " ".join(m.value for m in at.markdown)
    assert "Exact distance to p: **0.0000** (lossless" in text           # the default: the right rule
    at.radio(key="cmp_test").set_value("p_ge_q").run()
    at.radio(key="cmp_fallback").set_value("p").run()
    text = " ".join(m.value for m in at.markdown)
    assert not at.exception
    assert "accept d only if p(d) ≥ q(d)" in text and "draw from p" in text
    assert "Accepted (probability Σ q·a = 0.300)" in text                # q mass of tokens 2-5
    assert "Exact distance to p: **0.1050** (biased" in text             # by hand, see test_exactness_lesson


@pytest.mark.parametrize("drafter", ["tree", "ngram-tree"])
def test_step_through_shows_tree_rounds(tiny_dirs, drafter):
    at = app(tiny_dirs, drafter=drafter, temperature=1.0, k=3)
    at.button(key="btn_next").click().run()
    at.button(key="btn_next").click().run()
    assert not at.exception and all(r.tree is not None for r in rounds(at))
    assert any("Draft a tree" in h.value for h in at.subheader)
    assert any("Walk down" in h.value for h in at.subheader)


def test_guided_tour_walks_eight_steps_with_a_live_widget_each(tiny_dirs):
    at = app(tiny_dirs, page="pages/tour.py", temperature=0.0, k=3)
    titles = []
    actions = {0: "tour_round", 3: "tour_where", 4: "tour_batch_go", 5: "tour_guess_go", 7: "tour_race"}
    for step in range(8):
        titles.append(at.header[0].value)
        if step in actions:
            at.button(key=actions[step]).click().run()
        assert not at.exception, (step, at.exception)
        if step == 4:                                               # a batch: each text as alone
            assert any("4 of 4 requests wrote token for token the text they wrote alone" in m.value
                       for m in at.markdown)
        if step == 6 and at.select_slider:                          # the shipped search curves
            assert any(", 1 judge call and" in m.value for m in at.markdown)     # pool 1: one call a question
            at.select_slider(key="tour_pool").set_value(at.select_slider(key="tour_pool").options[-1]).run()
            assert not at.exception and any(" judge calls and" in m.value for m in at.markdown)
        if step < 7:
            at.button(key="tour_next").click().run()
    assert [t.split(" · ")[0] for t in titles] == ["1", "2", "3", "4", "5", "6", "7", "8"]
    # the race at T = 0 in a neutral box whichever won (review 60), with where the answer over many prompts is
    boxes = [b.value for b in at.info if "identical" in b.value]
    assert len(boxes) == 1 and not at.success, boxes
    assert "on this one prompt" in boxes[0] and ("“Does it pay here?” says" in boxes[0] or
                                                 "One prompt, one run" in boxes[0]), boxes
    at.button(key="tour_back").click().run()
    assert at.header[0].value.startswith("7 ·")


def test_tour_budget_step_names_the_best_k_from_the_formula(tiny_dirs):
    from specdec.trace.theory import best_k
    at = app(tiny_dirs, page="pages/tour.py")
    at.session_state["tour_step"] = 2
    at.run()
    at.slider(key="tour_alpha").set_value(0.8).run()
    at.slider(key="tour_c").set_value(0.05).run()
    said = next(m.value for m in at.markdown if "Best k for these sliders" in m.value)
    assert f"Best k for these sliders: **{best_k(0.8, 0.05, 12)}**" in said
    assert "if α = 0.80 and c = 0.05 as set above" in said and "no forecast for this machine" in said
    at.slider(key="tour_alpha").set_value(0.2).run()                 # no k pays: said, not "best k = 1"
    at.slider(key="tour_c").set_value(0.9).run()
    said = " ".join(m.value for m in at.markdown)
    assert "no k beats the target alone" in said and "Best k for these sliders" not in said


def test_the_exactness_lab_checks_the_tree_rules_too(tiny_dirs):
    at = app(tiny_dirs, page="pages/exact.py", temperature=1.0)
    at.button(key="tree_exact_run").click().run()
    assert not at.exception
    table = at.dataframe[-1].value
    assert len(table) == 3 and any("Still exact with a tree of drafts?" in h.value for h in at.header)
    first, second = (f"{v:.3f}" for v in table["distance to p (TV)"][:2])     # the sentence states the table
    assert any(f"The two exact rules give {first} and {second}," in m.value for m in at.markdown)


@pytest.mark.parametrize("spec_s", [0.5, 1.02])
def test_the_tours_race_box_is_neutral_and_gives_the_box_verdict_beside_it(tiny_dirs, monkeypatch, spec_s):
    """Review 60: the tour ended on a green "1.08× (faster on this one prompt)" where the answer box said "No, 0.88×"
    at the same settings: the race is neutral whichever won, and the box's verdict at its settings follows it."""
    from types import SimpleNamespace

    from ui import payoff_view
    from ui.lessons import badges, home_race

    def racer(seconds):
        return SimpleNamespace(seconds=seconds, steps=2, tokens=2,
                               decoder=SimpleNamespace(generated=[1, 2], history=[]))
    monkeypatch.setattr(home_race, "race", lambda *a, **kw: (racer(1.0), racer(spec_s)))
    monkeypatch.setattr(payoff_view, "box_word", lambda p: ("No", 0.88, badges.here()))
    at = app(tiny_dirs, page="pages/tour.py", temperature=0.0, k=3)
    at.session_state["tour_step"] = 7
    at.run()
    at.button(key="tour_race").click().run()
    assert not at.exception
    assert not at.success
    shown = [b.value for b in at.info if "on this one prompt" in b.value]
    assert len(shown) == 1 and shown[0].endswith(
        f"Over many prompts at these settings, “Does it pay here?” says: **No, 0.88×** {badges.here()}."), shown
    assert any(c.value.startswith("On this prompt 0% of the drafts were accepted") and "one prompt, not the pair's "
               "average" in c.value for c in at.caption)
