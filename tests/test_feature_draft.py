"""The feature drafter (EAGLE-style: specdec/models/feature.py, specdec/drafters/feature.py) on
tiny config-built models: greedy parity, exact sampling, q equal to a cache-free recompute after rollbacks, and the
folder format (load, damaged files)."""
import json

import pytest
import torch

import specdec
from specdec.errors import LoadError
from specdec.models.feature import FeatureDraft, save_fc
from specdec.models.load import load_model
from specdec.rules.sampling import probs_from_logits

from stats import chi2_pvalue
from test_engine import PROMPTS, hf_greedy
from test_lossless import PROMPT, RUNS, exact_two_token_law
from tiny import tiny_feature_pair


@pytest.fixture(scope="module")
def fpair():
    return tiny_feature_pair()


@pytest.fixture(scope="module")
def fpair_no_eos():
    return tiny_feature_pair(eos=False)


@pytest.mark.parametrize("k", [1, 3, 5])
def test_greedy_parity_with_transformers_generate(fpair, k):
    for prompt in PROMPTS:
        run = specdec.generate(fpair, prompt, k=k, temperature=0, max_new_tokens=24)
        assert list(run.token_ids) == hf_greedy(fpair, prompt, 24), prompt


def test_the_prefill_hands_the_prompt_features_over_so_every_round_drafts(fpair_no_eos):
    """The draft needs the target's features of the prompt: the prefill computes those of all
    but the last prompt token, which is enough to draft the first new token (issue 28)."""
    run = specdec.generate(fpair_no_eos, "abc", k=3, temperature=1.0, seed=1, max_new_tokens=20)
    n = len(run.prompt_ids)
    assert (run.prefill.tokens, run.prefill.features, run.prefill.target_cache) == (n - 1, n - 1, n - 1)
    assert run.prefill.draft_tokens == run.prefill.draft_cache == 0      # it keeps no prompt cache
    assert run.rounds[0].caches.target_before == n - 1 and run.rounds[0].drafted == 3
    assert all(r.drafted == r.draft_limit for r in run.rounds)
    assert all(r.draft_limit == 3 for r in run.rounds[:-3])


def test_a_one_token_prompt_has_nothing_to_prefill_and_round_one_reads_it(fpair_no_eos):
    run = specdec.generate(fpair_no_eos, "a", k=3, temperature=0, max_new_tokens=8)
    assert len(run.prompt_ids) == 1 and run.prefill.tokens == run.prefill.features == 0
    assert run.rounds[0].drafted == 0 and run.rounds[0].final.kind == "target"
    assert run.rounds[1].drafted == 3


def test_never_drafts_outside_its_vocabulary(fpair_no_eos):
    rounds = [r for seed in range(10) for r in specdec.generate(
        fpair_no_eos, "gg hh", k=4, temperature=1.5, seed=seed, max_new_tokens=30).rounds]
    drafted = {p.token for r in rounds for p in r.positions}
    assert drafted and not drafted & {7, 8}
    assert all(p.draft.prob(t) == 0.0 for r in rounds for p in r.positions for t in (7, 8))


def test_sampling_keeps_the_target_distribution(fpair):
    settings = {"k": 3, "max_new_tokens": 4, "temperature": 1.0}
    law = exact_two_token_law(fpair, PROMPT, specdec.Settings(**settings).sampling)
    samples = [tuple(specdec.generate(fpair, PROMPT, seed=seed, **settings).token_ids[:2])
               for seed in range(RUNS)]
    assert chi2_pvalue(samples, law) > 1e-3


@torch.no_grad()
def recomputed_q(pair, seq: list[int], drafts: list[int], sampling) -> torch.Tensor:
    """q for the token after seq + drafts, with no cache anywhere: the target's features of
    seq, then one draft pass per drafted token, each reading the draft's previous guess."""
    draft = pair.draft
    feats = pair.target.model(input_ids=torch.tensor([seq[:-1]])).last_hidden_state  # (1, n, H)
    ids = seq[1:]
    for d in drafts:
        out = draft(torch.tensor([ids]), features=feats, cache=None, use_cache=False)
        feats = torch.cat([feats, out.hidden_states[0][:, -1:]], dim=1)
        ids = ids + [d]
    out = draft(torch.tensor([ids]), features=feats, cache=None, use_cache=False)
    return probs_from_logits(out.logits[0, -1:, :pair.vocab_size], sampling)[0]


def test_q_equals_a_cache_free_recompute_after_rollbacks(fpair_no_eos):
    settings = specdec.Settings(k=3, temperature=0.9, seed=5, max_new_tokens=30)
    decoder = specdec.Decoder(fpair_no_eos, "abc abc a", settings)
    seq = list(decoder.prompt_ids)
    checked = 0
    for rnd in decoder:
        drafts = [p.token for p in rnd.positions]
        for i, pos in enumerate(rnd.positions):
            q = recomputed_q(fpair_no_eos, seq, drafts[:i], settings.sampling)
            assert torch.allclose(torch.tensor(pos.draft.probs), q, atol=1e-5)
            checked += 1
        seq += list(rnd.emitted)
        # the drafter keeps the verified features and only the pairs built on them
        assert len(decoder.drafter.feats) == len(seq) - 1
        assert rnd.caches.draft_after <= len(seq) - 2
    assert checked > 10 and seq == decoder.seq


def save_folder(pair, folder):
    draft = pair.draft
    draft.net.save_pretrained(folder)
    pair.tokenizer.save_pretrained(folder)
    save_fc(draft.fc, folder)
    (folder / "draft_vocab.json").write_text(json.dumps(
        {"target_vocab_size": pair.vocab_size, "keep_ids": draft.keep_ids.tolist(),
         "reads": "target features"}))


def test_a_saved_feature_draft_loads_and_drafts_the_same(fpair_no_eos, tmp_path):
    save_folder(fpair_no_eos, tmp_path)
    loaded = load_model(str(tmp_path))
    assert isinstance(loaded, FeatureDraft)
    pair = specdec.make_pair(fpair_no_eos.target, loaded, fpair_no_eos.tokenizer)
    a = specdec.generate(fpair_no_eos, "ab", k=3, temperature=1.0, seed=2, max_new_tokens=12)
    b = specdec.generate(pair, "ab", k=3, temperature=1.0, seed=2, max_new_tokens=12)
    assert a.token_ids == b.token_ids          # fc is stored in fp16: tokens, not bits
    assert [r.n_accepted for r in a.rounds] == [r.n_accepted for r in b.rounds]


def test_a_damaged_mixing_layer_is_one_clear_error(fpair_no_eos, tmp_path):
    save_folder(fpair_no_eos, tmp_path)
    (tmp_path / "fc.safetensors").write_bytes(b"not safetensors")
    with pytest.raises(LoadError, match="damaged"):
        load_model(str(tmp_path))
    (tmp_path / "fc.safetensors").unlink()
    with pytest.raises(LoadError, match="damaged"):
        load_model(str(tmp_path))


def test_bench_runs_every_row_transformers_can_run(fpair):
    """transformers' assisted generation cannot feed a draft the target's features: those
    two rows are skipped (and said so), every other row runs and greedy outputs agree."""
    from specdec.bench.runner import ASSISTED, PEERS, ROWS, USER_LOADED, bench
    result = bench(fpair, ["ab", "(a"], [2], [0.0], 6, 1)
    assert result.skipped_rows == (*ASSISTED, USER_LOADED, *PEERS)     # built in memory: no name
    rows = [r.row for r in result.settings[0].rows]
    assert rows == [r for r in ROWS if r not in ASSISTED + (USER_LOADED, *PEERS)]
    assert result.settings[0].identical is True


@pytest.mark.parametrize("k", [2, 4])
def test_feature_trees_keep_greedy_parity(fpair, k):
    for prompt in PROMPTS:
        run = specdec.generate(fpair, prompt, k=k, temperature=0, max_new_tokens=24, drafter="tree",
                               tree_width=2, tree_budget=6)
        assert list(run.token_ids) == hf_greedy(fpair, prompt, 24), prompt


def test_feature_trees_keep_the_target_distribution(fpair):
    settings = {"k": 3, "max_new_tokens": 5, "temperature": 1.0, "drafter": "tree",
                "tree_width": 3, "tree_budget": 7, "tree_children": "sampled"}
    law = exact_two_token_law(fpair, PROMPT, specdec.Settings(**settings).sampling)
    samples = [tuple(specdec.generate(fpair, PROMPT, seed=seed, **settings).token_ids[:2])
               for seed in range(RUNS)]
    assert chi2_pvalue(samples, law) > 1e-3


def test_a_feature_tree_node_has_the_q_a_chain_along_its_branch_would_have(fpair_no_eos):
    """Each expanded node's q equals the cache-free recompute along its path, in every round
    (so the features handed over after a tree round are the right ones)."""
    settings = specdec.Settings(k=3, temperature=0.9, seed=5, max_new_tokens=24, drafter="tree",
                                tree_width=2, tree_budget=5)
    decoder = specdec.Decoder(fpair_no_eos, "abc abc a", settings)
    seq, checked = list(decoder.prompt_ids), 0
    for rnd in decoder:
        tree = rnd.tree
        for i, node in enumerate(tree.nodes):
            if node.draft is None:
                continue
            path, j = [], i
            while j >= 0:
                path.insert(0, tree.nodes[j].token)
                j = tree.nodes[j].parent
            q = recomputed_q(fpair_no_eos, seq, path, settings.sampling)
            assert torch.allclose(torch.tensor(node.draft.probs), q, atol=1e-5)
            checked += 1
        seq += list(rnd.emitted)
    assert checked > 5


@torch.no_grad()
def test_training_time_test_passes_equal_what_the_drafter_computes(fpair_no_eos):
    """The trainer's unrolled pass m at pair j (specdec/train/smollm2/feature_draft.unrolled) is the
    draft's guess for d_m at inference: the cache-free recompute with real pairs before j
    and the draft's own h after — so training optimises exactly what drafting uses."""
    from specdec.train.smollm2.feature_draft import unrolled
    pair = fpair_no_eos
    seq = pair.tokenizer("abc abc abd ab")["input_ids"]
    feats = pair.target.model(input_ids=torch.tensor([seq])).last_hidden_state       # (1, T, H)
    ids = torch.tensor([seq[1:]])                                                  # pairs (f_j, s_{j+1})
    passes = unrolled(pair.draft, ids, feats[:, :-1], 3)
    sampling = specdec.Settings(temperature=1.0).sampling
    for m, hidden in enumerate(passes, 1):
        for j in range(m - 1, len(seq) - 3):
            start = j - (m - 1)                  # the last real pair is start - 1 ... pass 1: j
            q = recomputed_q(pair, seq[:start + 2], seq[start + 2:j + 2], sampling)
            logits = pair.draft.net.lm_head(hidden[0, j])
            mine = torch.full((pair.vocab_size,), float("-inf"))
            mine[pair.draft.keep_ids] = logits
            assert torch.allclose(probs_from_logits(mine[None], sampling)[0], q, atol=1e-5), (m, j)


def test_a_feature_draft_with_its_head_in_8_bits_loads_and_drafts_alike(fpair_no_eos, tmp_path):
    """head8: the head leaves model.safetensors for head.safetensors (int8 + a scale per row);
    the loaded draft's logits stay within the rounding bound and greedy drafts are unchanged."""
    import copy

    from safetensors.torch import load_file

    from specdec.models import head8
    tied = copy.deepcopy(fpair_no_eos.draft)            # the shipped drafts tie head and embedding
    tied.net.config.tie_word_embeddings = True
    tied.net.lm_head.weight = tied.net.model.embed_tokens.weight
    fpair_no_eos = specdec.make_pair(fpair_no_eos.target, tied, fpair_no_eos.tokenizer)
    save_folder(fpair_no_eos, tmp_path)
    rows = load_file(str(tmp_path / "model.safetensors"))[head8.KEY].float()       # as saved
    head8.split_head(tmp_path)
    loaded = load_model(str(tmp_path))
    got = loaded.net.model.embed_tokens.weight.detach()
    size = head8.GROUP if rows.shape[1] % head8.GROUP == 0 else rows.shape[1]
    groups = rows.reshape(rows.shape[0], -1, size)
    bound = (groups.abs().amax(dim=2, keepdim=True) / 254 + 1e-6).expand_as(groups).reshape(rows.shape)
    assert ((got - rows).abs() <= bound).all() and not torch.equal(got, rows)
    assert loaded.net.lm_head.weight.data_ptr() == loaded.net.model.embed_tokens.weight.data_ptr()
    pair = specdec.make_pair(fpair_no_eos.target, loaded, fpair_no_eos.tokenizer)
    for prompt in ("ab", "ba", "abc (abc"):
        a = specdec.generate(fpair_no_eos, prompt, k=3, temperature=0, max_new_tokens=12)
        b = specdec.generate(pair, prompt, k=3, temperature=0, max_new_tokens=12)
        assert a.token_ids == b.token_ids


@pytest.mark.parametrize("damage", ["bytes", "dtype"])
def test_a_damaged_8_bit_head_is_one_clear_error(fpair_no_eos, tmp_path, damage):
    from safetensors.torch import save_file

    from specdec.models import head8
    save_folder(fpair_no_eos, tmp_path)
    with pytest.raises(ValueError, match="tied"):            # an untied head would be lost
        head8.split_head(tmp_path)
    head8.split_head(tmp_path, untied_ok=True)
    if damage == "bytes":
        (tmp_path / head8.HEAD_FILE).write_bytes(b"not safetensors")
    else:
        save_file({"rows": torch.zeros(3, 4), "scale": torch.ones(3)}, str(tmp_path / head8.HEAD_FILE))
    with pytest.raises(LoadError, match="damaged|int8"):
        load_model(str(tmp_path))


def test_a_drafting_step_gives_the_forward_passs_numbers_bit_for_bit(fpair_no_eos):
    """FeatureDraft.step (the drafter's call, without the module call and output record) equals
    forward(..., logits_to_keep=1) on the same cache state, h and logits alike."""
    from specdec.models.runtime import new_cache
    draft = fpair_no_eos.draft
    torch.manual_seed(3)
    ids, feats = torch.tensor([[3, 5, 7, 2]]), torch.randn(1, 4, draft.net.config.hidden_size)
    mine, theirs = new_cache(draft.net), new_cache(draft.net)
    for part in (slice(0, 3), slice(3, 4)):
        h, logits = draft.step(ids[:, part], feats[:, part], mine)
        with torch.no_grad():
            out = draft(ids[:, part], features=feats[:, part], cache=theirs, logits_to_keep=1)
        assert torch.equal(h, out.hidden_states[0][0, -1:]) and torch.equal(logits, out.logits[0])
    assert mine.get_seq_length() == theirs.get_seq_length() == 4
