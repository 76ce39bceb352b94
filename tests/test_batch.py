"""Batched speculative decoding (issue 30): one target pass verifies every request's drafts, and
each request's output is the one it gets alone — greedy and sampled, for every chain drafter, in
a fixed batch and in a server where requests come and go and share a prompt prefix."""
import pytest
import torch

import specdec
from specdec.engine.serving import PrefixCache, Request, arrivals, serve
from specdec.models.batch_cache import BatchCache

from stats import chi2_pvalue
from test_lossless import PROMPT, RUNS, exact_two_token_law
from tiny import tiny_feature_pair

PROMPTS = ["abc", "a(b)\n", "ab(ab(a", "cba cba", "((a", "b", "c(a)b(c)a(b)c"]   # 1 to 13 tokens
SHARED = "abc(abc)abc(abc)abc(abc) "                                         # 25 tokens: a 16-token block


@pytest.fixture(scope="module")
def feature_pair():
    return tiny_feature_pair()


CASES = {"draft model": dict(k=4), "n-gram": dict(k=3, drafter="ngram"),
         "early exit": dict(k=2, drafter="early-exit", exit_layer=1),
         "confidence policy": dict(k=4, policy="confidence"), "autoregressive": dict(mode="autoregressive")}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_each_request_of_a_batch_gets_what_it_gets_alone(pair, case, temperature):
    """B = 7 prompts of 1-13 tokens; at T = 1 each request samples with its own generator (seed
    i), so its run must equal the run alone with that seed token for token."""
    s = specdec.Settings(temperature=temperature, max_new_tokens=24, **CASES[case])
    seeds = list(range(len(PROMPTS)))
    runs = specdec.generate_batch(pair, PROMPTS, s, seeds=seeds)
    alone = [specdec.generate(pair, p, s, seed=i) for i, p in zip(seeds, PROMPTS)]
    assert [r.token_ids for r in runs] == [a.token_ids for a in alone]
    assert [len(r.rounds) for r in runs] == [len(a.rounds) for a in alone]
    assert sum(len(r.token_ids) for r in runs) > 5 * len(PROMPTS)             # they really generated


def test_the_feature_draft_in_a_batch_reads_its_own_rows_features(feature_pair):
    for t in (0.0, 1.0):
        s = specdec.Settings(k=3, temperature=t, max_new_tokens=20)
        runs = specdec.generate_batch(feature_pair, PROMPTS, s, seeds=[5] * len(PROMPTS))
        assert [r.token_ids for r in runs] == [specdec.generate(feature_pair, p, s, seed=5).token_ids
                                                for p in PROMPTS]
        assert any(r.n_accepted for run in runs for r in run.rounds)           # the drafts were read


def test_sampled_requests_in_a_batch_follow_the_target(pair):
    """Chi-square per request: PROMPT's first two tokens over RUNS requests, 20 in each batch
    beside 5 other prompts (their neighbours differ in length and in what they accept)."""
    s = specdec.Settings(k=3, temperature=1.0, max_new_tokens=4)
    law = exact_two_token_law(pair, PROMPT, s.sampling)
    samples = []
    for b in range(RUNS // 20):
        prompts = [PROMPT] * 20 + PROMPTS[:5]
        runs = specdec.generate_batch(pair, prompts, s, seeds=[b * 25 + i for i in range(25)])
        samples += [tuple(r.token_ids[:2]) for r in runs[:20]]
    assert len(samples) == RUNS and chi2_pvalue(samples, law) > 1e-3


def test_a_tree_drafter_is_refused_with_a_clear_message(pair):
    with pytest.raises(specdec.InputError, match="chain drafters"):
        specdec.generate_batch(pair, PROMPTS[:2], drafter="tree")
    with pytest.raises(specdec.InputError, match="one seed per prompt"):
        specdec.generate_batch(pair, PROMPTS[:2], seeds=[1])
    with pytest.raises(specdec.InputError, match="at least one prompt"):
        specdec.generate_batch(pair, [])


def test_requests_arrive_join_and_leave_and_each_gets_its_own_text(pair):
    """Continuous batching: 7 requests arriving at 50 per second, at most 3 at once."""
    s = specdec.Settings(k=3, temperature=1.0, max_new_tokens=16)
    reqs = [Request(p, t, seed=i) for i, (p, t) in enumerate(zip(PROMPTS, arrivals(len(PROMPTS), 50.0, seed=1)))]
    log = serve(pair, reqs, s, max_batch=3)
    assert [x.run.token_ids for x in log.served] == [specdec.generate(pair, r.prompt, s, seed=r.seed).token_ids
                                                      for r in reqs]
    assert max(len(t.requests) for t in log.ticks) == 3 and min(len(t.requests) for t in log.ticks) >= 1
    for i, x in enumerate(log.served):
        rounds_in = [t for t in log.ticks if i in t.requests]
        assert len(rounds_in) == len(x.run.rounds)                 # in the batch from join to stop
        assert x.arrival <= x.admitted < x.first_token <= x.finished == rounds_in[-1].end
        assert x.first_token == rounds_in[0].end and x.ttft > 0 and x.tpot >= 0
    assert log.tokens == sum(len(x.run.token_ids) for x in log.served)
    assert all(a.end <= b.start for a, b in zip(log.ticks, log.ticks[1:]))   # one round at a time


def test_a_shared_prefix_is_read_once_and_outputs_do_not_change(pair, feature_pair):
    for p in (pair, feature_pair):
        s = specdec.Settings(k=3, temperature=0.0, max_new_tokens=12)
        reqs = [Request(SHARED + x, seed=0) for x in ["a", "b(", "cc", "(a)"]]
        cache = PrefixCache(p, block=16)
        log = serve(p, reqs, s, max_batch=2, prefix=cache)
        assert [x.reused for x in log.served] == [0, 16, 16, 16] and cache.hits == 3
        assert [x.run.prefill.tokens for x in log.served] == [len(x.run.prompt_ids) - 1 - x.reused
                                                              for x in log.served]
        assert [x.run.token_ids for x in log.served] == [specdec.generate(p, r.prompt, s).token_ids for r in reqs]
    # a prompt that shares only the first block of a longer kept one still finds it
    cache = PrefixCache(pair, block=8)
    log = serve(pair, [Request(SHARED + "abc"), Request(SHARED[:12] + "cab((ba")], specdec.Settings(k=3),
                max_batch=1, prefix=cache)
    assert [x.reused for x in log.served] == [0, 8] and cache.hits == 1


def joined(*sizes: int) -> BatchCache:
    """A batch cache of one-layer requests that cached `sizes` positions each, key i holding i."""
    from transformers import DynamicCache
    batch = BatchCache()
    for n in sizes:
        single = DynamicCache()
        single.update(torch.arange(n, dtype=torch.float)[None, None, :, None].expand(1, 1, n, 2).clone(),
                      torch.zeros(1, 1, n, 2), 0)
        batch.join(single)
    return batch


def test_the_batch_cache_masks_holes_and_compacts_them_away():
    """Two rows: row 0 owns slots 0, 1, 3 (slot 2 a rejected draft), row 1 owns 0, 1, 2."""
    batch = joined(2, 3)
    assert batch.width == 3 and [r.slots for r in batch.rows] == [[0, 1], [0, 1, 2]]
    batch.rows[0].slots.append(2)
    batch.rows[0].crop(-1)                                              # the rejected draft's slot
    batch.rows[0].slots.append(2)
    mask = batch.mask([2, 1], 2)                                        # (2, 1, 2, 5)
    assert mask[0, 0].tolist() == [[True, True, True, True, False], [True, True, True, True, True]]
    assert mask[1, 0].tolist() == [[True, True, True, True, False], [False, False, False, False, True]]
    batch.rows[0].slots = [1]                                           # row 0 keeps only its slot 1
    batch.cache.layers[0].keys = torch.cat([batch.cache.layers[0].keys, torch.zeros(2, 1, 40, 2)], dim=2)
    batch.cache.layers[0].values = torch.cat([batch.cache.layers[0].values, torch.zeros(2, 1, 40, 2)], dim=2)
    batch.compact()
    assert batch.width == 3 and [r.slots for r in batch.rows] == [[0], [0, 1, 2]]
    assert batch.cache.layers[0].keys[0, 0, 0, 0].item() == 1.0            # what slot 1 held
    assert batch.cache.layers[0].keys[1, 0, :, 0].tolist() == [0.0, 1.0, 2.0]
    batch.leave(batch.rows[0])
    assert batch.cache.layers[0].keys.shape[0] == 1 and batch.rows[0].slots == [0, 1, 2]


def test_a_row_left_alone_drops_its_holes_and_needs_no_mask():
    """Row 1 of two owns slots 0, 2 (slot 1 was row 0's width); left alone it is gathered to 0, 1;
    a rejected draft's slot at the end is cropped away: then its pass is a request's alone."""
    batch = joined(3, 1)
    batch.rows[1].slots.append(2)
    assert not batch.causal()
    batch.leave(batch.rows[0])
    assert not batch.causal()                                           # a hole at slot 1
    batch.compact()
    assert batch.width == 2 and batch.rows[0].slots == [0, 1] and batch.causal()
    batch.rows[0].slots.append(2)
    batch.cache.layers[0].keys = torch.cat([batch.cache.layers[0].keys, torch.ones(1, 1, 1, 2)], dim=2)
    batch.cache.layers[0].values = torch.cat([batch.cache.layers[0].values, torch.ones(1, 1, 1, 2)], dim=2)
    batch.rows[0].crop(-1)                                              # the rejected draft's slot
    assert not batch.causal()
    batch.compact()
    assert batch.width == 2 and batch.causal()


def test_a_request_alone_in_a_batch_runs_the_pass_it_runs_alone(pair, monkeypatch):
    """Batch size 1: every target pass after the prompt is the single-sequence lean pass (one row,
    no mask), and the run equals the run alone."""
    from specdec.models import lean
    assert lean.fits(pair.target)
    real, shapes = lean.forward, []
    monkeypatch.setattr(lean, "forward", lambda model, ids, *a: shapes.append(tuple(ids.shape)) or
                        real(model, ids, *a) if model is pair.target else real(model, ids, *a))
    monkeypatch.setattr(lean, "forward_rows", None)                    # a batch's masked pass: not here
    s = specdec.Settings(k=3, temperature=1.0, max_new_tokens=20)
    run = specdec.generate_batch(pair, ["ab(ab(a"], s, seeds=[5])[0]
    fed = [r.drafted + 1 for r in run.rounds]
    assert shapes == [(1, 6)] + [(1, n) for n in fed] and len(run.rounds) > 3    # the prompt, then each round
    assert run.token_ids == specdec.generate(pair, "ab(ab(a", s, seed=5).token_ids


@pytest.mark.parametrize("max_batch", [0, -1, 2.5, True, None, "4"])
def test_a_server_without_room_is_one_message(pair, max_batch):
    """max_batch 0 once raised `max() arg is an empty sequence` from inside a round."""
    with pytest.raises(specdec.InputError, match=r"max_batch .* must be a whole number"):
        serve(pair, [Request("abc")], specdec.Settings(k=2, max_new_tokens=4), max_batch=max_batch)


@pytest.mark.parametrize("arrival", [float("nan"), float("inf"), -0.5, -1, "1", None, True])
def test_a_request_arriving_at_no_time_is_one_message(arrival):
    with pytest.raises(specdec.InputError, match=r"arrival must be a finite number >= 0"):
        Request("abc", arrival)


@pytest.mark.parametrize("n, rate, seed, words", [
    (3, float("nan"), 0, "rate"), (3, float("inf"), 0, "rate"), (3, -1.0, 0, "rate"), (3, "5", 0, "rate"),
    (-1, 1.0, 0, "number of arrivals"), (2.0, 1.0, 0, "number of arrivals"), (10**9, 1.0, 0, "at most 100000"),
    (3, 1.0, [1], "seed"), (3, 5e-324, 0, "too small"),
])
def test_arrivals_refuse_what_is_not_a_rate_or_a_count(n, rate, seed, words):
    with pytest.raises(specdec.InputError, match=words):
        arrivals(n, rate, seed)


def test_arrivals_still_give_increasing_finite_times():
    times = arrivals(50, 4.0, seed=3)
    assert len(times) == 50 and all(0 < a < b for a, b in zip(times, times[1:]))
    assert arrivals(4, 0.0) == [0.0] * 4 and arrivals(0, 2.0) == []


@pytest.mark.parametrize("kwargs, words", [
    (dict(block=0), "block .* >= 1, got 0"), (dict(block=-4), "block .* >= 1, got -4"),
    (dict(block=2.5), "block .* whole number, got 2.5"), (dict(block=True), "block .* whole number, got True"),
    (dict(capacity=-1), "capacity .* >= 1, got -1"), (dict(capacity=0), "capacity .* >= 1, got 0"),
    (dict(capacity=None), "capacity .* whole number, got None"),
])
def test_a_prefix_cache_of_no_blocks_is_one_message(pair, kwargs, words):
    """block 0 divided by zero, 2.5 raised TypeError, -4 never reused, capacity -1 KeyError."""
    with pytest.raises(specdec.InputError, match=words):
        PrefixCache(pair, **kwargs)


def test_serve_refuses_what_is_not_a_request_list_or_its_own_cache(pair, feature_pair):
    s = specdec.Settings(k=2, max_new_tokens=4)
    with pytest.raises(specdec.InputError, match="list of Request"):
        serve(pair, ["abc", "def"], s)
    with pytest.raises(specdec.InputError, match="list of Request"):
        serve(pair, Request("abc"), s)
    with pytest.raises(specdec.InputError, match="PrefixCache of this pair"):
        serve(pair, [Request("abc")], s, prefix=PrefixCache(feature_pair))   # another model's KV cache
    with pytest.raises(specdec.InputError, match=r"Settings\(\*\*d\)"):
        serve(pair, [Request("abc")], {"k": 2})
    with pytest.raises(specdec.InputError, match="pair must be a loaded pair"):
        serve(None, [Request("abc")], s)


@pytest.mark.parametrize("prompts", ["def", {"role": "user", "content": "hi"},
                                     [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"}]])
def test_one_prompt_where_a_list_is_expected_is_refused(pair, prompts):
    """A string once ran as one request per character ('d', 'e', 'f')."""
    with pytest.raises(specdec.InputError, match=r"a list of prompts, got one prompt: pass \[prompt\]"):
        specdec.generate_batch(pair, prompts, max_new_tokens=2)


def test_a_batch_has_a_cap_and_names_it(pair):
    from specdec.engine.batch import MAX_PROMPTS
    assert MAX_PROMPTS == 256
    with pytest.raises(specdec.InputError, match="at most 256 prompts per call, got 257"):
        specdec.generate_batch(pair, ["ab"] * 257, max_new_tokens=2)
    with pytest.raises(specdec.InputError, match="list of prompts, got int"):
        specdec.generate_batch(pair, 7)
    with pytest.raises(specdec.InputError, match="seeds must be a list"):
        specdec.generate_batch(pair, ["ab", "ba"], seeds=3)
    with pytest.raises(specdec.InputError, match="progress must be a function"):
        specdec.generate_batch(pair, ["ab"], progress="yes")


def test_a_long_batch_reports_its_progress(pair):
    """(done, total, text) as the bench reports: requests finished never go back, and the last
    call says all are done."""
    calls = []
    prompts = PROMPTS[:4]
    runs = specdec.generate_batch(pair, prompts, specdec.Settings(k=2, max_new_tokens=12),
                                  progress=lambda *a: calls.append(a))
    done = [c[0] for c in calls]
    assert all(c[1] == 4 and isinstance(c[2], str) and c[2] for c in calls)
    assert done == sorted(done) and calls[-1][:2] == (4, 4) and done[0] == 0
    assert len(calls) == len(prompts) + max(len(r.rounds) for r in runs) + 1   # each read, each round, done
    assert [c[2] for c in calls[:4]] == [f"reading prompt {i} of 4" for i in range(1, 5)]
