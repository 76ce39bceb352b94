"""Prepacked (oneDNN) linear layers: same outputs as F.linear, same parameters, exact decoding."""
import pytest
import torch
import torch.nn.functional as F

import specdec
from specdec.models import packed as packed_linear
from specdec.models.packed import PackedLinear, memory_bound, pack_linears, packed_count, unpack_linears
from tests.tiny import char_tokenizer, tiny_feature_draft, tiny_llama

pytestmark = pytest.mark.skipif(not packed_linear.available(), reason="torch built without oneDNN")
needs_bf16 = pytest.mark.skipif(not packed_linear.bf16_available(),
                                reason="this CPU has no native bfloat16 multiply")


def packed_copy(lin: torch.nn.Linear) -> torch.nn.Linear:
    twin = torch.nn.Linear(lin.in_features, lin.out_features, bias=lin.bias is not None)
    twin.load_state_dict(lin.state_dict())
    twin.__class__ = PackedLinear
    return twin


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(1, 40), (2, 40), (3, 40), (5, 40), (9, 40), (1, 7, 40), (2, 4, 40)])
@torch.no_grad()
def test_a_packed_linear_computes_what_f_linear_computes(shape, bias):
    torch.manual_seed(0)
    lin = torch.nn.Linear(40, 24, bias=bias)
    x = torch.randn(shape)
    out = packed_copy(lin)(x)
    assert out.shape == (*shape[:-1], 24)
    torch.testing.assert_close(out, F.linear(x, lin.weight, lin.bias), rtol=1e-5, atol=1e-5)


@torch.no_grad()
def test_a_strided_input_is_multiplied_correctly():
    torch.manual_seed(0)
    lin = torch.nn.Linear(40, 24)
    x = torch.randn(40, 5).T                                          # (5, 40), not contiguous
    torch.testing.assert_close(packed_copy(lin)(x), F.linear(x, lin.weight, lin.bias),
                               rtol=1e-5, atol=1e-5)


def test_packing_keeps_the_parameters_and_their_ties():
    model = tiny_llama(13, 2, seed=1)
    model.lm_head.weight = model.model.embed_tokens.weight            # tie them
    keys, tensors = list(model.state_dict()), [p for p in model.parameters()]
    assert pack_linears(model) == 2 * 7 + 1                           # 7 a layer + the head
    assert list(model.state_dict()) == keys
    assert all(a is b for a, b in zip(model.parameters(), tensors))
    assert model.lm_head.weight is model.model.embed_tokens.weight
    unpack_linears(model)
    assert not any(isinstance(m, PackedLinear) for m in model.modules())


@torch.no_grad()
def test_a_weight_changed_in_place_is_packed_again():
    torch.manual_seed(0)
    lin = packed_copy(torch.nn.Linear(16, 8))
    x = torch.randn(5, 16)
    first = lin(x)
    lin.weight.mul_(2.0)
    torch.testing.assert_close(lin(x), 2.0 * first - lin.bias, rtol=1e-5, atol=1e-5)


def test_training_takes_the_ordinary_path_and_gets_gradients():
    torch.manual_seed(0)
    lin = packed_copy(torch.nn.Linear(16, 8))
    lin(torch.randn(5, 16)).sum().backward()
    assert lin.weight.grad is not None and lin.weight.grad.abs().sum() > 0


def test_only_models_too_large_for_the_caches_count_as_memory_bound(monkeypatch):
    """memory_bound decides whether pack_draft packs a draft beside a plain target."""
    model = tiny_llama(13, 2, seed=1)
    assert not memory_bound(model)                                     # a few kB of weights
    monkeypatch.setattr(packed_linear, "MIN_BYTES", 1)
    assert memory_bound(model)


@pytest.mark.parametrize("k", [1, 3, 5])
def test_greedy_decoding_with_a_packed_target_equals_the_target_alone(k):
    tok = char_tokenizer()
    target, draft = tiny_llama(len(tok), 2, seed=1), tiny_llama(len(tok), 1, seed=2)
    pack_linears(target)
    pair = specdec.make_pair(target, draft, tok, "tiny-target", "tiny-draft")
    prompts = ["abc", "a(b)\n", "hhh gg"]
    spec = [specdec.generate(pair, p, k=k, temperature=0, max_new_tokens=20) for p in prompts]
    alone = [specdec.autoregressive(pair, p, temperature=0, max_new_tokens=20) for p in prompts]
    unpack_linears(target)
    plain = [specdec.autoregressive(pair, p, temperature=0, max_new_tokens=20) for p in prompts]
    assert [r.token_ids for r in spec] == [r.token_ids for r in alone] == [r.token_ids for r in plain]


@needs_bf16
@pytest.mark.parametrize("shape", [(1, 40), (3, 40), (9, 40), (2, 4, 40)])
@torch.no_grad()
def test_a_bfloat16_packed_linear_takes_and_gives_float32_close_to_f_linear(shape):
    torch.manual_seed(0)
    lin = torch.nn.Linear(40, 24)
    twin = packed_copy(lin)
    twin.pack_dtype = torch.bfloat16
    x = torch.randn(shape)
    out, ref = twin(x), F.linear(x, lin.weight, lin.bias)
    assert out.dtype == torch.float32 and out.shape == ref.shape
    assert not torch.equal(out, ref)                           # it did multiply in bfloat16
    assert (out - ref).abs().max() <= 0.02 * ref.abs().max()   # 8 bits of mantissa


def tiny_models():
    tok = char_tokenizer()
    return tok, tiny_llama(len(tok), 2, seed=1), tiny_llama(len(tok), 1, seed=2)


@needs_bf16
def test_a_draft_is_packed_in_bfloat16_only_beside_a_packed_target():
    tok, target, draft = tiny_models()
    specdec.make_pair(target, draft, tok)
    assert packed_count(draft) == 0                            # cache-resident target: plain
    pack_linears(target)
    specdec.make_pair(target, draft, tok)
    packed = [m for m in draft.modules() if isinstance(m, PackedLinear)]
    assert len(packed) == 7 + 1 and {m.pack_dtype for m in packed} == {torch.bfloat16}
    assert {m.pack_dtype for m in target.modules() if isinstance(m, PackedLinear)} == {torch.float32}


@needs_bf16
@pytest.mark.parametrize("feature", [False, True])
def test_a_bfloat16_draft_keeps_decoding_exact(feature):
    """Greedy output == the target alone; sampled first two tokens follow the target's law."""
    from stats import chi2_pvalue
    from test_lossless import PROMPT, RUNS, exact_two_token_law
    tok, target, draft = tiny_models()
    pack_linears(target)
    if feature:
        draft = tiny_feature_draft(target, list(range(len(tok))))
    pair = specdec.make_pair(target, draft, tok, "tiny-target", "tiny-draft")
    assert packed_count(pair.draft) > 0
    for prompt in ["abc", "a(b)\n"]:
        spec = specdec.generate(pair, prompt, k=4, temperature=0, max_new_tokens=20)
        assert spec.token_ids == specdec.autoregressive(pair, prompt, temperature=0,
                                                        max_new_tokens=20).token_ids
    settings = {"k": 3, "max_new_tokens": 4, "temperature": 1.0}
    law = exact_two_token_law(pair, PROMPT, specdec.Settings(**settings).sampling)
    samples = [tuple(specdec.generate(pair, PROMPT, seed=seed, **settings).token_ids[:2])
               for seed in range(RUNS)]
    assert chi2_pvalue(samples, law) > 1e-3
