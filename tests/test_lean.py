"""The engine's lean pass (specdec/models/lean.py) computes what the model's own forward computes,
bit for bit — logits, KV cache and final hidden states — in every precision, and steps aside
where it does not apply."""
import pytest
import torch
from test_precision import gqa_llama
from transformers import LlamaConfig, LlamaForCausalLM

import specdec
from specdec.models import lean, precision, rooms, runtime
from specdec.models.runtime import crop_cache, final_hidden_states, new_cache

from tiny import char_tokenizer


def own_forward(model, ids: list[int], cache, keep: int) -> tuple[torch.Tensor, torch.Tensor]:
    with final_hidden_states(model) as seen, torch.no_grad():
        logits = model(input_ids=torch.tensor([ids]), cache=cache, use_cache=True, logits_to_keep=keep).logits
    return logits[0].float(), seen[-1]


def lean_forward(model, ids: list[int], cache, keep: int) -> tuple[torch.Tensor, torch.Tensor]:
    with final_hidden_states(model) as seen:
        logits = runtime.forward(model, ids, cache, model.config.vocab_size, keep)
    return logits, seen[-1]


@pytest.mark.parametrize("name", precision.available())
def test_the_lean_pass_equals_the_model_own_forward_bit_for_bit(name):
    model = gqa_llama(13, 5)
    precision.apply(model, name)
    assert lean.fits(model)
    torch.manual_seed(0)
    ids = torch.randint(0, 13, (90,)).tolist()
    mine, theirs = new_cache(model), new_cache(model)
    at = 0
    for rows, keep in ((30, 1), (1, 1), (5, 5), (9, 0), (1, 1), (17, 17)):      # prefill, steps, passes
        a = lean_forward(model, ids[at:at + rows], mine, keep)
        b = own_forward(model, ids[at:at + rows], theirs, keep)
        assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1]), (name, rows)
        at += rows
        if rows == 5:                                             # a rollback between passes
            crop_cache(mine, at - 2), crop_cache(theirs, at - 2)
            at -= 2
    for x, y in zip(mine.layers, theirs.layers):
        assert torch.equal(x.keys, y.keys) and torch.equal(x.values, y.values)


def wide_llama(seed: int):
    """Layer widths that are multiples of 64, as SmolLM2's are (q 576, k and v 192, gate 1536)."""
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=13, hidden_size=128, intermediate_size=192, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=1, initializer_range=0.3)
    return LlamaForCausalLM(cfg).eval()


needs_int4 = pytest.mark.skipif(not precision.int4_available(), reason="this torch build has no CPU int4 kernel")


@needs_int4
def test_int4_multiplies_q_k_v_and_gate_up_as_one_product_each():
    model = wide_llama(6)
    precision.apply(model, "int4")
    prompt = [1, 2, 3, 4]
    logits = runtime.forward(model, prompt, new_cache(model), 13, 1)
    attn, mlp = model.model.layers[0].self_attn, model.model.layers[0].mlp
    weight, _, sizes = lean._FUSED[attn][:3]
    assert sizes == [128, 64, 64] and weight.shape[0] == 256
    assert attn.q_proj.packed()[0].data_ptr() == weight.data_ptr()             # a view: held once
    assert lean._FUSED[mlp][2] == [192, 192]
    assert torch.equal(logits, own_forward(model, prompt, new_cache(model), 1)[0])
    precision.apply(model, "int4")                                              # new copies: stacked again
    runtime.forward(model, [1, 2, 3], new_cache(model), 13, 0)
    assert lean._FUSED[attn][0].data_ptr() == attn.q_proj.packed()[0].data_ptr() != weight.data_ptr()


@needs_int4
@pytest.mark.parametrize("model_of", [lambda: gqa_llama(13, 6), lambda: wide_llama(6)], ids=["32-wide", "64-wide"])
def test_whichever_way_the_cpu_stacks_the_lean_pass_equals_the_model_own(model_of):
    """Which layers stack depends on the CPU's int4 layout (blocks of 64 columns on AVX-512,
    other widths elsewhere); what must hold on every CPU is that the first pass decided it by
    checking, and either way the logits are the model's own bit for bit."""
    model = model_of()
    precision.apply(model, "int4")
    prompt = [1, 2, 3, 4]
    logits = runtime.forward(model, prompt, new_cache(model), 13, 1)
    attn = model.model.layers[0].self_attn
    weight = lean._FUSED[attn][0]                   # None: the layers kept separate calls
    if weight is not None:                                      # stacked: q multiplies by a view of it
        assert attn.q_proj.packed()[0].data_ptr() == weight.data_ptr()
    assert torch.equal(logits, own_forward(model, prompt, new_cache(model), 1)[0])


@needs_int4
@pytest.mark.parametrize("switch", ["stacking off", "stack not bit-equal"])
def test_layers_keep_separate_products_when_stacking_is_off_or_would_change_a_bit(monkeypatch, switch):
    """Both fallbacks forced on purpose (on any CPU): `STACK = False`, and a stack whose check
    fails. The layers then multiply one by one and the pass still equals the model's own."""
    if switch == "stacking off":
        monkeypatch.setattr(lean, "STACK", False)
    else:
        monkeypatch.setattr(lean, "stacked_equal", lambda *_: False)
    model = wide_llama(6)
    precision.apply(model, "int4")
    prompt = [1, 2, 3, 4, 5]
    logits = runtime.forward(model, prompt, new_cache(model), 13, 0)
    for owner in (model.model.layers[0].self_attn, model.model.layers[0].mlp):
        assert lean._FUSED[owner][0] is None
    assert torch.equal(logits, own_forward(model, prompt, new_cache(model), 0)[0])


def test_hooks_and_other_architectures_take_the_model_own_forward():
    model = gqa_llama(13, 7)
    calls = []
    handle = model.register_forward_hook(lambda *_: calls.append(1))
    runtime.forward(model, [1, 2], new_cache(model), 13, 1)
    assert calls == [1] and not lean.fits(model)                               # a hook sees the pass
    handle.remove()
    runtime.forward(model, [1, 2], new_cache(model), 13, 1)
    assert calls == [1] and lean.fits(model)

    from transformers import MistralConfig, MistralForCausalLM
    other = MistralForCausalLM(MistralConfig(vocab_size=13, hidden_size=32, intermediate_size=64,
                                             num_hidden_layers=1, num_attention_heads=2,
                                             num_key_value_heads=2)).eval()
    assert not lean.fits(other)
    assert runtime.forward(other, [1, 2], new_cache(other), 13, 1).shape == (1, 13)


@needs_int4
def test_the_engine_decodes_the_same_tokens_either_way(monkeypatch):
    """Greedy and sampled runs of a pair whose target takes the lean pass equal those with the
    lean pass switched off (the model's own forward everywhere)."""
    tok = char_tokenizer()
    target = gqa_llama(len(tok), 8)
    precision.apply(target, "int4")
    pair = specdec.make_pair(target, gqa_llama(len(tok), 9), tok, "t", "d")
    settings = [specdec.Settings(k=3, temperature=t, seed=4, max_new_tokens=24) for t in (0.0, 1.0)]
    runs = [specdec.generate(pair, "ab(c", s).token_ids for s in settings]
    monkeypatch.setattr(lean, "fits", lambda model: False)
    assert [specdec.generate(pair, "ab(c", s).token_ids for s in settings] == runs


def test_a_feature_draft_drafts_the_same_q_either_way(monkeypatch):
    from tiny import tiny_feature_pair
    pair = tiny_feature_pair(eos=False)
    settings = specdec.Settings(k=3, temperature=1.0, seed=2, max_new_tokens=20)

    def qs():
        return [[p.draft.probs for p in rnd.positions] for rnd in specdec.rounds(pair, "abc abc a", settings)]
    assert lean.fits(pair.draft.net)
    lean_qs = qs()
    monkeypatch.setattr(lean, "fits", lambda model: False)
    assert qs() == lean_qs


@pytest.mark.parametrize("lean_pass", [False, True], ids=["own forward", "lean pass"])
def test_features_of_another_thread_stay_out_of_this_thread_block(lean_pass):
    """The app's sessions share one target and run it from several threads at once: features seen
    while another thread's forward runs must not join this thread's (it changed q, and seeded
    outputs differed between the app and specdec.generate under load) — through the hook on the
    model's own forward and through the lean pass alike."""
    import threading
    model = gqa_llama(13, 10)
    inside, done = threading.Event(), threading.Event()

    def run(ids: list[int]) -> None:
        if lean_pass:
            runtime.forward(model, ids, new_cache(model), 13, 1)
        else:
            with torch.no_grad():
                model(input_ids=torch.tensor([ids]))

    def other_session():
        inside.wait()
        run([1, 2, 3])
        done.set()
    worker = threading.Thread(target=other_session)
    worker.start()
    with final_hidden_states(model) as seen:
        inside.set()
        done.wait(30)
        run([4, 5])
    worker.join()
    assert [tuple(s.shape) for s in seen] == [(2, 64)]


@pytest.mark.parametrize("name", ["float32", "int4", "intdot"])
def test_the_cache_written_in_place_equals_the_model_own_cache_through_rollbacks_and_growth(name):
    """Past the buffers' first 256 rows, through crops, a tree's gather and a pass of the model's
    own forward on the same cache, every pass equals the model's own, bit for bit."""
    from specdec.models.runtime import keep_positions
    if name not in precision.available():
        pytest.skip(f"{name} is not available in this torch build")
    model = gqa_llama(13, 11)
    precision.apply(model, name)
    torch.manual_seed(1)
    ids = torch.randint(0, 13, (700,)).tolist()
    mine, theirs = new_cache(model), new_cache(model)
    at, step = 0, 0
    while at < 600:
        rows = (40, 1, 5, 1, 9, 3)[step % 6]
        a = lean_forward(model, ids[at:at + rows], mine, rows)
        b = own_forward(model, ids[at:at + rows], theirs, rows)
        assert torch.equal(a[0], b[0]), (at, rows)
        at += rows
        if rows in (5, 9):                                        # rejected drafts
            at -= 2
            crop_cache(mine, at), crop_cache(theirs, at)
        if step % 10 == 7:                                        # a tree round keeps a path
            path = list(range(at - 3)) + [at - 2, at - 1]
            keep_positions(mine, path), keep_positions(theirs, path)
            at -= 1
        if step % 10 == 3:                                        # the model's own pass on our cache
            own_forward(model, ids[at:at + 1], mine, 1), own_forward(model, ids[at:at + 1], theirs, 1)
            at += 1
        step += 1
    assert mine.get_seq_length() == theirs.get_seq_length() == at > 256
    for x, y in zip(mine.layers, theirs.layers):
        assert torch.equal(x.keys, y.keys) and torch.equal(x.values, y.values)
    assert mine.layers[0].keys.data_ptr() == rooms.ROOMS[mine.layers[0]][0].data_ptr()


def test_an_intdot_layer_runs_in_one_c_call_and_equals_the_modules_one_by_one(monkeypatch):
    """The one-call layer (intdot/layer.c) serves every layer of an intdot model's lean pass, and
    gives the bits the modules give one by one (the same pass with the one-call layer refused)."""
    from specdec.models.intdot import layer as c_layer
    if "intdot" not in precision.available():
        pytest.skip("no C compiler here: intdot is not offered")
    model = gqa_llama(13, 7)
    precision.apply(model, "intdot")
    calls = []
    real = c_layer.run
    monkeypatch.setattr(c_layer, "run", lambda *a: calls.append(1) or real(*a))
    torch.manual_seed(2)
    ids = torch.randint(0, 13, (40,)).tolist()
    one = lean_forward(model, ids[:30], new_cache(model), 0)[0]
    assert len(calls) == len(model.model.layers)
    monkeypatch.setattr(c_layer, "plan", lambda *a: None)                # modules one by one
    for layer in model.model.layers:
        lean._PLANS.pop(layer)
    cache = new_cache(model)
    assert torch.equal(one, lean_forward(model, ids[:30], cache, 0)[0])
    assert len(calls) == len(model.model.layers)


def test_the_one_call_layer_sees_a_weight_written_in_place():
    """A kept layer plan notices a weight written after it was made (its records are remade),
    so the lean pass still equals the model's own forward."""
    if "intdot" not in precision.available():
        pytest.skip("no C compiler here: intdot is not offered")
    model = gqa_llama(13, 8)
    precision.apply(model, "intdot")
    ids = list(range(1, 12))
    lean_forward(model, ids, new_cache(model), 0)
    with torch.no_grad():
        model.model.layers[1].mlp.down_proj.weight.mul_(-2.0)
        model.model.layers[0].input_layernorm.weight.add_(0.5)
    mine = lean_forward(model, ids, new_cache(model), 0)[0]
    assert torch.equal(mine, own_forward(model, ids, new_cache(model), 0)[0])


@pytest.mark.parametrize("name", precision.available())
def test_a_batch_pass_on_the_lean_path_equals_the_model_own_forward_bit_for_bit(name, monkeypatch):
    """Three requests of 7, 3 and 11 cached tokens feed 3, 1 and 2 tokens under the batch's mask
    (engine/batch.py): logits, final hidden states and the cache as the model's own forward's."""
    from specdec.models.batch_cache import BatchCache
    model = gqa_llama(13, 5)
    precision.apply(model, name)
    torch.manual_seed(1)
    prompts = [torch.randint(0, 13, (n,)).tolist() for n in (7, 3, 11)]

    def batch_of() -> BatchCache:
        batch = BatchCache()
        for prompt in prompts:
            single = new_cache(model)
            runtime.forward(model, prompt, single, 13, 1)
            batch.join(single)
        return batch
    mine, theirs = batch_of(), batch_of()
    lengths, ids = [3, 1, 2], torch.randint(0, 13, (3, 3))                      # (B, R)
    pos = torch.stack([torch.arange(3) + len(row.slots) for row in mine.rows])
    mask = mine.mask(lengths, 3)                                               # (B, 1, R, T + R)
    real, calls = lean.forward_rows, []
    monkeypatch.setattr(lean, "forward_rows", lambda *args: calls.append(1) or real(*args))
    with final_hidden_states(model, batched=True) as seen_a:
        a = runtime.forward_batch(model, ids, mine.cache, pos, mask)
    with final_hidden_states(model, batched=True) as seen_b, torch.no_grad():
        b = model(input_ids=ids, attention_mask=mask, position_ids=pos, cache=theirs.cache, use_cache=True).logits
    assert calls == [1], name                                                  # the lean path ran
    for i, n in enumerate(lengths):                                            # padding rows are never read
        assert torch.equal(a[i, :n], b[i, :n]) and torch.equal(seen_a[-1][i, :n], seen_b[-1][i, :n]), (name, i)
    for x, y in zip(mine.cache.layers, theirs.cache.layers):
        assert torch.equal(x.keys, y.keys) and torch.equal(x.values, y.values)
