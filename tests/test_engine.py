"""The engine end to end on tiny config-built models: parity, self-draft, caches, stops."""
import pytest
import torch

import specdec
from specdec.rules.sampling import Sampling, probs_from_logits

from tiny import tiny_pair

PROMPTS = ["a", "ab", "abc", "b c", "(a)", "hhh", "a b c d", "ge", "fed cba", "(((",
           "a\nb", "\n", "gg hh", "d(e)f", "cab cab", "h", "e e e", "bad", "f)", "c\n(c",
           "hag", "(b(d"]


def hf_greedy(pair, prompt: str, n: int) -> list[int]:
    ids = torch.tensor([pair.tokenizer(prompt)["input_ids"]])
    out = pair.target.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=n,
                               do_sample=False, pad_token_id=0)
    return out[0, ids.shape[1]:].tolist()


@pytest.mark.parametrize("k", [1, 3, 5])
def test_greedy_parity_with_transformers_generate(pair, k):
    """Both stop at EOS (id 0) or after 24 tokens; output must match token for token."""
    for prompt in PROMPTS:
        run = specdec.generate(pair, prompt, k=k, temperature=0, max_new_tokens=24)
        assert list(run.token_ids) == hf_greedy(pair, prompt, 24), prompt


def test_greedy_autoregressive_baseline_matches_too(pair):
    for prompt in PROMPTS[:6]:
        run = specdec.autoregressive(pair, prompt, temperature=0, max_new_tokens=20)
        assert list(run.token_ids) == hf_greedy(pair, prompt, 20)
        assert all(r.drafted == 0 for r in run.rounds)
        # the prompt's pass read it whole and gave the first token: round 1 made no pass
        assert run.prefill.tokens == len(run.prompt_ids) and run.prefill.target_cache == len(run.prompt_ids)
        assert [r.target_forwards for r in run.rounds] == [0] + [1] * (len(run.rounds) - 1)
        assert run.prefill.first_token and run.metrics.target_forwards == len(run.token_ids)   # N tokens, N passes
        assert run.metrics.target_calls_saved == 0


@pytest.mark.parametrize("drafter", ["model", "ngram"])
def test_greedy_beta_is_argmax_agreement(pair, drafter):
    """At T = 0, p and q are point masses, so β is 1 exactly where the draft is accepted
    (or, after the rejection, where the draft happens to equal the target's argmax)."""
    rounds = [r for prompt in PROMPTS[:8] for r in specdec.generate(
        pair, prompt, k=3, temperature=0, max_new_tokens=12, drafter=drafter).rounds]
    examined = [p for r in rounds for p in r.positions if p.verdict != "discarded"]
    assert examined and {p.beta for p in examined} <= {0.0, 1.0}
    assert all(p.beta == (1.0 if p.verdict == "accepted" else 0.0) for p in examined)
    m = specdec.summarize(rounds)
    assert m.mean_beta == sum(p.verdict == "accepted" for p in examined) / len(examined)


@pytest.mark.parametrize("drafter,reads", [("model", True), ("tree", True), ("ngram", False),
                                           ("early-exit", True)])
def test_the_prefill_reads_all_but_the_last_prompt_token_and_round_one_drafts(pair, drafter, reads):
    """Issue 28: the target (and a drafter with a cache) read the prompt before round 1; round 1
    feeds the last prompt token with its drafts, so it drafts, and the prefill emits nothing."""
    run = specdec.generate(pair, "abc abc ab", k=3, temperature=0, max_new_tokens=10, drafter=drafter,
                           exit_layer=1)
    n, pre, first = len(run.prompt_ids), run.prefill, run.rounds[0]
    assert (pre.tokens, pre.target_cache, first.caches.target_before) == (n - 1, n - 1, n - 1)
    assert (pre.draft_tokens, pre.draft_cache) == ((n - 1, n - 1) if reads else (0, 0))
    assert first.prefix_len == n and first.drafted >= 1
    assert sum(len(r.emitted) for r in run.rounds) == len(run.token_ids)   # nothing from the prefill
    assert run.metrics.prefill_ms == pytest.approx(pre.target_ms + pre.draft_ms) and pre.target_ms > 0
    assert run.metrics.wall_ms == pytest.approx(pre.target_ms + pre.draft_ms + run.metrics.draft_ms
                                                + run.metrics.verify_ms)
    assert specdec.Run.from_json(run.to_json()).prefill == pre


def test_a_run_file_from_before_the_prefill_still_loads(pair):
    import json
    data = json.loads(specdec.generate(pair, "abc", k=2, max_new_tokens=4).to_json())
    del data["prefill"]
    back = specdec.Run.from_json(json.dumps(data))
    assert back.prefill is None and back.metrics.prefill_ms == 0.0


def test_self_draft_accepts_everything_and_adds_a_bonus():
    pair = tiny_pair(self_draft=True, eos=False)
    run = specdec.generate(pair, "abc", k=4, temperature=1.0, seed=3, max_new_tokens=31)
    assert len(run.rounds) == 31 // 5 + 1
    for r in run.rounds:
        assert r.n_accepted == r.drafted == r.draft_limit
        assert r.final.kind == ("bonus" if r.draft_limit else "target")
        assert all(p.verdict == "accepted" and p.ratio == pytest.approx(1.0, abs=1e-4)
                   for p in r.positions)  # batched vs 1-token forwards differ in the last bits


def full_forward_probs(pair, ids: list[int], sampling: Sampling, model=None) -> torch.Tensor:
    """No-cache recompute of the processed distribution (target's unless `model`) after `ids`; (V,)."""
    with torch.no_grad():
        logits = (model or pair.target)(torch.tensor([ids])).logits[0, -1:, :pair.vocab_size]
    return probs_from_logits(logits, sampling)[0]


def draft_model_of(decoder):
    return getattr(decoder.drafter, "model", None)      # None: the drafter keeps no model


@pytest.mark.parametrize("drafter", ["model", "ngram", "early-exit"])
def test_cached_run_equals_no_cache_recompute(pair_no_eos, drafter):
    """p and (for model drafters) q at every examined position equal a no-cache recompute,
    after any number of rollbacks of both caches."""
    settings = dict(k=3, temperature=0.9, seed=5, max_new_tokens=30, drafter=drafter, exit_layer=1)
    decoder = specdec.Decoder(pair_no_eos, "abc abc a", specdec.Settings(**settings))
    seq, draft = list(decoder.prompt_ids), draft_model_of(decoder)
    sampling = decoder.settings.sampling
    for rnd in decoder:
        drafts = [p.token for p in rnd.positions]
        for i, pos in enumerate(rnd.positions[:rnd.n_accepted + 1]):
            expected = full_forward_probs(pair_no_eos, seq + drafts[:i], sampling)
            assert torch.allclose(torch.tensor(pos.target.probs), expected, atol=1e-5)
            if draft is not None:
                q = full_forward_probs(pair_no_eos, seq + drafts[:i], sampling, model=draft)
                assert torch.allclose(torch.tensor(pos.draft.probs), q, atol=1e-5)
        seq += list(rnd.emitted)
        # cache lengths after the round equal the accepted length (final token not yet fed)
        assert rnd.caches.target_after == rnd.prefix_len + rnd.n_accepted == len(seq) - 1
        assert rnd.caches.target_peak == rnd.prefix_len + rnd.drafted
        if drafter == "model":
            assert rnd.caches.draft_after == min(rnd.caches.draft_peak, len(seq) - 1)
        assert decoder.target_cache.get_seq_length() == len(seq) - 1
    assert seq == decoder.seq


def test_forward_keeps_only_the_rows_asked_for(pair):
    """keep = n runs the LM head on the last n positions only; the rows match a full forward."""
    from specdec.models.runtime import forward, new_cache
    ids = pair.tokenizer("a b c d")["input_ids"]
    full = forward(pair.target, ids, new_cache(pair.target), pair.vocab_size)       # (T, V)
    for keep in (1, 3):
        rows = forward(pair.target, ids, new_cache(pair.target), pair.vocab_size, keep=keep)
        assert rows.shape == (keep, pair.vocab_size)
        torch.testing.assert_close(rows, full[-keep:], rtol=1e-5, atol=1e-5)
