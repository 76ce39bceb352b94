"""A sweep shipped from another machine, priced again with this machine's profile (issue 51,
deliverable 1): tokens a round travel, prices do not. Expected values by hand."""
import json

import pytest
import torch
from points import point

from specdec.bench import machine, repriced

WIDTHS = {m: round(1 + 0.25 * (m - 1), 3) for m in range(1, 18)}          # v(2) = 1.25, v(3) = 1.5, v(5) = 2.0


def profile(c: dict) -> machine.Profile:
    return machine.Profile("CPU here", "torch", 1, 10.0, WIDTHS, c)


def test_a_k_sweep_is_priced_with_this_machines_c_and_pass():
    shipped = [point(k=1, mean_acceptance_length=1.5, c=0.9), point(k=2, mean_acceptance_length=2.0, c=0.9),
               point(k=20, mean_acceptance_length=3.0)]                   # v(21) not measured here: left out
    here = repriced.k_sweep(shipped, 0.25, WIDTHS)
    # k = 1: 1.5 / (0.25 + 1.25) = 1.0; k = 2: 2.0 / (0.5 + 1.5) = 1.0 (not the shipped c = 0.9)
    assert [(r.point.k, r.c, r.v) for r in here] == [(1, 0.25, 1.25), (2, 0.25, 1.5)]
    assert [r.speedup for r in here] == pytest.approx([1.0, 1.0]) and here[0].over is None     # rounds only
    assert repriced.k_sweep(shipped, None, WIDTHS) == []                  # no c for this draft here
    # a point that recorded its prompt's reading and bookkeeping is priced for the whole run:
    # (0.2 + 1 + 0.05) / (0.1 + (0.25 + 1.25 + 0.1) / 1.5) = 1.25 / 1.1667
    whole = repriced.one(point(k=1, mean_acceptance_length=1.5, prefill_steps=0.1, base_prefill_steps=0.2,
                               round_overhead=0.1, base_overhead=0.05), 0.25, WIDTHS)
    assert whole.speedup == pytest.approx(1.25 / (0.1 + 1.6 / 1.5))


def test_each_draft_at_its_own_c_and_a_draft_without_one_left_out():
    shipped = [point(draft="fam/draft", drafter="model", k=4, mean_acceptance_length=3.0),
               point(draft="n-gram lookup", drafter="ngram", k=4, mean_acceptance_length=1.5, drafted_per_round=1.5),
               point(draft="fam/other", drafter="model", k=4),                   # not profiled here
               point(draft="early exit @ 3", drafter="early-exit", k=4)]         # no c for an early exit
    here = repriced.drafts(shipped, profile({"fam/draft": 0.25}))
    # the draft: 3.0 / (4 · 0.25 + 2.0) = 1.0; n-gram lookup runs no model and drafted 1.5 a round, not
    # k = 4: a pass of 2.5 tokens, v(2.5) = 1.375 (between 1.25 and 1.5), 1.5 / 1.375 = 1.0909
    assert [(r.point.draft, r.c, r.drafts, r.found) for r in here] == [("fam/draft", 0.25, 4, False),
                                                                       ("n-gram lookup", 0.0, 1.5, True)]
    assert [r.speedup for r in here] == pytest.approx([1.0, 1.5 / 1.375])
    assert repriced.drafts(shipped, None) == []


def test_a_lookup_without_its_count_is_priced_from_its_rate_and_left_out_where_it_kept_nothing():
    # L = a·d + 1: 1.6 = 0.3 · d + 1, d = 2 drafts a round, v(3) = 1.5; 1.6 / 1.5
    older = point(draft="n-gram lookup", drafter="ngram", k=4, mean_acceptance_length=1.6, acceptance_rate=0.3)
    assert repriced.lookup(older, WIDTHS).speedup == pytest.approx(1.6 / 1.5)
    assert repriced.lookup(point(mean_acceptance_length=1.0, acceptance_rate=0.0), WIDTHS) is None
    assert repriced.lookup(point(drafted_per_round=17.5), WIDTHS) is None        # v(18.5) not measured here
    assert repriced.pass_at(WIDTHS, 1.0) == 1.0 and repriced.pass_at(WIDTHS, 4.5) == pytest.approx(1.875)


@pytest.mark.parametrize("kept", [False, True])
def test_the_page_prices_a_shipped_k_sweep_again_here(tiny_dirs, monkeypatch, tmp_path, kept):
    """When it is fast, section 2 with the real shipped k sweep (another CPU) and a profile of
    this machine: a sentence and a chart line of the sweep's tokens a round at this machine's prices."""
    from specdec import defaults
    from specdec.bench.points import Sweep
    from specdec.models.kernels import cpu_model
    from specdec.settings import Settings
    from ui import family
    from ui.lessons import result_cache, shipped, store

    from apptest import app
    monkeypatch.setattr(shipped, "SHIPPED_DIR", tmp_path / "shipped")
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path / "kept")
    monkeypatch.setattr(machine, "STORE", tmp_path / "machine.json")
    real = next(s for s in (shipped.read(f, Sweep) for f in sorted(shipped.ROOT.glob("assets/results/ksweep-*.json")))
                if not shipped.alike(s.provenance.cpu))     # another CPU model's: this one's reads as measured
    at = app(tiny_dirs, page=None, temperature=0.7)
    names, texts = at.session_state["active_pair"], family.speed_prompts(False)[0]
    mine = machine.Profile(cpu_model(), "torch", torch.get_num_threads(), 10.0, WIDTHS, {names[1]: 0.25},
                           9.0, 50.0, 80.0, 135.0, target=names[0])
    machine.STORE.write_text(json.dumps({mine.key(): machine.asdict(mine)}))
    settings = Settings(temperature=0.7, max_new_tokens=defaults.LENGTHS.speed)
    ran = store.Ran(threads=torch.get_num_threads())
    (result_cache if kept else shipped).save(
        "ksweep", store.measurement("ksweep", names, settings, texts, False, ran, repeats=defaults.REPEATS), real)
    at.switch_page("pages/fast.py").run()
    assert not at.exception
    if kept:        # measured here: not priced again, but its c set beside the profile's
        assert not any("priced again" in m.value for m in at.markdown)
        assert any(c.value.startswith(f"c = {real.points[0].c:.3f} in these runs; this machine's profile (measured "
                                      "at start) has c = 0.250") for c in at.caption)
        return
    first = real.points[0]

    def whole(p) -> float:        # the shipped runs' prompt reading and bookkeeping, in their steps
        return (p.base_prefill_steps + 1 + p.base_overhead) / (
            p.prefill_steps + (p.k * 0.25 + WIDTHS[p.k + 1] + p.round_overhead) / p.mean_acceptance_length)
    by_hand = {p.k: whole(p) for p in real.points}
    best = max(by_hand, key=by_hand.get)
    said = [m.value for m in at.markdown if "priced again, whole runs:**" in m.value]
    assert len(said) == 1 and "c = 0.250" in said[0], said
    assert f"**{by_hand[first.k]:.2f}×** at k = {first.k}" in said[0]
    assert (", its best." if best == first.k else f"at best **{by_hand[best]:.2f}×** at k = {best}") in said[0]
    from ui.lessons import badges
    badge = badges.shipped(real.provenance.cpu, date=real.provenance.date)
    line = [m.value for m in at.markdown if m.value.startswith("α̂") and f"speedup {badge} **" in m.value]
    assert len(line) == 1 and "c = " not in line[0], line        # its c was that machine's: not this page's


def test_the_sentence_names_the_best_k_only_where_it_is_another():
    from ui.lessons import fast_repriced
    rising = repriced.k_sweep([point(k=1, mean_acceptance_length=1.5), point(k=2, mean_acceptance_length=3.0)],
                              0.25, WIDTHS)                              # 1.00× at k = 1, 1.50× at k = 2
    text = fast_repriced.k_sweep(rising, "CPU here")
    assert text.endswith("**1.00×** at k = 1 and at best **1.50×** at k = 2.")    # what travels: in its help
    assert "**1.00×** at k = 1, its best." in fast_repriced.k_sweep(rising[:1], "CPU here")


def drafter_point(label: str, length: float | None, speedup: float = 1.36):
    from specdec.bench.compared import DrafterPoint
    return DrafterPoint(drafter=label, kind="all", acceptance_rate=0.2, mean_acceptance_length=length, c=0.5,
                        speedup=speedup, speedup_min=speedup, speedup_max=speedup, load=0.2)


def test_a_shipped_drafter_comparison_is_priced_at_each_drafters_c_here():
    from dataclasses import replace

    from specdec.bench.compared import Variant
    from ui.lessons.drafters import priced_here, priced_left_out
    variants = [Variant("draft", "fam/draft"), Variant("n-gram lookup", None, drafter="ngram"),
                Variant("draft · heuristic", "fam/draft", policy="heuristic"),
                Variant("early exit @ 4", None, drafter="early-exit")]
    shipped = [drafter_point("draft", 3.0), drafter_point("n-gram lookup", 1.5),
               drafter_point("draft · heuristic", 2.0), drafter_point("early exit @ 4", 2.0),
               drafter_point("gone", 2.0)]
    here = repriced.compared(shipped, variants, 4, profile({"fam/draft": 0.25}))
    # k = 4, v(5) = 2.0: the draft 3.0 / (4 · 0.25 + 2.0) = 1.00 (not its shipped 1.36); n-gram lookup drafts
    # only what it finds: 1.5 = 0.2 · d + 1, d = 2.5 a round, v(3.5) = 1.625, 1.5 / 1.625 = 0.923; the policy
    # runs draft steps it does not keep, the early exit has no c here, "gone" is no variant: left out
    assert [(r.point.drafter, r.c, r.drafts) for r in here] == [("draft", 0.25, 4), ("n-gram lookup", 0.0, 2.5)]
    assert [r.speedup for r in here] == pytest.approx([1.0, 1.5 / 1.625])
    assert repriced.compared(shipped, variants, 4, None) == []
    assert priced_here(here, "CPU here", 4) == (
        ":gray-badge[predicted here] **Here (CPU here), priced again, rounds only** at k = 4 "
        "with each drafter's c on this machine: draft 1.00× (c = 0.25), n-gram lookup 0.92× (2.5 drafted a round).")
    assert priced_left_out(["draft · heuristic", "early exit @ 4"]).startswith(
        "Not priced again: draft · heuristic, early exit (first 4 layers)")
    # a comparison that recorded what its runs paid besides their rounds is priced for the whole run, and
    # says so: the draft (0.3 + 1 + 0.05) / (0.4 + (4 · 0.25 + 2.0 + 0.2) / 3.0); the lookup
    # (0.3 + 1 + 0.05) / (0.4 + (1.625 + 0.2) / 1.5)
    paid = dict(prefill_steps=0.4, base_prefill_steps=0.3, round_overhead=0.2, base_overhead=0.05)
    whole = repriced.compared([replace(p, **paid) for p in shipped], variants, 4, profile({"fam/draft": 0.25}))
    assert [r.speedup for r in whole] == pytest.approx([1.35 / (0.4 + 3.2 / 3.0), 1.35 / (0.4 + 1.825 / 1.5)])
    assert "**Here (CPU here), priced again, whole runs** at k = 4" in priced_here(whole, "CPU here", 4)
    assert "rounds only" in priced_here(here + whole[:1], "CPU here", 4)      # one point without: rounds only


def test_kinds_of_text_at_one_k_are_priced_and_a_kind_without_drafts_left_out():
    from dataclasses import replace

    from specdec.bench.where import KindPoint
    kinds = [KindPoint(kind=kind, prompts=8, acceptance_rate=0.3, mean_acceptance_length=length, speedup=1.6,
                       speedup_min=1.5, speedup_max=1.7, per_position=(), histogram=())
             for kind, length in (("code", 2.5), ("none", None))]
    here = repriced.each(kinds, 2, 0.25, WIDTHS)
    assert [(r.point.kind, r.drafts) for r in here] == [("code", 2)]
    assert here[0].speedup == pytest.approx(1.25)            # 2.5 / (2 · 0.25 + v(3) = 1.5)
    assert repriced.each(kinds, 2, None, WIDTHS) == [] and repriced.each(kinds, 20, 0.25, WIDTHS) == []
    # with what its runs paid besides their rounds: (0.3 + 1 + 0.05) / (0.4 + (0.5 + 1.5 + 0.2) / 2.5)
    paid = replace(kinds[0], prefill_steps=0.4, base_prefill_steps=0.3, round_overhead=0.2, base_overhead=0.05)
    whole = repriced.each([paid], 2, 0.25, WIDTHS)
    assert whole[0].speedup == pytest.approx(1.35 / (0.4 + 2.2 / 2.5))
    from ui.lessons.where import priced_caption
    assert "priced again, whole runs**: each kind's tokens a round" in priced_caption(whole, "CPU here")
    assert "priced again, rounds only**: each kind's" in priced_caption(here, "CPU here")


def test_every_c_under_the_trade_offs_bars_names_its_machine():
    from ui.figures.fast import tradeoff_figure
    shipped = [point(draft="fam/draft", drafter="model", params=11_300_000, k=4, c=0.37, mean_acceptance_length=3.0,
                     speedup=0.54),
               point(draft="fam/big", drafter="model", params=130_000_000, k=4, c=0.55, speedup=0.43)]   # no c here
    here = repriced.drafts(shipped, profile({"fam/draft": 0.25}))          # 3.0 / (4 · 0.25 + 2.0) = 1.00
    speed = tradeoff_figure(shipped, "speedup", "t", "Intel Xeon", here)
    names = list(speed.data[0].x)
    assert names == ["draft · 11.3M ★ (c = 0.25 here)", "big · 130.0M"]   # the shipped 0.37 and 0.55: not shown
    assert list(speed.data[0].y) == pytest.approx([1.0, 0.0]) and list(speed.data[1].y) == [0.54, 0.43]
    assert "Intel Xeon" in speed.data[1].name and speed.data[0].text[1] == "—"          # not priced: no bar
    acc = tradeoff_figure(shipped, "acceptance_rate", "t", "Intel Xeon", here)
    assert list(acc.data[0].x) == names                                   # the same labels, one trace
    assert list(tradeoff_figure(shipped, "speedup", "t", "Intel Xeon").data[0].x) == ["draft · 11.3M ★",
                                                                                      "big · 130.0M"]  # no profile
    mine = tradeoff_figure(shipped, "speedup", "t")                       # measured here: this machine's c
    assert list(mine.data[0].x) == ["draft · 11.3M ★ (c = 0.37)", "big · 130.0M (c = 0.55)"]
    # review 40: n-gram lookup at 0.83× beside a starred 0.83×: drafts within 3% of the fastest share its star
    close = [point(draft="fam/a", drafter="model", params=1_000_000, k=4, c=0.3, speedup=0.83),
             point(draft="fam/b", drafter="model", params=2_000_000, k=4, c=0.3, speedup=0.81),   # 0.81 ≥ 0.97 · 0.83
             point(draft="fam/c", drafter="model", params=3_000_000, k=4, c=0.3, speedup=0.80)]   # 0.80 < 0.805
    assert [n.endswith("★ (c = 0.30)") for n in tradeoff_figure(close, "speedup", "t").data[0].x] == [True, True, False]


def test_the_box_line_gives_the_sidebar_draft_the_figure_its_priced_table_shows():
    """Drafters compared priced at this machine: the line beside the box gives the draft's figure at this
    machine's prices (the table's), not the other machine's measured one (review 48: 1.02× beside 1.07×)."""
    from types import SimpleNamespace

    from ui.lessons.drafters import own_row
    overall = [SimpleNamespace(drafter="draft", speedup=1.02)]
    here = [SimpleNamespace(point=overall[0], speedup=1.07)]
    said = own_row(overall, "smollm2/draft", 1, "24 prompts", here)
    assert "**1.07×**" in said and "1.02" not in said and "predicted here" in said
    assert "**1.02×**" in own_row(overall, "smollm2/draft", 1, "24 prompts")     # not priced again: as measured
