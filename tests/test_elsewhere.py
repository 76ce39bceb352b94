"""The calculator "Where would it pay?" (ui/lessons/fast_elsewhere.py, ui/fast_elsewhere_view.py): a round is
priced on the chosen machine by its roofline and the two models' sizes, never with this CPU's c.
Expected values are worked out by hand in the comments."""
import re

import pytest
import torch

from specdec.bench import machine, roofline
from specdec.bench.machine import Profile
from specdec.models.kernels import cpu_model
from ui.lessons import fast_elsewhere, fast_published

from apptest import app

# 100 GB/s and 1 TFLOP/s: a 1B target in bf16 reads 2 GB a step (20 ms), a 0.1B draft 0.2 GB (2 ms)
BOX = roofline.Machine("box", 100.0, 1.0, "by hand")
H100 = next(m for m in roofline.PUBLISHED if "H100" in m.name)


def test_a_draft_is_priced_by_its_own_bytes_on_that_machine():
    calc = fast_elsewhere.calculate(BOX, fast_elsewhere.model(1.0, "bf16"), fast_elsewhere.model(0.1, "bf16"), 0.5,
                                    ks=[1, 19])
    assert calc.step_ms == pytest.approx(20.0) and calc.draft_ms == pytest.approx(2.0)
    assert calc.c == pytest.approx(0.1)
    k1, k19 = calc.rows
    assert k1.v == pytest.approx(1.0) and k1.speedup == pytest.approx(1.5 / (0.1 + 1.0))
    # 20 tokens compute 40 ms > 20 ms of reading: the pass costs 2 steps
    assert k19.v == pytest.approx(2.0) and k19.speedup == pytest.approx((1 - 0.5 ** 20) / 0.5 / (1.9 + 2.0))
    assert calc.best == k1


def test_a_layer_floor_sets_a_small_deep_drafts_step_and_not_a_big_targets():
    # draft: 0.1B in 10 layers, 2 ms by the roofline, but 10 layers × 500 µs = 5 ms; the 1B target's
    # 20 ms of reading outlasts its 16 layers × 500 µs = 8 ms: c = 5 / 20
    target, draft = roofline.Model("1B", 1.0, 2.0, 16), roofline.Model("d", 0.1, 2.0, 10)
    calc = fast_elsewhere.calculate(BOX, target, draft, 0.5, ks=[1], floor_us=500)
    assert calc.step_ms == pytest.approx(20.0) and calc.draft_ms == pytest.approx(5.0) and calc.c == pytest.approx(0.25)
    assert fast_elsewhere.calculate(BOX, target, draft, 0.5, ks=[1]).c == pytest.approx(0.1)     # no floor
    assert fast_elsewhere.model(8.0, "bf16").layers == 32 and fast_elsewhere.DRAFTS[0].layers == 2


def test_an_8b_target_on_a_datacenter_gpu_pays_at_least_twofold_with_the_pairs_acceptance():
    alphas, where = fast_elsewhere.measured_alphas()
    assert where.cpu and 0.0 in alphas                 # the default pair's shipped sweep, greedy
    draft = next(d for d in fast_elsewhere.DRAFTS if d.name == "135M")
    calc = fast_elsewhere.calculate(H100, fast_elsewhere.model(8.0, "bf16"), draft, alphas[0.0])
    # 135M against 8B parameters, both bf16 and memory-bound: c = 0.135 / 8
    assert calc.c == pytest.approx(0.135 / 8)
    assert calc.best.speedup >= 2.0


def test_bad_choices_raise_a_clear_message():
    with pytest.raises(ValueError, match="not smaller"):
        fast_elsewhere.calculate(BOX, fast_elsewhere.model(0.135, "bf16"), fast_elsewhere.model(1.0, "bf16"), 0.5)
    with pytest.raises(ValueError, match="unknown weight format"):
        fast_elsewhere.model(1.0, "fp7")
    with pytest.raises(ValueError, match="between 0 and 1"):
        fast_elsewhere.calculate(BOX, fast_elsewhere.model(1.0, "bf16"), fast_elsewhere.model(0.1, "bf16"), 1.5)


def test_a_broken_sweep_file_gives_no_acceptance(tmp_path):
    path = tmp_path / "temps.json"
    path.write_text('{"value": [{"temperature": "hot"}]}')
    assert fast_elsewhere.measured_alphas(path) == ({}, None)
    assert fast_elsewhere.measured_alphas(tmp_path / "absent.json") == ({}, None)


def test_published_rounds_are_tokens_over_speedup():
    eagle = next(a for a in fast_published.ANCHORS if a.method == "EAGLE")
    assert eagle.round_steps == pytest.approx(3.61 / 2.29)
    assert all(a.round_steps is None for a in fast_published.ANCHORS if a.tokens is None)


def test_the_page_prices_the_gpu_with_its_own_c_not_this_machines(tiny_dirs, monkeypatch, tmp_path):
    monkeypatch.setattr(machine, "STORE", tmp_path / "machine.json")
    measured_c = 0.4661                       # this CPU's c: it must not appear for the GPU
    machine.save(Profile(cpu=cpu_model(), backend="torch", threads=torch.get_num_threads(), step_ms=12.0,
                         v={1: 1.0, 5: 2.2, 9: 3.9}, c={"draft": measured_c}, bandwidth_gbs=10.0, gflops=40.0,
                         weight_mb=100.0, params_m=100.0, target=str(tiny_dirs / "target")))
    at = app(tiny_dirs, page="pages/fast.py", temperature=0.8, k=2)
    at.selectbox(key="regime_machine").set_value(2).run()            # the datacenter GPU
    at.selectbox(key="regime_size").set_value(8.0).run()
    assert not at.exception
    # the default layer floor, 20 µs: the 135M draft's 30 layers take 0.6 ms against the 8B target's 16 GB and
    # 1,024 tokens of KV cache × 131,072 B (32 layers × 8 heads × 128 × K and V × 2 B) = 16.134 GB / 3.35 TB/s
    # = 4.816 ms: c = 0.125; the roofline alone gives at least 2x
    target_ms = (16e9 + 1024 * 131072) / 3.35e12 * 1e3
    caption = " ".join(c.value for c in at.caption if "draft step" in c.value)
    assert f"c = {0.6 / target_ms:.3f}" in caption and f"{measured_c:.3f}" not in caption
    text = " ".join(m.value for m in at.markdown if "would reach" in m.value)
    assert "On NVIDIA H100 GPU (target 8B, draft " in text, text                  # whose figure it is, named
    low, high = map(float, re.search(r"reach \*\*([0-9.]+)–([0-9.]+)×", text).groups())
    assert low < high and high >= 2.0
    at.selectbox(key="regime_floor").set_value(0).run()              # the roofline alone
    caption = " ".join(c.value for c in at.caption if "draft step" in c.value)
    # the draft's 0.27 GB and 1,024 × 23,040 B of cache (30 layers × 3 heads × 64 × 2 × 2 B) against the target's
    assert f"c = {(0.27e9 + 1024 * 23040) / (16e9 + 1024 * 131072):.3f}" in caption
    text = " ".join(m.value for m in at.markdown if "would reach" in m.value)
    assert float(re.search(r"reach \*\*([0-9.]+)×", text).group(1)) == pytest.approx(high)
    at.selectbox(key="regime_size").set_value(0.135).run()           # 135M target, 135M draft
    at.selectbox(key="regime_draft").set_value(2).run()              # a 1B draft: bigger than the target
    assert not at.exception
    assert any("smaller than the target" in w.value for w in at.warning)


@pytest.mark.parametrize("v5, said", [(3.0, True), (2.2, False)])
def test_this_machine_in_the_calculator_is_a_ceiling_where_its_passes_cost_more_than_its_roofline(
        tiny_dirs, monkeypatch, tmp_path, v5, said):
    """A 100M-parameter target at 1 byte a weight, 10 GB/s and 40 GFLOP/s: a step reads for 10 ms, a pass of
    5 tokens computes for 25 ms, so the roofline prices v(5) = 2.5. A measured 3.0 is above it: the page says its
    figure for this machine is a ceiling; a measured 2.2 is not, and nothing is said."""
    monkeypatch.setattr(machine, "STORE", tmp_path / "machine.json")
    machine.save(Profile(cpu=cpu_model(), backend="torch", threads=torch.get_num_threads(), step_ms=12.0,
                         v={1: 1.0, 5: v5, 9: 3.9}, c={"draft": 0.3}, bandwidth_gbs=10.0, gflops=40.0,
                         weight_mb=100.0, params_m=100.0, target=str(tiny_dirs / "target")))
    at = app(tiny_dirs, page="pages/fast.py", temperature=0.8, k=2)
    at.selectbox(key="regime_machine").set_value(0).run()            # this machine
    assert not at.exception
    found = [c.value for c in at.caption if c.value.startswith("This machine's own passes cost more")]
    assert bool(found) is said
    if said:
        assert "cost **3.00** steps here, where the roofline prices 2.50." in found[0]


def test_a_batch_turns_the_checking_pass_into_arithmetic_and_the_gain_disappears():
    """BOX: a 1B bf16 target reads 20 ms a step and computes 2 ms a token; a 0.1B draft 2 ms and 0.2 ms. At k = 1,
    α = 0.5 (1.5 tokens a round): batch 1 checks 2 tokens in 20 ms, 1.5 × 20 / (2 + 20) = 1.36×; batch 8 checks 16
    tokens in 32 ms against a plain pass of 8 in 20: 1.5 × 20 / (2 + 32) = 0.88×; batch 32: 64 tokens in 128 ms
    against 64 ms plain, the draft 6.4 ms a step: 1.5 × 64 / (6.4 + 128) = 0.71×."""
    target, draft = fast_elsewhere.model(1.0, "bf16"), fast_elsewhere.model(0.1, "bf16")
    points = dict(fast_elsewhere.batched(BOX, target, draft, 0.5, 1, batches=(1, 8, 32)))
    assert points[1] == pytest.approx(1.5 * 20 / 22) and points[8] == pytest.approx(1.5 * 20 / 34)
    assert points[32] == pytest.approx(1.5 * 64 / 134.4)
    assert fast_elsewhere.stops_paying(tuple(points.items())) == 8
    assert fast_elsewhere.stops_paying(((1, 1.4), (2, 1.1))) is None
    # batch 1 is the calculator's own round: one price for one setting
    one = fast_elsewhere.calculate(BOX, target, draft, 0.5, ks=[1]).rows[0]
    assert points[1] == pytest.approx(one.speedup)
    # on the H100 an 8B target's pass stays a read of its weights for small batches: the gain holds, then goes
    h100 = fast_elsewhere.batched(H100, fast_elsewhere.model(8.0, "bf16"), fast_elsewhere.model(0.135, "bf16"), 0.5,
                                  4, batches=(1, 8, 64, 128, 256, 512), floor_us=20)
    assert h100[0][1] > 1.2 and fast_elsewhere.stops_paying(h100) is not None
    assert [x for _b, x in h100] == sorted((x for _b, x in h100), reverse=True)


def test_every_request_s_kv_cache_read_keeps_a_big_batch_s_pass_a_read():
    """BOX, k = 1, α = 0.5, batch 8, each request holding 100 tokens of a cache of 1 MB a token (the draft's 0.1 MB):
    the plain pass reads 2 GB + 8 × 100 MB = 2.8 GB, 28 ms (its 8 tokens compute 16 ms); the speculative pass reads
    the same and computes 16 tokens, 32 ms; a draft step reads 0.2 GB + 80 MB, 2.8 ms: 1.5 × 28 / (2.8 + 32) = 1.21×,
    where the weights alone give 0.88× (above). With the published sizes: short requests stop paying on the H100,
    long ones keep it up to batch 1,024."""
    target = roofline.Model("1B", 1.0, 2.0, kv_bytes=1e6)
    draft = roofline.Model("0.1B", 0.1, 2.0, kv_bytes=1e5)
    (_b, x), = fast_elsewhere.batched(BOX, target, draft, 0.5, 1, batches=(8,), context=100)
    assert x == pytest.approx(1.5 * 28 / 34.8)
    gpu = (H100, fast_elsewhere.model(8.0, "bf16"), fast_elsewhere.model(0.135, "bf16"), 0.59, 3)
    short = fast_elsewhere.batched(*gpu, floor_us=20, context=256)
    long = fast_elsewhere.batched(*gpu, floor_us=20, context=4096)
    assert fast_elsewhere.stops_paying(short) is not None and fast_elsewhere.stops_paying(long) is None
    assert roofline.KV_BYTES[8.0] == 2 * 32 * 8 * 128 * 2 and roofline.KV_BYTES[0.135] == 2 * 30 * 3 * 64 * 2
