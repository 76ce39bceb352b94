"""Models are built one at a time and never under another default dtype (specdec/models/construct.py):
transformers' switches are process-wide, and a server thread that computed beside a build had its
buffers made float16 and the integer kernels wrote float32 past them (the server's heap abort)."""
import threading

import pytest
import torch
from conftest import needs_embedded
from test_lean import lean_forward
from test_precision import gqa_llama

from specdec.models import construct, load, precision
from specdec.models.intdot.linear import product, q8_0_of, q8_0_records
from specdec.models.runtime import new_cache


@pytest.fixture
def float16_default():
    """torch's default dtype float16 for the test (what a build beside it used to set), restored after."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float16)
    yield
    torch.set_default_dtype(before)


@needs_embedded
def test_building_the_split_head_draft_never_switches_the_default_dtype(monkeypatch):
    """The feature draft's config says float16; building it must not make that torch's default,
    even for a moment (the real switch still runs: it is only recorded)."""
    asked = []
    real = torch.set_default_dtype
    monkeypatch.setattr(torch, "set_default_dtype", lambda dtype: asked.append(dtype) or real(dtype))
    model = load.load_model("smollm2/draft")
    assert asked, "transformers no longer sets a default dtype: this test guards nothing"
    assert set(asked) == {torch.float32}
    assert next(model.parameters()).dtype == torch.float32


def test_a_product_under_a_float16_default_is_float32_and_the_same(float16_default):
    """The integer kernel's buffers name their dtype: a float16 default can neither size them nor
    change a bit."""
    q, d, _ = q8_0_of(torch.randn(40, 64, dtype=torch.float32, generator=torch.Generator().manual_seed(0)))
    records, x = q8_0_records(q, d), torch.randn(3, 64, dtype=torch.float32, generator=torch.Generator().manual_seed(1))
    y = product("q8_0", records, x)
    torch.set_default_dtype(torch.float32)
    expect = product("q8_0", records, x)
    assert y.dtype == torch.float32 and torch.equal(y, expect)


def test_an_intdot_lean_pass_under_a_float16_default_gives_the_same_logits():
    """The whole one-call layer path (its cache rooms, attention scratch, products) under a float16
    default gives the bits it gives under float32."""
    if "intdot" not in precision.available():
        pytest.skip("no C compiler here: intdot is not offered")
    model = gqa_llama(13, 7)
    precision.apply(model, "intdot")
    ids = [1 + i % 12 for i in range(30)]
    expect = lean_forward(model, ids, new_cache(model), 0)[0]
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float16)
    try:
        got = lean_forward(model, ids, new_cache(model), 0)[0]
    finally:
        torch.set_default_dtype(before)
    assert got.dtype == torch.float32 and torch.equal(got, expect)


def test_two_loads_never_run_at_once(monkeypatch):
    """A second load waits for the first to finish (the tie-weights switch of one would drop the
    other's tied head)."""
    inside, first_in, release = [], threading.Event(), threading.Event()

    def fake(name, *_):
        inside.append(name)
        if name == "first":
            first_in.set()
            release.wait(30)
        inside.append(f"{name} done")
        return name

    monkeypatch.setattr(load, "_load_model", fake)
    one = threading.Thread(target=load.load_model, args=("first",))
    one.start()
    assert first_in.wait(30)
    two = threading.Thread(target=load.load_model, args=("second",))
    two.start()
    two.join(0.3)                                  # it cannot enter while the first holds the lock
    assert inside == ["first"]
    release.set()
    one.join(30), two.join(30)
    assert inside == ["first", "first done", "second", "second done"]


def test_a_build_that_leaves_another_default_dtype_is_refused_and_undone():
    with pytest.raises(RuntimeError, match="default dtype"):
        with construct.building():
            torch.set_default_dtype(torch.float16)
    assert torch.get_default_dtype() == torch.float32
