"""The integer kernels (specdec/models/intdot): the sums they compute, rows independent of the
pass's width bit for bit, stacked layers equal to separate ones, Q8_0 blocks recognised."""
import json

import pytest
import torch

from specdec.models import intdot
from specdec.models.intdot.linear import padded, product, q4_1_of, q4_1_records, q8_0_of, q8_0_records, quantised

pytestmark = pytest.mark.skipif(not intdot.available(), reason="no C compiler on this machine")
QMAX = 32767


def reference_activations(x: torch.Tensor):
    """Written here from the layout's definition, in float32 as C computes it: per block of 32,
    d = max|x| / 32767, q = x · (1/d) rounded half away from zero."""
    m, k = x.shape
    g = x.float().reshape(m, k // 32, 32)
    d = g.abs().amax(-1) / QMAX                                     # (M, K/32)
    inverse = torch.where(d > 0, 1 / d, torch.zeros_like(d))
    s = (g * inverse[..., None]).double()
    q = (s.sign() * (s.abs() + 0.5).floor()).clamp(-QMAX, QMAX)
    return q, d.double()                                            # (M, K/32, 32), (M, K/32)


def close(y: torch.Tensor, expect: torch.Tensor, magnitude: torch.Tensor) -> bool:
    """Equal up to float32 accumulation: a few ulps of the sum of the terms' sizes."""
    return bool(((y.double() - expect).abs() <= 1e-6 * magnitude + 1e-9).all())


def q4_1_blocks(n: int, k: int, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    q = torch.randint(0, 16, (n, k), dtype=torch.uint8, generator=gen)
    scale = torch.rand(n, k // 32, generator=gen) * 0.02
    low = -torch.rand(n, k // 32, generator=gen) * 0.1
    return q, scale, low


@pytest.mark.parametrize("k", [32, 96, 576, 1536])
def test_quantised_activations_are_the_blocks_the_layout_defines(k):
    x = torch.randn(5, k) * torch.logspace(-3, 2, k)                # blocks of very different sizes
    xq, xd, xs = quantised(x)
    q = xq.int()
    ref_q, ref_d = reference_activations(x)
    assert torch.equal(q.reshape(ref_q.shape).double(), ref_q)
    assert torch.allclose(xd.double(), ref_d, rtol=1e-7, atol=0)
    assert torch.allclose(xs.double(), ref_d * ref_q.sum(-1), rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("k", [32, 96, 320, 576])
def test_q4_1_product_is_the_dequantised_weights_times_the_quantised_activations(k):
    q, scale, low = q4_1_blocks(24, k)
    x = torch.randn(7, k)
    y = product("q4_1", q4_1_records((q, scale, low)), x)
    w = (q.reshape(24, k // 32, 32).double() * scale[..., None].double() + low[..., None].double()).reshape(24, k)
    ref_q, ref_d = reference_activations(x)
    xq = (ref_q * ref_d[..., None]).reshape(7, k)
    assert close(y, xq @ w.T, xq.abs() @ w.abs().T)
    assert (y.double() - x.double() @ w.T).abs().max() < 1e-3 * x.abs().max() * w.abs().sum(1).max()


@pytest.mark.parametrize("k", [64, 288, 576])
def test_q8_0_product_and_a_q8_0_weight_is_recognised_as_exact(k):
    gen = torch.Generator().manual_seed(3)
    d = (torch.rand(40, k // 32, generator=gen) * 0.01).half().float()       # fp16 scales, as a GGUF
    ints = torch.randint(-127, 128, (40, k), generator=gen)
    ints[:, ::32] = 127                                                      # each block reaches ±127
    w = (ints.reshape(40, k // 32, 32).float() * d[..., None]).reshape(40, k)
    q, got_d, exact = q8_0_of(w)
    assert exact and torch.equal(q.long(), ints) and torch.equal(got_d, d)
    assert not q8_0_of(torch.randn(40, k))[2]
    x = torch.randn(3, k)
    ref_q, ref_d = reference_activations(x)
    xq = (ref_q * ref_d[..., None]).reshape(3, k)
    assert close(product("q8_0", q8_0_records(q, got_d), x), xq @ w.double().T, xq.abs() @ w.double().abs().T)


@pytest.mark.parametrize("kind", ["q4_1", "q8_0"])
@pytest.mark.parametrize("k", [32, 160, 576, 1536])
def test_every_row_of_a_wide_product_equals_its_one_row_product_bit_for_bit(kind, k):
    """Widths 1…17: tiles of five rows (groups of 8 columns) or four (the last columns), remainders, one row."""
    weight = torch.randn(33, k)
    records = q4_1_records(q4_1_of(weight)) if kind == "q4_1" else q8_0_records(*q8_0_of(weight)[:2])
    x = torch.randn(17, k) * 3
    alone = torch.cat([product(kind, records, x[i:i + 1]) for i in range(17)])
    for width in range(1, 18):
        assert torch.equal(product(kind, records, x[:width]), alone[:width]), width
        assert torch.equal(product(kind, records, x[17 - width:]), alone[17 - width:]), width


def test_stacked_records_give_each_layer_its_own_product_bit_for_bit():
    layers = [q4_1_records(q4_1_of(torch.randn(n, 576))) for n in (576, 192, 192)]
    x = torch.randn(5, 576)
    together = product("q4_1", torch.cat(layers), x).split([576, 192, 192], -1)
    assert all(torch.equal(a, product("q4_1", r, x)) for a, r in zip(together, layers))


def test_an_input_width_that_is_not_whole_blocks_is_padded_with_zeros():
    torch.manual_seed(3)
    weight, x = torch.randn(8, 50), torch.randn(3, 50)
    assert padded(50) == 64
    padded_weight = torch.nn.functional.pad(weight, (0, 14))
    records = q8_0_records(*q8_0_of(weight)[:2])
    assert torch.equal(product("q8_0", records, x),
                       product("q8_0", q8_0_records(*q8_0_of(padded_weight)[:2]), torch.nn.functional.pad(x, (0, 14))))
    # rounding bounds: a weight moves at most max|w| / 254 of its block, an activation max|x| / 65534
    w_step = torch.stack([weight[:, :32].abs().amax(1), weight[:, 32:].abs().amax(1)], 1) / 254   # (8, 2)
    bound = x[:, :32].abs().sum(1, keepdim=True) * w_step[:, 0] + x[:, 32:].abs().sum(1, keepdim=True) * w_step[:, 1]
    bound = bound + (x.abs().amax(1, keepdim=True) / 65534) * weight.abs().sum(1) * 1.01
    assert ((product("q8_0", records, x) - x @ weight.T).abs() <= bound + 1e-5).all()


def test_the_library_is_built_once_and_found_again():
    first = intdot._build(intdot._compiler())
    assert first.is_file() and intdot._build(intdot._compiler()) == first
    assert intdot.isa() in ("avx2", "portable")


def test_vnni_runs_only_where_the_cpu_has_it_and_gives_avx2_bits():
    """The VNNI copy of the group kernels switches on only on a CPU with AVX-512 VNNI and VL, and
    is kept only when its products equal AVX2's bit for bit (vnni.py checks at load)."""
    lib = intdot.library()
    has = {"avx512_vnni", "avx512vl", "avx2", "fma"} <= intdot.cpu_flags()
    kept = intdot.kernel() == "AVX-512 VNNI"
    assert bool(lib.intdot_vnni(1)) == has
    torch.manual_seed(4)
    weight, x = torch.randn(48, 128), torch.randn(6, 128)
    records = q4_1_records(q4_1_of(weight))
    on = product("q4_1", records, x)
    lib.intdot_vnni(0)
    off = product("q4_1", records, x)
    lib.intdot_vnni(int(kept))
    assert torch.equal(on, off) or not kept
    assert intdot.kernel() in (("AVX-512 VNNI", "AVX2") if has else ("AVX2", "portable C"))


def test_the_kernel_kept_is_the_one_timed_faster_and_the_note_says_so():
    """A process keeps VNNI exactly when it timed faster than AVX2 (the ratio the sidebar's note
    shows, so a shipped AVX2 beside this machine's VNNI has its reason); no VNNI: no note."""
    from ui.lessons.bench_words import kernel_choice
    ratio, kept = intdot.vnni_over_avx2(), intdot.kernel()
    if not {"avx512_vnni", "avx512vl", "avx2", "fma"} <= intdot.cpu_flags():
        assert ratio is None and kernel_choice() is None
        return
    assert (ratio > 1) == (kept == "AVX-512 VNNI")
    assert f"VNNI ran at {ratio:.2f}× AVX2's speed, so every process runs {kept}." in kernel_choice()


def test_the_vnni_timing_is_taken_once_per_cpu_and_kept(tmp_path, monkeypatch):
    """A second process on the machine reads the kept timing (so every process runs one kernel); a
    store that is not valid is timed again."""
    from specdec.models.intdot import vnni
    monkeypatch.setattr(intdot, "FOLDER", tmp_path)
    calls = []
    timed = lambda: calls.append(1) or {"vnni": 1.0, "avx2": 2.0}   # noqa: E731
    assert vnni._kept(timed) == {"vnni": 1.0, "avx2": 2.0} and vnni._kept(timed) == {"vnni": 1.0, "avx2": 2.0}
    assert len(calls) == 1
    kept = json.loads((tmp_path / "vnni.json").read_text())
    (tmp_path / "vnni.json").write_text(json.dumps({key: {"vnni": -1.0, "avx2": 2.0} for key in kept}))
    assert vnni._kept(timed) == {"vnni": 1.0, "avx2": 2.0} and len(calls) == 2


def test_an_intdot_model_normalises_rows_in_c_and_float32_undoes_it():
    from specdec.models import precision

    from tiny import tiny_llama
    model = tiny_llama(13, 2, seed=1, width=64)
    norm = model.model.norm
    before = type(norm)
    x = torch.randn(1, 5, 64) * 4
    reference = norm.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + norm.variance_epsilon))
    precision.apply(model, "intdot")
    assert type(norm).__name__ == f"Rows{before.__name__}" and isinstance(norm, before)
    out = norm(x)
    assert torch.allclose(out, reference, rtol=1e-5, atol=1e-6)
    assert all(torch.equal(norm(x[:, i:i + 1])[0, 0], out[0, i]) for i in range(5))   # rows alone, same bits
    precision.apply(model, "float32")
    assert type(norm) is before


@pytest.mark.parametrize("rows", [1, 5, 17])
def test_the_c_rotary_embedding_gives_transformers_own_bits(rows):
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    from specdec.models.intdot.rope import fits, rotated
    q, k = torch.randn(1, rows, 9, 64) * 5, torch.randn(1, rows, 3, 64) * 5
    angles = torch.randn(1, rows, 32) * 10
    cos, sin = torch.cat([angles.cos()] * 2, -1), torch.cat([angles.sin()] * 2, -1)
    assert fits(q, k, cos, sin)
    mine = rotated(q, k, cos, sin)
    theirs = apply_rotary_pos_emb(q.transpose(1, 2), k.transpose(1, 2), cos, sin)
    assert all(torch.equal(a, b) for a, b in zip(mine, theirs))
