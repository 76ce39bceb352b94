"""The ONNX Runtime backend (models/backend.py, onnx_target.py) is exact: the property it rests
on holds on the installed build, speculative output equals that backend's own autoregressive
output token for token, sampled output follows its p, and what it does not serve goes to torch.

A tiny target (13 tokens, built from a config) is built into ONNX in a temporary folder for the
sampling checks; the real one is SmolLM2's build, which `make embedded` prepares."""
from dataclasses import replace

import pytest
import torch

import specdec
from specdec.errors import LoadError
from specdec.models import backend as backends
from specdec.models import onnx_build, onnx_graph, onnx_target
from specdec.models.backend import OnnxBackend
from specdec.models.kernels import cpu_model
from specdec.models.onnx_target import OrtTarget
from specdec.rules.sampling import probs_from_logits

from stats import chi2_pvalue
from tiny import tiny_pair

RUNS = 500                       # as test_lossless: p > 1e-3 at 500 runs for the right rule
PROMPT = "ab(ab(a"


@pytest.fixture(scope="module")
def tiny_onnx(tmp_path_factory):
    """The tiny pair with its target built into ONNX (int4) and used as the pair's backend."""
    pair = tiny_pair()
    source = tmp_path_factory.mktemp("tiny-target")
    pair.target.save_pretrained(source)
    pair.tokenizer.save_pretrained(source)
    # one build for every test worker: the builder's lock makes a second worker wait, then use it
    base, kept = tmp_path_factory.getbasetemp(), onnx_build.ROOT  # .../pytest-N/popen-gwI under xdist
    onnx_build.ROOT = (base.parent if base.name.startswith("popen-gw") else base) / "onnx-builds"
    try:                              # only the tiny build goes there: SmolLM2's stays make embedded's
        target = OrtTarget(onnx_build.built("tiny/target", source), threads=1)
    finally:
        onnx_build.ROOT = kept
    exact_here(target)
    return replace(pair, backend=OnnxBackend(target, pair.vocab_size))


def exact_here(target) -> None:
    """The backend's exactness tests apply where this CPU's ONNX Runtime kernels make its rows
    independent of the pass's width; elsewhere what must hold is the refusal, asserted here."""
    if target.rows_agree():
        return
    with pytest.raises(LoadError, match="would not be exact"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(onnx_build, "built", lambda *_: target.folder)
            backends._session("checked", target.folder)
    pytest.skip(f"ONNX Runtime's passes are not row-exact on this CPU ({cpu_model()}): the backend refuses "
                "the build (asserted), so its exactness tests do not apply here")


@pytest.fixture(scope="module")
def smol_onnx():
    from specdec.models.backend import onnx_source
    from specdec.models.load import load_model
    try:
        return specdec.load_pair("smollm2/target", "smollm2/draft", backend="onnx")
    except LoadError as err:
        assert "would not be exact" in str(err), err
        source = onnx_source("smollm2/target", load_model("smollm2/target"))
        exact_here(OrtTarget(onnx_build.built("smollm2/target", source), threads=1))
        raise


def test_rows_do_not_depend_on_the_width_of_their_pass(tiny_onnx, smol_onnx):
    """On the installed build and this CPU: a pass of 9 rows equals the same tokens fed one at
    a time (the graph's attention sees each pass with one row more: onnx_graph.py)."""
    for pair in (tiny_onnx, smol_onnx):
        target = pair.passes.target
        assert target.rows_agree()
        tokens = [3, 5, 7, 2, 9, 4, 1, 8, 6, 10, 11]
        wide, steps = target.new_cache(), target.new_cache()
        together, _ = target.forward(tokens, wide)                                   # (11, V)
        alone = torch.cat([target.forward([t], steps)[0] for t in tokens])          # 11 x (1, V)
        assert torch.equal(together, alone)
        assert wide.get_seq_length() == steps.get_seq_length() == len(tokens)


def test_a_build_whose_rows_depend_on_the_width_is_refused(tiny_onnx, monkeypatch):
    """Forced on purpose (on any CPU): a kernel whose one-row pass differs, fed one row at a time."""
    target, run = tiny_onnx.passes.target, onnx_target.OrtCache.run

    def one_row_differs(cache, feed, keep):
        logits, states = run(cache, feed, keep)
        return (logits + 1e-3 if len(feed) == 1 else logits), states
    monkeypatch.setattr(onnx_target.OrtCache, "run", one_row_differs)
    assert not target.rows_agree()
    monkeypatch.setattr(backends, "OrtTarget", lambda *_: target, raising=False)
    monkeypatch.setattr(onnx_build, "built", lambda *_: target.folder)
    with pytest.raises(LoadError, match="would not be exact"):
        backends._session("tiny/target", target.folder)


def test_speculative_on_onnx_equals_its_own_autoregressive_on_twenty_chats(smol_onnx):
    """20 held chats x k = 2, 4, 8, greedy: token for token the backend's own autoregressive run."""
    from specdec.chat import user_turn
    from specdec.prompts import load_prompts, round_robin
    chats = [user_turn(p.prompt) for p in round_robin(load_prompts("chat"), 20)]
    assert len(chats) == 20
    for chat in chats:
        settings = specdec.Settings(temperature=0.0, max_new_tokens=8, lean=True)
        ar = specdec.autoregressive(smol_onnx, chat, settings)
        assert ar.settings["backend"] == "onnx"
        for k in (2, 4, 8):
            assert specdec.generate(smol_onnx, chat, replace(settings, k=k)).token_ids == ar.token_ids, (chat, k)


def exact_two_token_law(pair, sampling) -> dict:
    """The backend's own p for the first two tokens (its passes, as the engine feeds them)."""
    backend, ids = pair.passes, pair.tokenizer(PROMPT)["input_ids"]

    def probs(seq):
        logits, _ = backend.forward(seq, backend.new_cache(), keep=1)               # (1, V)
        return probs_from_logits(logits, sampling)[0]
    p1, law = probs(ids), {}
    for t1 in range(pair.vocab_size):
        if p1[t1] == 0:
            continue
        if t1 == pair.tokenizer.eos_token_id:
            law[(t1,)] = float(p1[t1])
            continue
        p2 = probs(ids + [t1])
        for t2 in range(pair.vocab_size):
            law[(t1, t2)] = float(p1[t1] * p2[t2])
    return law


@pytest.mark.parametrize("k, drafter", [(2, "model"), (4, "model"), (8, "ngram")])
def test_sampled_output_on_onnx_follows_its_p(tiny_onnx, k, drafter):
    """Passes of 3, 5 and 9 rows (k = 8 drafts by n-gram: the draft model's eight steps a round
    would cost 18 s here, and the backend's p is what is under test)."""
    settings = dict(k=k, temperature=1.0, max_new_tokens=k + 1, drafter=drafter)
    law = exact_two_token_law(tiny_onnx, specdec.Settings(**settings).sampling)
    samples = [tuple(specdec.generate(tiny_onnx, PROMPT, seed=seed, **settings).token_ids[:2])
               for seed in range(RUNS)]
    assert chi2_pvalue(samples, law) > 1e-3


def test_the_cache_grows_and_rolls_back_as_a_fresh_run_would(tiny_onnx, monkeypatch):
    """Buffers that double mid-run (capacity 4) and every rollback give the run a roomy cache gives."""
    settings = specdec.Settings(k=3, temperature=1.0, max_new_tokens=24, seed=5)
    roomy = specdec.generate(tiny_onnx, PROMPT, settings)
    monkeypatch.setattr(onnx_target, "FIRST_CAPACITY", 4)
    decoder = specdec.Decoder(tiny_onnx, PROMPT, settings)
    for rnd in decoder:
        assert decoder.target_cache.get_seq_length() == rnd.caches.target_after == rnd.prefix_len + rnd.n_accepted
    assert decoder.target_cache.capacity > 4
    assert tuple(decoder.generated) == roomy.token_ids


def test_trees_and_batches_verify_on_torch_and_say_so(tiny_onnx):
    chain = specdec.generate(tiny_onnx, PROMPT, k=2, max_new_tokens=4)
    tree = specdec.generate(tiny_onnx, PROMPT, drafter="tree", max_new_tokens=4)
    assert (chain.settings["backend"], tree.settings["backend"]) == ("onnx", "torch")
    batch = specdec.generate_batch(tiny_onnx, [PROMPT, "ab"], specdec.Settings(max_new_tokens=4))
    assert all(run.settings["backend"] == "torch" for run in batch)


def test_auto_keeps_the_stdlib_target_on_torch_and_a_bad_name_is_one_message():
    pair = specdec.load_pair("stdlib/target", None)
    assert pair.passes.name == "torch"
    with pytest.raises(LoadError, match="backend must be one of auto, torch, onnx"):
        specdec.load_pair("stdlib/target", None, backend="tensorrt")


def test_agreement_counts_the_positions_where_both_targets_pick_the_same_top_token(tiny_onnx):
    from specdec.bench.agreement import agreement
    from specdec.models.backend import TorchBackend
    torch_backend = TorchBackend(tiny_onnx.target, tiny_onnx.vocab_size)
    texts = [([1, 2, 3], [4, 5, 6, 7]), ([3, 3], [1, 2])]
    assert agreement(torch_backend, torch_backend, texts).agreement == 1.0
    same = 0
    for prompt, answer in texts:                      # by hand: the models' own full forwards
        ids = torch.tensor([prompt + answer[:-1]])
        with torch.no_grad():
            mine = tiny_onnx.target(ids).logits[0, len(prompt) - 1:].argmax(-1)
        theirs, _ = tiny_onnx.passes.forward(prompt + answer[:-1], tiny_onnx.passes.new_cache())
        same += int((mine == theirs[len(prompt) - 1:].argmax(-1)).sum())
    found = agreement(torch_backend, tiny_onnx.passes, texts)
    assert found.agreement == same / 6 and found.positions == 6 and found.chats == 2


def test_the_bench_adds_the_engine_on_torch_and_the_runtime_own_loop(tiny_onnx):
    """A target on ONNX Runtime: the engine's rows run there, the same engine on torch beside
    them, and onnxruntime-genai's own loop on the same build; greedy outputs agree within each
    backend's rows, and the runtime's one-row loop is counted, not compared."""
    from specdec.bench.record import RowKind
    from specdec.bench.runner import BACKEND_ROWS, bench
    result = bench(tiny_onnx, [PROMPT, "ab"], [2], [0.0], 6, 1, drafting=specdec.Settings(drafter="ngram"))
    setting = result.settings[0]
    assert set(BACKEND_ROWS) <= {r.row for r in setting.rows} and result.provenance.backend == "onnx"
    # the runtime's loop is told to make as many tokens as the engine's autoregressive row made
    assert setting.row(RowKind.GENAI).tokens == setting.row(RowKind.AR).tokens > 0
    assert setting.identical is True and "onnxruntime-genai generate" in setting.not_compared


def test_a_run_that_fills_the_context_ends_as_on_torch_would(tiny_onnx):
    """The context is one position shorter than the rotary tables (the padded attention row
    needs one): a run that fills it ends at the context window, its greedy text the speculative one."""
    no_eos = tiny_pair(eos=False)                                   # the same weights, no stop token
    pair = replace(tiny_onnx, tokenizer=no_eos.tokenizer, target=no_eos.target)
    settings = specdec.Settings(temperature=0.0, max_new_tokens=200, k=3)
    ar = specdec.autoregressive(pair, PROMPT, settings)
    spec = specdec.generate(pair, PROMPT, settings)
    assert ar.stop_reason == spec.stop_reason == "context window"
    assert ar.token_ids == spec.token_ids and len(ar.prompt_ids) + len(ar.token_ids) == pair.context
    assert ar.settings["backend"] == "onnx"


def test_the_last_position_of_the_context_equals_its_row_in_one_pass(tiny_onnx):
    target = tiny_onnx.passes.target
    tokens = [(7 * i + 3) % 13 for i in range(target.context)]
    wide, steps = target.new_cache(), target.new_cache()
    together, _ = target.forward(tokens, wide)                                   # (context, V): one pass
    target.forward(tokens[:-1], steps)
    last, _ = target.forward(tokens[-1:], steps)                                 # the context's last position
    assert torch.equal(last[0], together[-1]) and steps.get_seq_length() == target.context


def test_every_attention_node_of_the_build_is_padded(tiny_onnx):
    """The edit the exactness rests on is in the graph that runs (onnx_graph.py)."""
    import onnx
    graph = onnx.load(str(tiny_onnx.passes.target.folder / onnx_graph.FILE), load_external_data=False).graph
    attention = [n for n in graph.node if n.op_type == "GroupQueryAttention"]
    padded = {n.output[0] for n in graph.node if n.op_type == "Gather" and n.input[1:] == [onnx_graph.WIDE]}
    cut = {n.input[0] for n in graph.node if n.op_type == "Gather" and n.input[1:] == [onnx_graph.ROWS]}
    assert attention and all(n.input[0] in padded and n.output[0] in cut for n in attention)


def test_the_lm_head_reads_only_the_kept_rows_and_they_equal_a_full_pass(tiny_onnx, smol_onnx):
    """The LM head's input is the last KEEP rows (onnx_graph.keep_last_rows); the logits of a
    pass keeping 1 or 3 rows are those rows of the same pass keeping all, bit for bit."""
    import onnx
    for pair in (tiny_onnx, smol_onnx):
        target = pair.passes.target
        graph = onnx.load(str(target.folder / onnx_graph.FILE), load_external_data=False).graph
        head = next(n for n in graph.node if "logits" in n.output)
        cut = next(n for n in graph.node if n.output[0] == head.input[0])
        assert cut.op_type == "Slice" and cut.input[0] == "hidden_states"
        tokens = [(17 * i + 5) % target.vocab for i in range(12)]
        full = target.forward(tokens, target.new_cache())[0]                           # (12, V)
        for keep in (1, 3):
            kept = target.forward(tokens, target.new_cache(), keep=keep)[0]            # (keep, V)
            assert kept.shape == (keep, target.vocab) and torch.equal(kept, full[-keep:])
