"""Too weak, right, too big (issue 40): an early-exit draft measured beside a family's drafts,
and the three roles read from measured rows."""
from points import point

from specdec.bench.sweeps import draft_tradeoff
from specdec.settings import Settings
from ui.lessons.fast import tradeoff_figure
from ui.lessons.fast_draft_size import roles, roles_caption


def row(draft, params, alpha, acc, c, speedup):
    return point(draft=draft, params=params, k=4, alpha=alpha, acceptance_rate=acc, c=c, speedup=speedup)


ROWS = [row("n-gram lookup", 0, 0.3, 0.1, 0.0, 1.05), row("smollm2/draft", 11, 0.45, 0.21, 0.06, 1.26),
        row("smollm2/draft-2l", 12, 0.33, 0.13, 0.08, 1.02), row("early exit @ 29", 130, 0.5, 0.27, 1.4, 0.5)]


def test_roles_by_what_lost_each_draft_its_speed_not_by_parameter_count():
    # by hand, k = 4: draft-2l's cost factor 1.32 / 1.24 = 1.06 < its weakness 1.785 / 1.487 = 1.20;
    # the early exit's cost factor 6.6 / 1.24 = 5.3 > its weakness 1.785 / 1.9375 = 0.92
    found = roles(ROWS)
    assert [r.draft for r in found.right] == ["smollm2/draft"]
    assert [r.draft for r in found.too_weak] == ["smollm2/draft-2l"]     # more parameters, yet weak
    assert [r.draft for r in found.too_big] == ["early exit @ 29"]
    text = roles_caption(ROWS)
    assert "**Too weak** (lost more to its acceptance than to its step cost): smollm2/draft-2l" in text
    assert ("smollm2/draft-2l (acceptance rate 13%, c = 0.08, 1.02×) — larger than smollm2/draft, yet it agrees less "
            "with the target (α̂ 0.33 against 0.45)") in text
    assert ("**Too big** (lost more to its step cost than to its acceptance): early exit @ 29 (acceptance rate 27%, "
            "c = 1.40, 0.50×) — one draft step costs more") in text
    assert "transformers' own forward" not in text                  # a row without its drafter: no reason guessed
    exits = ROWS[:3] + [point(draft="early exit @ 29", drafter="early-exit", params=130, k=4, alpha=0.5,
                              acceptance_rate=0.27, c=1.4, speedup=0.5)]
    assert "— one draft step costs more than a target step (its layers run through transformers' own forward" \
        in roles_caption(exits)


def test_the_best_size_is_not_called_right_where_it_still_loses():
    assert "**Right**: smollm2/draft" in roles_caption(ROWS)                          # 1.26×
    slow = ROWS[:1] + [row("smollm2/draft", 11, 0.45, 0.21, 0.06, 0.75),
                       row("smollm2/draft-2l", 12, 0.33, 0.13, 0.08, 0.7)]
    text = roles_caption(slow)
    assert "**Best of these sizes, yet slower than the target alone**: smollm2/draft" in text and "Right" not in text


def test_a_weaker_draft_whose_cost_took_more_is_too_big():
    # α 0.43, c 0.5: cost factor 3.0 / 1.24 = 2.42 > weakness 1.785 / 1.729 = 1.03
    costly = row("wide", 20, 0.43, 0.2, 0.5, 0.8)
    assert roles(ROWS[:2] + [costly]).too_big == (costly,)


def test_no_too_big_draft_is_said():
    text = roles_caption(ROWS[:3])
    assert "none is too big" in text and "Too big" not in text
    assert roles_caption(ROWS[:2]) is None                     # one draft model: no roles


def test_an_early_exit_draft_is_measured_with_its_own_cost_and_key(pair):
    settings = Settings(k=2, temperature=1.0, max_new_tokens=6)
    sweep = draft_tradeoff(lambda target, draft: pair, "tiny-target", ["tiny-draft"], ["ab(a"], settings,
                           lambda *_: None, repeats=1, exits=(1,))
    early = next(p for p in sweep.points if p.drafter == "early-exit")
    assert (early.draft, early.exit_layer) == ("early exit @ 1", 1)
    assert early.c > 0 and 0 < early.params < sum(p.numel() for p in pair.target.parameters())
    assert sweep.provenance.threads and sweep.provenance.backend      # where the sweep was measured
    key = tradeoff_figure("tiny-target", settings, None)(early)
    assert (key.draft, key.drafter) == (None, "early-exit@1")


def test_shipped_drafts_take_their_roles_at_this_machines_prices():
    from specdec.bench import machine, repriced
    from ui.lessons.fast_draft_size import at_prices
    widths = {m: 1 + 0.25 * (m - 1) for m in range(1, 10)}                   # v(5) = 2.0
    here = machine.Profile("CPU here", "torch", 1, 10.0, widths, {"fam/draft": 0.25, "fam/big": 0.1})
    # shipped from another CPU: c 0.37 and 0.55; priced here at k = 4: 3.0 / (1.0 + 2.0) = 1.00, 2.4 / 2.4 = 1.00
    shipped = [point(draft="fam/draft", drafter="model", params=1, k=4, alpha=0.6, acceptance_rate=0.3, c=0.37,
                     mean_acceptance_length=3.0, speedup=0.54),
               point(draft="fam/big", drafter="model", params=2, k=4, alpha=0.5, acceptance_rate=0.2, c=0.55,
                     mean_acceptance_length=2.5, speedup=0.43)]
    priced = at_prices(repriced.drafts(shipped, here))
    assert [(p.c, round(p.speedup, 3)) for p in priced] == [(0.25, 1.0), (0.1, round(2.5 / 2.4, 3))]
    text = roles_caption(priced)
    assert "c = 0.25" in text and "c = 0.10" in text and "0.37" not in text and "0.55" not in text
    assert "**Right**: fam/big" in text                                        # cheapest here: it wins here
    exit_ = point(draft="early exit @ 29", drafter="early-exit", params=30, k=4, alpha=0.5, acceptance_rate=0.25,
                  c=0.98, speedup=0.35)                                    # no price here: its measured figures
    both = at_prices(repriced.drafts(shipped + [exit_], here), shipped + [exit_])
    assert [p.draft for p in both] == ["fam/draft", "fam/big", "early exit @ 29"] and both[2].c == 0.98
    assert "early exit @ 29 (acceptance rate 25%, c = 0.98, 0.35×)" in roles_caption(both).split("**Too big**")[1]
    # under this machine's prices, the early exit's figures are the shipped ones: its badge says whose
    from ui.lessons.fast_draft_size import whose
    mine = {"fam/draft", "fam/big"}
    named = roles_caption(both, lambda d: d + whose(d, mine, "Other CPU"))
    assert "early exit @ 29 :orange-badge[Other CPU] (acceptance rate 25%" in named
    assert "fam/big (acceptance" in named and whose("fam/big", None, "Other CPU") == ""     # measured here: no badge


def test_the_trade_off_prices_each_draft_as_its_runs_paid_it(pair, monkeypatch):
    """One c (measure.c_paid): a draft model's point takes the draft forwards its runs timed; the
    one-step probe (here a stand-in saying 99) only where no round ran a draft forward (a lookup)."""
    from specdec.bench import sweeps
    monkeypatch.setattr(sweeps, "drafter_cost", lambda *_: (99.0, 1.0, 1.0))
    settings = Settings(k=2, temperature=1.0, max_new_tokens=12)        # rounds after the first: timed
    sweep = draft_tradeoff(lambda target, draft: pair, "tiny-target", ["tiny-draft"], ["abc (abc"], settings,
                           lambda *_: None, repeats=1)
    by = {p.drafter: p for p in sweep.points}
    assert 0 < by["model"].c < 99.0 and by["ngram"].c == 99.0


def test_a_shipped_trade_off_marks_the_drafts_whose_figures_are_runs_measured_here_since():
    """Review 57: under "That machine's c and speedups" the draft read 0.70×, the run measured here since (the bars
    take it: store.agree), not the shipped 0.76×: such a draft carries this machine's badge, and the line says so."""
    from ui.fast_draft_size_view import roles_text
    from ui.lessons import badges
    said = roles_text(ROWS, "Some Xeon", since={"smollm2/draft"})
    assert said.startswith(f"{badges.shipped('Some Xeon')} That machine's c and speedups; a draft marked "
                           f"{badges.here()} shows this machine's run since:"), said
    assert f"**Right**: draft {badges.here()} (acceptance rate 21%" in said, said
    assert "draft\\-2l (acceptance rate 13%" in said                     # shipped: no badge of its own
    plain = roles_text(ROWS, "Some Xeon")
    assert plain.startswith(f"{badges.shipped('Some Xeon')} That machine's c and speedups:") and \
        badges.here() not in plain
    assert badges.here() not in roles_text(ROWS, None, since={"smollm2/draft"})   # every figure measured here


def test_the_sizes_early_exits_are_named_beside_drafters_compareds_cheap_one():
    """Review 57: "early exit (first 4 layers)" at 0.37× on Drafters compared, early exits of 24, 27 and 29 layers
    here, nothing said."""
    from ui.lessons.fast_draft_size import exits_note
    exits = ROWS[:3] + [point(draft=f"early exit @ {n}", drafter="early-exit", params=130, exit_layer=n, k=4)
                        for n in (29, 24)]
    assert exits_note(exits, 4) == ("The early exits here are the target's own first 24, 29 layers: drafts nearly as "
                                    "big as the target, to show a draft too big to pay. Drafters compared's early "
                                    "exit runs its first 4, a cheap draft.")
    assert exits_note(ROWS, 4) is None                 # "early exit @ 29" without its drafter: not said
