"""The target's precision (float32, bfloat16, int4): each is exact decoding of *that* target,
rows of a wide pass equal one-row steps bit for bit, and int4 reads a Q4_1 GGUF's own blocks."""
import pytest
import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

import specdec
from specdec.errors import LoadError
from specdec.models import kernels, precision
from specdec.models.load import load_model

from stats import chi2_pvalue
from test_lossless import PROMPT, RUNS, exact_two_token_law
from tiny import char_tokenizer, tiny_llama

REDUCED = [p for p in precision.available() if p != "float32"]


def gqa_llama(vocab: int, seed: int) -> LlamaForCausalLM:
    """Four query heads sharing two key/value heads (as SmolLM2's 9 share 3)."""
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=vocab, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                      initializer_range=0.3, tie_word_embeddings=False, eos_token_id=0, bos_token_id=0)
    return LlamaForCausalLM(cfg).eval()


def pair_in(name: str, seed: int = 1):
    tok = char_tokenizer()
    target = gqa_llama(len(tok), seed)
    kernels.choose(target, name)
    return specdec.make_pair(target, tiny_llama(len(tok), 1, seed=2, width=64), tok, "t", "d")


@pytest.mark.parametrize("name", precision.available())
def test_every_precision_keeps_greedy_parity_with_transformers_generate(name, monkeypatch):
    monkeypatch.delenv("SPECDEC_KERNELS", raising=False)
    pair = pair_in(name)
    assert precision.of(pair.target) == name
    if name == "int4":
        assert any(isinstance(m, precision.Int4Linear) for m in pair.target.modules())
    for prompt in ["abc", "a(b)\n", "hhh gg"]:
        alone = specdec.autoregressive(pair, prompt, temperature=0, max_new_tokens=16)
        ids = torch.tensor([list(alone.prompt_ids)])
        ref = pair.target.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=16,
                                   do_sample=False, eos_token_id=None)[0, ids.shape[1]:].tolist()
        assert list(alone.token_ids) == ref[:len(alone.token_ids)]
        for k in (2, 4, 8):
            assert specdec.generate(pair, prompt, k=k, temperature=0, max_new_tokens=16).token_ids == alone.token_ids


@torch.no_grad()
def logits_in_pieces(model, ids: torch.Tensor, start: int, piece: int) -> torch.Tensor:
    """Logits of positions start-1 .. end-1 when the tail is fed `piece` tokens at a time."""
    cache = DynamicCache(config=model.config)
    out = [model(input_ids=ids[:, :start], cache=cache, use_cache=True).logits[0, -1:]]
    for s in range(start, ids.shape[1], piece):
        e = min(s + piece, ids.shape[1])
        out.append(model(input_ids=ids[:, s:e], cache=cache, use_cache=True).logits[0])
    return torch.cat(out)


@pytest.mark.parametrize("name", REDUCED)
def test_a_wide_pass_equals_one_row_steps_bit_for_bit(name):
    """In bfloat16 and int4 each row of a (k+1)-row pass gets exactly the logits of a one-row step
    (so verification computes the autoregressive distribution itself); in float32 it may not."""
    model = gqa_llama(13, 3)
    ids = torch.randint(0, 13, (1, 80))
    precision.apply(model, name)
    steps = logits_in_pieces(model, ids, 10, 1)
    for piece in (3, 5, 9, 40, 70):
        assert torch.equal(logits_in_pieces(model, ids, 10, piece), steps), piece
    precision.apply(model, "float32")
    assert model.config._attn_implementation != "specdec_rows"      # undone with the precision
    gap = (logits_in_pieces(model, ids, 10, 5) - logits_in_pieces(model, ids, 10, 1)).abs().max()
    assert gap < 1e-3                                               # float32: summation order only


@pytest.mark.parametrize("name", REDUCED)
def test_first_two_tokens_follow_the_reduced_precision_target(name):
    pair = pair_in(name)
    settings = {"k": 3, "max_new_tokens": 4, "temperature": 1.0}
    law = exact_two_token_law(pair, PROMPT, specdec.Settings(**settings).sampling)
    samples = [tuple(specdec.generate(pair, PROMPT, seed=s, **settings).token_ids[:2]) for s in range(RUNS)]
    assert chi2_pvalue(samples, law) > 1e-3


def test_int4_multiplies_the_gguf_own_q4_1_blocks(tmp_path, monkeypatch):
    """A Q4_1 GGUF's blocks are read from the file, checked against the loaded weights, and the
    int4 layers compute with them; a block that does not match the weights is not used."""
    from specdec.models import q4_1

    from tiny_gguf import write_tiny_gguf
    monkeypatch.setenv("SPECDEC_CACHE", str(tmp_path / "cache"))
    path = write_tiny_gguf(tmp_path / "q41.gguf", hidden=64, heads=4, kv_heads=2, ffn=128, q4_1=True)
    model = load_model(str(path), precision="int4")
    assert precision.of(model) == "int4" and model.precision_source == "gguf"
    assert "the GGUF's Q4_1 blocks" in kernels.describe(model)
    blocks = q4_1.q4_1_blocks(path, model)
    assert len(blocks) == 2 * 7                                     # every linear layer of both blocks
    name = "model.layers.0.self_attn.k_proj"
    layer = dict(model.named_modules())[name]
    q, scale, low = blocks[name]
    x = torch.randn(3, layer.in_features)
    ref = (x.bfloat16().float() @ (q.float().reshape(*q.shape[:1], -1, 32) * scale[..., None].bfloat16().float()
                                    + low[..., None]).reshape(q.shape).T)
    assert torch.allclose(layer(x), ref, atol=0.05, rtol=0.02)
    with torch.no_grad():
        layer.weight[0, 0] += 1.0                                   # no longer what the file holds
    assert name not in q4_1.q4_1_blocks(path, model) and len(q4_1.q4_1_blocks(path, model)) == 13


def test_an_unknown_precision_is_one_clear_message():
    with pytest.raises(LoadError, match="precision must be one of auto, float32, bfloat16, int4"):
        specdec.load_pair("stdlib/target", None, precision="int8")


def test_the_fastest_step_picks_the_precision_and_is_kept(monkeypatch, tmp_path):
    """With made-up timings int4 has the fastest one-token step (intdot the next): auto takes it, and the choice
    is stored and read back instead of timing again; asked for float32, the layouts are timed."""
    monkeypatch.delenv("SPECDEC_KERNELS", raising=False)
    monkeypatch.setattr(kernels, "STORE", tmp_path / "kernels.json")
    step = {"float32": 50.0, "bfloat16": 45.0, "int4": 30.0, "intdot": 35.0}
    timed = []

    def pass_ms(model, rows, repeats=kernels.REPEATS):
        timed.append((precision.of(model), rows))
        return step[precision.of(model)] * (1 + rows / 10)
    monkeypatch.setattr(kernels, "pass_ms", pass_ms)
    model = tiny_llama(13, 2, seed=1)
    choice = kernels.choose(model)
    ready = precision.available()
    expected = "int4" if "int4" in ready else "intdot" if "intdot" in ready else "bfloat16"
    assert choice["precision"] == expected == precision.of(model)
    count = len(timed)
    assert kernels.choose(tiny_llama(13, 2, seed=1))["precision"] == expected and len(timed) == count
    assert kernels.choose(tiny_llama(13, 2, seed=1), "float32")["precision"] == "float32"
