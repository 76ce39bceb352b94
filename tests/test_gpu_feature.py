"""The GPU trainer (specdec/train/smollm2/gpu_feature.py) on tiny models: its batches are the ones the
CPU trainer builds from feature files, and its answers are the target's own."""
import numpy as np
import pytest
import torch

from specdec.train.smollm2 import gpu_answers, gpu_feature
from specdec.train.smollm2.feature_batches import Seq, make_batch
from specdec.train.smollm2.feature_draft import FeatureSpec, to_draft_map

from test_engine import hf_greedy
from tiny import tiny_feature_pair

TEXTS = [("ab", "cab dab\n"), ("(a) b", "hag"), ("fed cba ", "e e e (b(d")]


@pytest.fixture(scope="module")
def pair():
    return tiny_feature_pair()


def feature_file_seq(target, ids: np.ndarray, prompt_len: int) -> Seq:
    """What specdec.train.smollm2.features stores for one sequence (K = 20 covers the tiny vocabulary)."""
    with torch.no_grad():
        hidden = target.model(input_ids=torch.from_numpy(ids)[None]).last_hidden_state[0]
        top = target.lm_head(hidden).log_softmax(-1).topk(13, dim=-1)               # all 13 ids
    return Seq(ids, prompt_len, hidden.half().numpy(), top.indices.numpy(),
               top.values.half().float().numpy(), True)


def test_its_batch_is_the_batch_the_cpu_trainer_builds_from_feature_files(pair):
    """Same pairs, same trained positions (answers only), features and next features within
    float16 rounding, and the target's distribution over the draft's vocabulary alike."""
    keep = pair.draft.keep_ids.tolist()
    seqs = []
    for prompt, answer in TEXTS:
        p, a = pair.tokenizer(prompt)["input_ids"], pair.tokenizer(answer)["input_ids"]
        seqs.append((np.array(p + a, dtype=np.int64), len(p)))
    files = [feature_file_seq(pair.target, ids, plen) for ids, plen in seqs]
    want = make_batch(files, FeatureSpec(window=64), to_draft_map(keep), len(keep),
                      np.random.default_rng(0), 0.0)
    got = gpu_feature.teacher(pair.target, seqs, torch.tensor(keep), 64, 0.0, None)
    ids, feats, mask, rows, cols, nxt, targets = want
    assert torch.equal(got[0] * got[2], ids * mask) and torch.equal(got[2], mask)
    assert torch.equal(got[3], rows) and torch.equal(got[4], cols) and len(rows) > 10
    assert torch.allclose(got[1] * got[2][..., None], feats * mask[..., None], atol=2e-2)
    assert torch.allclose(got[5], nxt, atol=2e-2)
    assert torch.allclose(got[6], targets, atol=2e-3)


def test_greedy_answers_are_the_targets_own_in_a_mixed_batch(pair):
    """Rows at T = 0 answer as transformers' greedy generate() does, each cut after its end of
    turn, while rows sampled at T = 1 share the batch (left-padded, prompts of other lengths)."""
    prompts = ["a", "fed cba", "(b(d", "e e", "gg hh", "c\n(c"]
    rows = [pair.tokenizer(p)["input_ids"] for p in prompts]
    temps = torch.tensor([0.0, 1.0, 0.0, 1.0, 0.0, 0.0])
    gen = torch.Generator().manual_seed(0)
    out = gpu_answers.answer(pair.target, rows, temps, 12, 0, gen)
    for prompt, t, (ids, ended) in zip(prompts, temps, out):
        assert ended == (0 in ids) and (not ended or ids[-1] == 0) and ids.count(0) <= 1
        if t == 0:
            want = hf_greedy(pair, prompt, 12)
            assert ids == (want[:want.index(0) + 1] if 0 in want else want), prompt
