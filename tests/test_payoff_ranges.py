"""Does it pay here?'s prediction and its range (issue 51): where earlier measurements here landed against their
own predictions, and on a fresh machine where the shipped k sweep of its CPU model landed (AppTest, tiny models
and the embedded pair, a profile and figures written by hand)."""
import re

import pytest
from conftest import needs_embedded
from shown import shown_files, stand_in_cpu
from test_payoff import WIDTHS
from test_payoff_pages import hand_profile

from specdec.bench import machine
from specdec.records.provenance import Clock
from ui.lessons import badges

from apptest import app, working


def test_a_prediction_carries_the_range_where_measurements_here_landed_against_theirs(tiny_dirs, monkeypatch,
                                                                                      tmp_path):
    """Three figures filed here at constant k, each with what its runs paid besides their rounds: each
    priced as the box prices (the profile, its tokens a round, its overheads) gives measured ÷
    predicted; their range, applied to the box's prediction, follows it."""
    from specdec.settings import Settings
    from specdec.trace.theory import Overheads, run_speedup
    from ui.lessons import result_cache, store
    target, draft, threads = hand_profile(tiny_dirs, monkeypatch, tmp_path)
    ran = store.Ran(threads=threads)
    paid = dict(prefill_steps=0.2, base_prefill_steps=0.25, round_overhead=0.1, base_overhead=0.05)
    over = (Overheads(0.2, 0.1), Overheads(0.25, 0.05))
    # k = 1 (a pass of 2: 1.2 steps), k = 2 (1.4), k = 4 (1.8): each one's prediction by hand
    filed = [(1, 1.5, 0.95), (2, 1.9, 0.9), (4, 2.4, 0.7)]          # k, tokens a round, measured speedup
    predicted = {k: run_speedup(t, k, 0.25, WIDTHS[k + 1], *over) for k, t, _x in filed}
    ratios = [x / predicted[k] for k, _t, x in filed]
    for i, (k, tokens, speedup) in enumerate(filed):
        fig = store.Figure(speedup=speedup, speedup_min=speedup, speedup_max=speedup, clock=Clock.WALL, repeats=3,
                           mean_acceptance_length=tokens, **paid)
        key = store.key(target, draft, Settings(k=k, temperature=0.0), k,
                        store.PromptSet.of(["a"], False, 16, "speed"), Clock.WALL, ran)
        result_cache.save(store.KIND, store._as_dict(key), store.Filed(fig, "ksweep", float(i)))
    at = app(tiny_dirs, page="pages/step_through.py", k=2, temperature=0.0, max_new_tokens=4)
    why = next(c for c in at.caption if c.value.startswith("Why: a round costs"))
    low, high = predicted[2] * min(ratios), predicted[2] * max(ratios)
    # the figure is the profile's price moved by the median ratio: inside its own range; beside the
    # measurement at k = 2 it is in the working only (one figure in view for one setting)
    central = predicted[2] * sorted(ratios)[1]
    assert low <= central <= high
    assert f"{central:.2f}×" not in why.value, why.value
    # the working's ladder: the profile's whole-run price, then the measurement (which answers: the prediction
    # moved by where runs land is not shown beside it)
    table = working(at)
    assert f"| {predicted[2]:.2f}× |" in table and "| **0.90×** (0.90× in every repeat) |" in table, table
    assert "times their prediction" not in table.split("**The k this")[0], table
    from ui import loaders, payoff_answer
    box = payoff_answer.answer(loaders.cached(target, draft), Settings(k=2, temperature=0.0, max_new_tokens=4))[0]
    assert box.predicted == pytest.approx(central) and box.likely == pytest.approx((low, high))


@needs_embedded
def test_the_priced_box_at_t0_sets_the_shipped_k_sweep_at_its_k_beside_the_prediction(monkeypatch, tmp_path):
    """The sidebar at T = 0 with k by this machine's prices (Home's race's settings); nothing measured here. On a
    machine of another CPU model the box predicts, with the shipped T = 0 k sweep's point at the k the prices
    pick beside it (its tokens a round priced here: one figure for that k); on a machine like the one that
    shipped it, that point is the answer. Home, before a race, gives every other page's answer at the
    sidebar's settings (review 43)."""
    from streamlit.testing.v1 import AppTest

    from specdec.drafters.policies import PRICED
    from ui.lessons import result_cache

    from apptest import APP
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path)      # nothing measured here
    stand_in_cpu(monkeypatch, "CPU here")                            # of a model that shipped nothing
    # this machine's prices by hand (a clean clone has no profile until the server measures one)
    widths = {m: 1 + 0.25 * (m - 1) for m in range(1, 18)}
    mine = machine.Profile("CPU here", "torch", 1, 10.0, widths, {"smollm2/draft": 0.15}, 9.0, 50.0, 80.0, 135.0)
    monkeypatch.setattr(machine, "of", lambda pair: mine)
    greedy = next(f for f in shown_files("ksweep") if f["key"]["T"] == 0.0 and f["key"]["pair"] == ["smollm2/target",
                                                                                                   "smollm2/draft"])
    at = AppTest.from_file(APP, default_timeout=300).run()
    # the default pair's draft reads the target's hidden states: Home says so beside the steps (review 27)
    assert any(c.value.startswith("This pair's draft is a **feature draft**") for c in at.caption)
    home = next(m.value for m in at.markdown if m.value.startswith("**Does it pay here?**"))
    elsewhere = next(m.value for m in at.switch_page("pages/fast.py").run().markdown
                     if m.value.startswith("**Does it pay here?**"))
    assert home == elsewhere                          # before a race: the sidebar's settings' answer, word for word

    def priced_box():
        at = AppTest.from_file(APP, default_timeout=300)
        at.session_state["temperature"], at.session_state["policy"] = 0.0, PRICED
        return at.run().switch_page("pages/step_through.py").run()
    at = priced_box()
    box = next(c.value for c in at.caption if c.value.startswith("A constant k = "))   # under the verdict
    k = int(re.search(r"A constant k = (\d+), measured", box).group(1))
    point = next(p for p in greedy["value"]["points"] if p["k"] == k)
    cpu = greedy["value"]["provenance"]["cpu"]
    assert f"A constant k = {k}, measured: **{point['speedup']:.2f}×** {badges.shipped(cpu)}" in box, box
    assert "(the shipped k sweep, T = 0, When it is fast's 8 prompts)" in box
    # its prediction prices the whole run with the tokens a round that point kept (not eq. (1) at α̂)
    why = next(c for c in at.caption if c.value.startswith("Why: a round costs"))
    assert f"keeps **{point['mean_acceptance_length']:.2f} tokens**" in why.value and "α̂" not in why.value, why.value
    assert "| + reading the prompt (" in working(at)
    # on a machine like the one that shipped it, that measurement is the answer, with its range
    stand_in_cpu(monkeypatch, cpu)
    at = priced_box()
    verdict = next(m.value for m in at.markdown if m.value.startswith("**Does it pay here?**"))
    like = badges.shipped(cpu, date=greedy["value"]["provenance"]["date"])
    assert f"**{point['speedup']:.2f}×** the target alone {like}" in verdict, verdict
    assert f"({point['speedup_min']:.2f}–" in verdict, verdict
    assert f"Measured at a constant k = {k}, the k these prices pick." in verdict
    assert not any(c.value.startswith("A constant k = ") for c in at.caption)         # not again beside it


@needs_embedded
def test_a_fresh_machine_takes_the_range_from_the_shipped_sweep_of_its_cpu_model(monkeypatch, tmp_path):
    """Nothing filed here (a fresh clone): the box's range comes from the shipped k sweep's points, each
    priced by hand as the box prices (this machine's c and v, the point's tokens a round and overheads),
    where that sweep ran on this CPU model; on another CPU model, no range."""

    from streamlit.testing.v1 import AppTest

    from specdec.trace.theory import Overheads, run_speedup
    from ui.lessons import result_cache
    from ui.state import DEFAULTS

    from apptest import APP
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path)      # nothing measured or filed here
    pair = ["smollm2/target", "smollm2/draft"]
    shown = [f for f in shown_files("ksweep") if f["key"]["pair"] == pair]      # the sweeps this machine reads
    filed = shown[0]
    shipped = filed["value"]
    points = [p for f in shown if f["value"]["provenance"]["cpu"] == shipped["provenance"]["cpu"]    # every T's:
              for p in f["value"]["points"]]                                   # how runs land is the machine's
    widths = {m: 1 + 0.3 * (m - 1) for m in range(1, 18)}
    mine = machine.Profile(shipped["provenance"]["cpu"], "torch", 1, 10.0, widths, {"smollm2/draft": 0.2},
                           9.0, 50.0, 80.0, 135.0)
    monkeypatch.setattr(machine, "of", lambda pair: mine)
    ratios = [p["speedup"] / run_speedup(p["mean_acceptance_length"], p["k"], 0.2, widths[p["k"] + 1],
                                          Overheads(p["prefill_steps"], p["round_overhead"] or 0.0),
                                          Overheads(p["base_prefill_steps"], p["base_overhead"] or 0.0))
              for p in points]

    def why(cpu: str, temperature: float = filed["key"]["T"]) -> str:   # the box's working
        stand_in_cpu(monkeypatch, cpu)
        at = AppTest.from_file(APP, default_timeout=300)
        for name in ("k", "temperature", "top_p"):
            at.session_state[name] = DEFAULTS[name]
        at.session_state["temperature"] = temperature
        at.run().switch_page("pages/fast.py").run()
        assert not at.exception, at.exception
        return working(at)

    # the k the prices pick, not measured (the shipped sweep's point of it set aside): its prediction is moved by where
    # those runs landed (beside a measurement of that k, the working gives the measurement instead)
    from ui import payoff_answer, payoff_view
    monkeypatch.setattr(payoff_answer, "seen_at", lambda *args, **kwargs: None)
    monkeypatch.setattr(payoff_view, "at_k", lambda *args, **kwargs: None)
    line = why(shipped["provenance"]["cpu"])
    k = int(re.search(r"measured runs at k = (\d+) came out", line).group(1))      # by that k's own runs' median
    at = sum(p["k"] == k for p in points)                                           # (review 43: counted as such)
    runs = "1 run" if at == 1 else f"{at} runs"
    assert f"(the median of {runs} on a machine like this one at k = {k}; every k: {min(ratios):.2f}–" \
           f"{max(ratios):.2f}, a spread" in line, line
    assert "on a machine like this one" not in why("Another CPU")
    # how runs land against their prices is the machine's, not T's: another T has the same range
    assert f"every k: {min(ratios):.2f}–{max(ratios):.2f}, a spread" in why(shipped["provenance"]["cpu"], 0.0)
    # one figure filed here joins them (review 16: a band from the shipped sweep alone missed the box's run)
    from specdec.settings import Settings
    from ui.lessons import store
    figure = store.Figure(speedup=0.9, speedup_min=0.9, speedup_max=0.9, clock=Clock.WALL, repeats=3,
                          mean_acceptance_length=1.8, prefill_steps=0.2, base_prefill_steps=0.2, round_overhead=0.1,
                          base_overhead=0.04)
    key = store.key("smollm2/target", "smollm2/draft", Settings(k=2, temperature=0.7), 2,
                    store.PromptSet.of(["a"], True, 48, "speed"), Clock.WALL, store.Ran(threads=1))
    result_cache.save(store.KIND, store._as_dict(key), store.Filed(figure, "ksweep", 1.0))
    here = figure.speedup / run_speedup(1.8, 2, 0.2, widths[3], Overheads(0.2, 0.1), Overheads(0.2, 0.04))
    both = ratios + [here]
    whose = f"1 here and {at} on a machine like this one" if k == 2 else f"{runs} on a machine like this one"
    assert f"(the median of {whose} at k = {k}; every k: {min(both):.2f}–{max(both):.2f}, a spread" \
        in why(shipped["provenance"]["cpu"])
