"""Kernels chosen by measurement: each layout keeps decoding exact; the faster one per pass wins."""
import pytest
import torch
import torch.nn.functional as F

import specdec
from specdec.models import kernels
from specdec.models.packed import PackedLinear, pack_linears

from tiny import char_tokenizer, tiny_llama


@pytest.mark.parametrize("layout", kernels.LAYOUTS)
def test_every_layout_keeps_greedy_parity_on_the_tiny_pair(layout, monkeypatch):
    """Forced to one layout (as SPECDEC_KERNELS does), the target's speculative output equals its
    own autoregressive output at T = 0, and equals the unpacked model's."""
    monkeypatch.setenv("SPECDEC_KERNELS", layout)
    tok = char_tokenizer()
    plain_target = tiny_llama(len(tok), 2, seed=1)
    target, draft = tiny_llama(len(tok), 2, seed=1), tiny_llama(len(tok), 1, seed=2)
    assert pack_linears(target) == 15
    choice = kernels.choose(target)
    assert set(choice["table"].values()) == {layout}
    pair = specdec.make_pair(target, draft, tok, "tiny-target", "tiny-draft")
    reference = specdec.make_pair(plain_target, None, tok, "tiny-target", None)
    for prompt in ["abc", "a(b)\n", "hhh gg"]:
        spec = specdec.generate(pair, prompt, k=4, temperature=0, max_new_tokens=20).token_ids
        alone = specdec.autoregressive(pair, prompt, temperature=0, max_new_tokens=20).token_ids
        unpacked = specdec.autoregressive(reference, prompt, temperature=0, max_new_tokens=20).token_ids
        assert spec == alone == unpacked


def test_the_faster_layout_wins_per_pass_and_is_kept(monkeypatch, tmp_path):
    """With made-up timings (plain faster for one row, packed for wider passes) the table takes
    each winner; a layer then multiplies one row with torch's plain linear and five rows packed;
    the choice is stored and read back instead of timing again."""
    monkeypatch.delenv("SPECDEC_KERNELS", raising=False)
    monkeypatch.setattr(kernels, "STORE", tmp_path / "kernels.json")
    fake = {("plain", 1): 50.0, ("packed", 1): 90.0, ("plain", 5): 120.0, ("packed", 5): 95.0,
            ("plain", 17): 140.0, ("packed", 17): 110.0}
    timed = []

    def pass_ms(model, rows, repeats=kernels.REPEATS):
        layer = next(m for m in model.modules() if isinstance(m, PackedLinear))
        layout = layer.layout_for(rows)
        timed.append((layout, rows))
        return fake[(layout, rows)]
    monkeypatch.setattr(kernels, "pass_ms", pass_ms)
    model = tiny_llama(13, 2, seed=1)
    pack_linears(model)
    choice = kernels.choose(model, "float32")
    assert choice["table"] == {1: "plain", 5: "packed", 17: "packed"} and len(timed) == 6
    layer = next(m for m in model.modules() if isinstance(m, PackedLinear))
    assert [layer.layout_for(r) for r in (1, 2, 5, 9, 17, 40)] == ["plain", "packed", "packed", "packed",
                                                                   "packed", "packed"]
    x = torch.randn(1, 1, layer.in_features)
    assert torch.equal(layer(x), F.linear(x, layer.weight, layer.bias))     # one row: plain, bit for bit
    again = tiny_llama(13, 2, seed=1)
    pack_linears(again)
    assert kernels.choose(again, "float32")["table"] == {1: "plain", 5: "packed", 17: "packed"} and len(timed) == 6
    assert "1 row: plain, 5 rows: packed" in kernels.describe(again)


def test_a_pass_is_timed_after_a_prefix_fed_once():
    """The real timer (the others fake it): every repeat runs on the same cached prefix."""
    model = tiny_llama(13, 2, seed=1)
    assert kernels.pass_ms(model, 5, repeats=3) > 0


def test_the_step_is_put_next_to_the_memory_limit():
    """By hand: 123 MB in 33 ms is 3.7 GB/s; at 11 GB/s the limit is 11.2 ms; 33 / 11.18 = 2.95."""
    choice = {"precision": "int4", "weight_mb": {"int4": 123.0, "float32": 538.0}, "bandwidth_gbs": 11.0,
              "ms": {"int4": {"1": 33.0, "5": 54.0}, "float32/plain": {"1": 64.0}}}
    assert kernels.bandwidth_line(choice) == ("a one-token step reads 123 MB of weights in 33.0 ms (3.7 GB/s; "
                                              "this machine streams 11.0 GB/s, so 11.2 ms would be the limit: "
                                              "3.0x it)")
    assert kernels.bandwidth_line({"precision": "float32", "table": {}}) is None      # forced: not timed
    assert 0.5 < kernels.bandwidth_gbs(64 * 2**20, 2) < 1000
