"""The regime lesson: the roofline of a pass (specdec/bench/roofline.py), this machine's profile
(specdec/bench/machine.py) and the When-it-is-fast section that shows them. Expected values are
worked out by hand in the comments."""
import json
import statistics
from dataclasses import replace

import pytest

from specdec.bench import machine, roofline
from specdec.bench.machine import Profile
from ui.lessons import fast_regime

from apptest import app

# 100 GB/s, 1 TFLOP/s; a 1B model in bf16 reads 2 GB a step: 20 ms; computes 2 GFLOP a token: 2 ms
BOX = roofline.Machine("box", 100.0, 1.0, "by hand")
ONE_B = roofline.Model("1B", 1.0, 2.0)


def test_a_pass_costs_one_step_until_computing_overtakes_reading():
    assert roofline.pass_seconds(BOX, ONE_B, 1) == pytest.approx(0.020)
    assert roofline.ridge(BOX, ONE_B) == pytest.approx(10.0)              # 20 ms / 2 ms a token
    assert roofline.v(BOX, ONE_B, 9) == pytest.approx(1.0)                 # 18 ms of compute < 20 ms
    assert roofline.v(BOX, ONE_B, 20) == pytest.approx(2.0)                # 40 ms of compute
    # the ridge depends on the machine and the bytes per weight, not on the model's size
    assert roofline.ridge(BOX, roofline.Model("70B", 70.0, 2.0)) == pytest.approx(10.0)
    assert roofline.ridge(BOX, roofline.Model("1B int4", 1.0, 0.5)) == pytest.approx(2.5)


def profile(**changes) -> Profile:
    # 100 MB at 10 GB/s: 10 ms to read; 100 M parameters: 0.2 GFLOP a token, at 40 GFLOP/s 5 ms
    base = dict(cpu="cpu", backend="torch", threads=1, step_ms=12.0, v={1: 1.0, 5: 2.2, 9: 3.9},
                c={"d": 0.1}, bandwidth_gbs=10.0, gflops=40.0, weight_mb=100.0, params_m=100.0)
    return Profile(**{**base, **changes})


def test_this_machine_read_and_compute_times_and_its_roofline():
    here = fast_regime.here(profile())
    assert here.read_ms == pytest.approx(10.0) and here.compute_ms == pytest.approx(5.0)
    assert here.ridge == pytest.approx(2.0)
    # the roof in this machine's measured steps (12 ms): a pass of 1 at least 10 ms, of 5 at least 25 ms
    assert here.roof[1] == pytest.approx(10 / 12) and here.roof[5] == pytest.approx(25 / 12)
    assert here.measured[5] == 2.2


def test_the_calculator_prices_each_round_at_its_pass():
    # alpha 0.5, k = 1: 1.5 tokens a round; on BOX a 2-token pass is free (ridge 10); c = 0.1
    rows = fast_regime.calculator(BOX, 1.0, "bf16", alpha=0.5, c=0.1, ks=[1, 19])
    assert rows[0].speedup == pytest.approx(1.5 / (0.1 + 1.0)) and rows[0].expected_length == 1.5
    # k = 19: a 20-token pass costs 2 steps; tokens a round (1 - 0.5^20) / 0.5
    assert rows[1].v == pytest.approx(2.0)
    assert rows[1].speedup == pytest.approx((1 - 0.5 ** 20) / 0.5 / (1.9 + 2.0))


def test_a_profile_is_kept_per_cpu_backend_and_threads(tmp_path, monkeypatch):
    monkeypatch.setattr(machine, "STORE", tmp_path / "machine.json")
    assert machine.load("cpu", "torch", 1) is None
    machine.save(profile())
    assert machine.load("cpu", "torch", 1) == profile()
    assert machine.load("cpu", "onnx", 1) is None and machine.load("cpu", "torch", 2) is None
    (tmp_path / "machine.json").write_text('{"cpu | torch | threads 1 | r1": {"v": "broken"}}')
    assert machine.load("cpu", "torch", 1) is None


def test_the_fast_page_measures_this_machine_and_explains_it(tiny_dirs, monkeypatch, tmp_path):
    monkeypatch.setattr(machine, "STORE", tmp_path / "machine.json")
    monkeypatch.setattr(machine, "WIDTHS", (1, 2, 5))                 # the page's path, quickly
    at = app(tiny_dirs, page="pages/fast.py", temperature=0.8, k=2)
    assert any("has not been measured yet" in i.value for i in at.info)
    at.button(key="regime_measure").click().run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert ":violet-badge[this machine's prices] From about **" in text
    assert "Memory: a step of the target on torch reads" in text and "a pass of 5 tokens" in text
    assert "speculation would reach" in text
    saved = machine.load(machine.cpu_model(), "torch", 1, at.session_state["active_pair"][0])
    assert saved is not None and saved.target == str(tiny_dirs / "target")
    assert set(saved.v) == {1, 2, 5} and saved.v[1] == 1.0
    at.selectbox(key="regime_machine").set_value(2).run()              # the datacenter GPU
    assert not at.exception
    assert any("NVIDIA H100 SXM data sheet" in m.value for m in at.markdown)       # in the method expander
    # review 42: a compute rate timed far too low at start put the bound above every measured pass
    assert machine.bounded(saved)
    machine.save(replace(saved, gflops=1e-6))                         # a pass would take minutes: above any
    at.run()
    assert any("lower bound cannot lie above what ran" in w.value for w in at.warning)
    assert not any("this machine's prices] From about" in m.value for m in at.markdown)
    at.button(key="regime_again").click().run()                        # timed again: a roofline under the passes
    assert not at.exception and not at.warning
    assert machine.bounded(machine.load(machine.cpu_model(), "torch", 1, saved.target))
    assert any("this machine's prices] From about" in m.value for m in at.markdown)


def test_rates_timed_too_low_are_timed_again_until_the_roofline_bounds_the_passes(monkeypatch):
    """Review 42: as the server started, the compute rate was timed at 2 GFLOP/s (117 later), a bound 44 steps
    above a measured step. A rate is only ever timed too low: the faster timing is kept, timed again while the
    roofline lies above a measured pass, RETIMES times at most."""
    low = profile(gflops=2.0)                  # 0.2 GFLOP a token at 2 GFLOP/s: 100 ms, above the 12 ms measured
    assert not machine.bounded(low) and machine.bound_ms(low, 1) == pytest.approx(100.0)
    rates = iter([30.0, 40.0, 50.0])
    monkeypatch.setattr(machine, "bandwidth_gbs", lambda: 5.0)           # slower than the kept 10 GB/s: 10 stays
    monkeypatch.setattr(machine, "compute_rate", lambda target: (next(rates), "x"))
    fixed = machine.retimed(low, None)
    # at 30 GFLOP/s a pass of 9 takes 60 ms > 3.9 × 12 = 46.8 ms measured; at 40, 45 ms: bounded, no third try
    assert (fixed.bandwidth_gbs, fixed.gflops) == (10.0, 40.0) and machine.bounded(fixed) and next(rates) == 50.0
    calls = []
    monkeypatch.setattr(machine, "compute_rate", lambda target: calls.append(1) or (3.0, "x"))
    assert not machine.bounded(machine.retimed(low, None)) and len(calls) == machine.RETIMES


def test_a_shipped_gpu_measurement_is_read_and_set_beside_the_roofline(tmp_path):
    saved = {"schema": 3, "record": "PassPrices", "target": "smollm2/target", "device": "NVIDIA H200",
             "dtype": "bfloat16", "step_ms": 2.0, "widths": list(range(1, 10)),
             "v": [1.0 + 0.01 * (m - 1) for m in range(1, 10)], "c": {"draft": 0.5},
             "provenance": {"date": "2026-12-03"}}
    path = tmp_path / "gpu.json"
    path.write_text(json.dumps(saved))
    measured = fast_regime.gpu_measured(path)
    assert measured.device == "NVIDIA H200" and measured.price(9) == pytest.approx(1.08)
    assert measured.provenance.date == "2026-12-03"
    rows = fast_regime.gpu_beside_roofline(measured, alpha=0.5, c=0.1)
    k2 = rows[1]
    assert k2.k == 2 and k2.v_measured == pytest.approx(1.02)
    assert k2.speedup_measured == pytest.approx(1.75 / (2 * 0.1 + 1.02))     # (1 + α + α²) / (k·c + v)
    for broken in ({**saved, "widths": [1], "v": [1.0]}, {k: x for k, x in saved.items() if k != "device"},
                   {**saved, "schema": 2}, [1, 2]):
        path.write_text(json.dumps(broken))
        assert fast_regime.gpu_measured(path) is None
    assert fast_regime.gpu_measured(tmp_path / "absent.json") is None


def test_the_compute_roof_is_the_arithmetic_the_target_runs(monkeypatch):
    """An intdot target's roof is the integer kernel's rate (timed on a product of its own kind), a
    float32 target's torch's matrix multiply; the profile names which."""
    from test_precision import gqa_llama

    from specdec.models import intdot, precision
    monkeypatch.setattr(machine, "matmul_gflops", lambda: 11.0)
    monkeypatch.setattr(machine, "intdot_gflops", lambda: 22.0)
    model = gqa_llama(13, 3)
    assert machine.compute_rate(model) == (11.0, "float32 multiply-adds (torch's matrix multiply)")
    if not intdot.available():
        pytest.skip("no C compiler here: intdot is not offered")
    precision.apply(model, "intdot")
    rate, name = machine.compute_rate(model)
    assert rate == 22.0 and name == f"16-bit integer multiply-adds ({intdot.kernel()} kernel)"


def test_the_integer_kernel_rate_counts_two_operations_per_multiply_add(monkeypatch):
    from specdec.models import intdot
    if not intdot.available():
        pytest.skip("no C compiler here: intdot is not offered")
    monkeypatch.setattr(machine, "_timed", lambda fn: 0.5)               # every product: half a second
    assert machine.intdot_gflops(rows=4) == round(2 * 1536 * 576 * 4 / 0.5 / 1e9, 1)


def test_a_burst_of_load_during_one_width_does_not_make_its_pass_dearer(monkeypatch):
    """Every width is timed in each of the profile's rounds and the median kept: a burst that
    slows all five timings of one round (here the third) leaves every price at its quiet value."""
    monkeypatch.setattr(machine, "WIDTHS", (1, 2, 3, 4))
    calls = []

    def step_ms(model, vocab, reps=30, tokens=1):
        calls.append(tokens)
        burst = 10.0 if len(calls) in range(11, 16) else 1.0     # round 3 of 5 (5 timings a round)
        return burst * {"draft": 1.0}.get(model, 10.0 * (1 + 0.25 * (tokens - 1)))

    monkeypatch.setattr(machine, "step_ms", step_ms)
    pair = type("Pair", (), {"passes": "target", "vocab_size": 8})()
    ms = machine._interleaved(pair, {"d": "draft"}, lambda r: None)
    assert calls[:5] == [1, 2, 3, 4, 1]                                # interleaved: every width, then the draft
    assert {key: statistics.median(t) for key, t in ms.items()} == {1: 10.0, 2: 12.5, 3: 15.0, 4: 17.5, "d": 1.0}
    assert machine.ratio(ms[4], ms[1]) == 1.75 and machine.ratio(ms["d"], ms[1]) == 0.1


def test_a_price_is_a_ratio_within_each_round_so_a_machine_that_drifts_keeps_it():
    """The machine slows to half speed in round 3, after its step was timed and before its pass: the
    medians (10 ms and 40 ms) come from different speeds and would price the pass at 4 steps; the
    ratio within each round is 2 but in round 3, and their median is 2."""
    steps, passes = [10.0, 10.0, 10.0, 20.0, 20.0], [20.0, 20.0, 40.0, 40.0, 40.0]
    assert statistics.median(passes) / statistics.median(steps) == 4.0
    assert machine.ratio(passes, steps) == 2.0


def test_a_measured_pass_never_costs_less_than_its_own_bound(monkeypatch, tmp_path):
    """Measured here on the stdlib pair in intdot, the roof timed for the arithmetic it runs: every
    pass costs at least what the roofline allows (if not, the bound is wrong)."""
    import specdec
    from specdec.models import intdot
    if not intdot.available():
        pytest.skip("no C compiler here: intdot is not offered")
    monkeypatch.setattr(machine, "WIDTHS", (1, 3, 5, 9))
    pair = specdec.load_pair("stdlib/target", None, precision="intdot")
    here = fast_regime.here(machine.measure(pair, {}))
    assert all(here.roof[m] <= here.measured[m] for m in here.measured), (here.roof, here.measured)


def test_the_machine_prices_pick_the_fastest_chain_length():
    # α = 0.5, c = 0.1; v(2) = 1.2, v(3) = 1.5, v(5) = 3.0:
    # k = 1: 1.5 / (0.1 + 1.2) = 1.154; k = 2: 1.75 / (0.2 + 1.5) = 1.029; k = 4: 1.9375 / (0.4 + 3.0) = 0.570
    p = profile(v={1: 1.0, 2: 1.2, 3: 1.5, 5: 3.0}, c={"d": 0.1})
    k, speedup = machine.best_k(p, "d", 0.5)
    assert k == 1 and speedup == pytest.approx(1.5 / 1.3)
    assert machine.best_k(p, "another draft", 0.5) is None
    # a free pass (v = 1 everywhere) and a free draft favour the longest measured chain
    assert machine.best_k(profile(v={1: 1.0, 2: 1.0, 3: 1.0}, c={"d": 0.0}), "d", 0.5)[0] == 2


def test_many_drafts_wide_pass_prices_are_timed_in_interleaved_rounds(monkeypatch):
    """Many drafts at once' "What a wide pass costs here": every width in each round, v the median of each
    round's ratio, so a burst (here the second round's wide pass, ten times slower) leaves v at its value."""
    from types import SimpleNamespace

    import torch

    from ui.lessons import trees
    calls = []

    def step_ms(model, vocab, tokens=1, reps=30):
        calls.append(tokens)
        burst = 10.0 if len(calls) == 4 else 1.0                          # round 2's 3-token pass
        return burst * 10.0 * (1 + 0.5 * (tokens - 1))

    monkeypatch.setattr(trees, "step_ms", step_ms)
    target = torch.nn.Linear(1, 1)
    pair = SimpleNamespace(passes=SimpleNamespace(name="torch"), vocab_size=8, target=target, target_name="t")
    monkeypatch.setattr(trees, "here", lambda *a: trees.Provenance())
    prices = trees.pass_prices(pair, sizes=(1, 3), rounds=3)
    assert calls == [1, 3, 1, 3, 1, 3]                                       # interleaved: every width, each round
    assert prices.price(3) == 2.0 and prices.step_ms == 10.0


def test_a_pass_that_grows_below_the_ridge_says_why_from_the_same_numbers():
    """Review 43: "from about 3.6 tokens a pass is limited by computing" beside a measured v(2) = 1.16."""
    # 100 MB at 10 GB/s: 10 ms to read; 0.2 GFLOP a token at 40 GFLOP/s: 5 ms; ridge 2 tokens
    assert fast_regime.grows_early(fast_regime.here(profile(v={1: 1.0, 2: 1.3, 5: 2.2})), 12.0) is None   # ridge 2
    wide = fast_regime.here(profile(gflops=200.0, v={1: 1.0, 2: 1.3, 5: 2.2}))       # 1 ms a token: ridge 10
    said = fast_regime.grows_early(wide, 12.0)
    assert said == ("Measured, a pass grows from its second token (v(2) = 1.30), below the ridge of 10.0: a one-token "
                    "step takes 12.0 ms where reading the weights needs 10.0 and their arithmetic 1.0; the real kernel "
                    "does not hide another token's work behind the reading, so each adds its own.")
    assert fast_regime.grows_early(fast_regime.here(profile(gflops=200.0, v={1: 1.0, 2: 1.04, 5: 1.2})), 12.0) is None
