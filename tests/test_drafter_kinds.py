"""Drafters beyond the plain draft model: a reduced-vocabulary draft and early exit.

Both must leave the output exactly the target's: checked by greedy parity, by the
exact law of the first two tokens (chi-square, as in test_lossless) and, for the
reduced vocabulary, by q being zero outside the kept ids.
"""
from dataclasses import replace

import pytest
import torch

import specdec
from specdec.drafters.early_exit import early_exit_model
from specdec.drafters.registry import DRAFTERS
from specdec.models.reduced_vocab import ReducedVocabLM

from stats import chi2_pvalue
from test_lossless import PROMPT, RUNS, exact_two_token_law
from tiny import tiny_llama

KEEP = [0, 1, 2, 3, 4, 5, 9, 11]          # 8 of the 13 tiny ids (EOT included)


@pytest.fixture(scope="module")
def reduced_pair(pair):
    inner = tiny_llama(len(KEEP) + 1, 1, seed=7)                     # N + 1 ids ("other" last)
    draft = ReducedVocabLM(inner, KEEP, pair.vocab_size)
    return specdec.make_pair(pair.target, draft, pair.tokenizer, "tiny-target", "tiny-reduced")


def test_reduced_vocab_draft_proposes_only_kept_ids(reduced_pair):
    run = specdec.generate(reduced_pair, PROMPT, k=3, temperature=1.0, seed=3, max_new_tokens=24)
    outside = sorted(set(range(reduced_pair.vocab_size)) - set(KEEP))
    for rnd in run.rounds:
        for pos in rnd.positions:
            assert pos.token in KEEP
            assert all(pos.draft.probs[i] == 0.0 for i in outside)
            assert sum(pos.draft.probs) == pytest.approx(1.0, abs=1e-5)


def test_reduced_vocab_maps_rare_inputs_to_the_other_id(reduced_pair):
    draft = reduced_pair.draft
    assert draft.to_draft[KEEP].tolist() == list(range(len(KEEP)))
    assert draft.to_draft[6].item() == draft.to_draft[12].item() == len(KEEP)


@pytest.mark.parametrize("drafter", ["reduced", "early-exit"])
def test_greedy_output_is_the_targets(pair, reduced_pair, drafter):
    use = reduced_pair if drafter == "reduced" else pair
    settings = dict(k=3, temperature=0, max_new_tokens=20,
                    drafter="model" if drafter == "reduced" else "early-exit", exit_layer=1)
    for prompt in ("abc", "(a b", "hhh ggg", "a(b(c"):
        spec = specdec.generate(use, prompt, **settings)
        base = specdec.autoregressive(use, prompt, temperature=0, max_new_tokens=20)
        assert spec.token_ids == base.token_ids


def test_reduced_vocab_draft_keeps_the_targets_law(reduced_pair):
    settings = specdec.Settings(k=3, temperature=1.0, max_new_tokens=4)
    law = exact_two_token_law(reduced_pair, PROMPT, settings.sampling)
    samples = [tuple(specdec.generate(reduced_pair, PROMPT, settings, seed=s).token_ids[:2])
               for s in range(RUNS)]
    assert chi2_pvalue(samples, law) > 1e-3


def test_early_exit_view_shares_the_targets_weights(pair):
    view = early_exit_model(pair.target, 1)
    assert view.config.num_hidden_layers == 1
    ours = {p.data_ptr() for p in view.parameters()}
    assert ours <= {p.data_ptr() for p in pair.target.parameters()}      # nothing new, nothing copied
    ids = torch.tensor([pair.tokenizer("abc")["input_ids"]])
    with torch.no_grad():     # its logits are the target's first layer + final norm + head
        hidden = pair.target(ids, output_hidden_states=True).hidden_states[1]
        body = pair.target.get_decoder()
        expected = pair.target.lm_head(body.norm(hidden))
        torch.testing.assert_close(view(ids).logits, expected, rtol=1e-5, atol=1e-5)


def test_early_exit_rejects_impossible_layers(pair):
    for layers in (0, 2, 5):          # the tiny target has 2 layers: only 1 is a real early exit
        with pytest.raises(specdec.InputError, match="exit layer"):
            specdec.generate(pair, "abc", drafter="early-exit", exit_layer=layers, max_new_tokens=4)


def test_every_registered_drafter_runs(pair):
    for name in DRAFTERS:
        run = specdec.generate(pair, "abc abc", drafter=name, exit_layer=1, k=2, max_new_tokens=6,
                               temperature=0.7)
        assert len(run.token_ids) == 6 or run.stop_reason == "eos"


def test_a_typed_continuation_keeps_the_targets_law(pair):
    """A person's guess is drafted as point masses: output still follows p exactly."""
    from specdec.drafters.ngram import PointMassDrafter
    settings = specdec.Settings(k=3, temperature=1.0, max_new_tokens=4)
    law = exact_two_token_law(pair, PROMPT, settings.sampling)
    guess = pair.tokenizer("b(a")["input_ids"]
    n = len(pair.tokenizer(PROMPT)["input_ids"])
    samples = []
    for s in range(RUNS):
        dec = specdec.Decoder(pair, PROMPT, replace(settings, seed=s),
                              PointMassDrafter(pair.vocab_size, n, guess))
        for _ in dec:
            pass
        samples.append(tuple(dec.generated[:2]))
    assert chi2_pvalue(samples, law) > 1e-3


def test_a_typed_continuation_stops_proposing_once_the_target_leaves_it(pair):
    from specdec.drafters.ngram import PointMassDrafter
    drafter = PointMassDrafter(pair.vocab_size, 2, [5, 6, 7])
    assert drafter.lookup([1, 2], 2) == [5, 6]
    assert drafter.lookup([1, 2, 5], 4) == [6, 7]
    assert drafter.lookup([1, 2, 9], 4) == []           # the target wrote something else


def test_the_full_vocabulary_view_is_the_same_draft(reduced_pair):
    """transformers runs a reduced-vocabulary draft through its full-vocabulary view: the
    same logits as the engine's wrapper (-inf outside the kept ids), the same modules."""
    from specdec.models.reduced_vocab import full_vocab_view
    draft = reduced_pair.draft
    view = full_vocab_view(draft)
    ids = torch.tensor([[1, 5, 6, 12, 3]])                       # 6 and 12 are not kept
    with torch.no_grad():
        assert torch.equal(view(ids).logits, draft(ids).logits)
    assert view.config.vocab_size == reduced_pair.vocab_size and view.model is draft.inner.model
    assert view.generation_config is not draft.inner.generation_config   # set per call, safely


def test_the_bench_runs_transformers_assisted_with_a_reduced_vocab_draft(reduced_pair):
    """The library cannot take the engine's wrapper (no generate(); running it crashed the
    bench with an AttributeError): it gets the full-vocabulary view, and its greedy outputs
    are the target's like every other row's."""
    from specdec.bench.runner import PEERS, ROWS, USER_LOADED, bench
    from specdec.cli.terminal import table
    result = bench(reduced_pair, ["ab", "(a"], [2], [0.0], 6, 1)
    assert result.skipped_rows == (USER_LOADED, *PEERS) and result.settings[0].identical is True
    assert [r.row for r in result.settings[0].rows] == [r for r in ROWS if r not in (USER_LOADED, *PEERS)]
    assert "full-vocabulary view" in table(result)


def test_a_kind_says_what_callers_ask_of_it(pair):
    """One place, read everywhere (issue 42): the tree form, the cache, the cost model, the
    transformers counterpart and the key id of each drafter come from its kind."""
    from specdec.bench.hf_baseline import library_drafting
    from specdec.drafters.registry import chain_for, tree_for
    s = specdec.Settings(exit_layer=1)
    assert (chain_for(True).name, tree_for(True).name) == ("model", "tree")
    assert (chain_for(False).name, tree_for(False).name) == ("ngram", "ngram-tree")
    for name, kind in DRAFTERS.items():
        built = kind.build(pair, s)
        assert kind.keeps_cache == hasattr(built, "cache"), name
        assert kind.tree_form is None or (kind.shape == "chain" and DRAFTERS[kind.tree_form].shape == "tree")
        assert isinstance(library_drafting(pair, replace(s, drafter=name)), str) == (kind.hf_assistant is None)
    costs = {n: DRAFTERS[n].step_model(pair, s) for n in ("model", "tree", "ngram", "ngram-tree", "early-exit")}
    assert costs["model"] is costs["tree"] is pair.draft and costs["ngram"] is costs["ngram-tree"] is None
    assert len(costs["early-exit"].get_decoder().layers) == 1
    assert {n: DRAFTERS[n].key_id(replace(s, tree_width=3)) for n in costs} == {
        "model": "model", "tree": "tree:3x8", "ngram": "ngram", "ngram-tree": "ngram-tree:3x8",
        "early-exit": "early-exit@1"}


def test_a_reduced_vocab_draft_takes_the_lean_pass_with_its_modules_bits(reduced_pair, monkeypatch):
    """runtime.forward runs the wrapped Llama through the lean pass and scatters its logits: bit for
    bit what the wrapper's own forward (transformers' modules) gives, through prefill and steps."""
    from specdec.models import lean
    from specdec.models.runtime import forward, new_cache
    draft, lean_forward, calls = reduced_pair.draft, lean.forward, []
    monkeypatch.setattr(lean, "forward", lambda model, *a: calls.append(model) or lean_forward(model, *a))
    assert lean.fits(draft.inner) and not lean.fits(draft)
    ids = [1, 2, 6, 3, 12, 4]                              # 6 and 12 are outside KEEP: the "other" id
    fast, slow = new_cache(draft), new_cache(draft)
    for chunk in (ids[:4], ids[4:5], ids[5:]):
        got = forward(draft, chunk, fast, reduced_pair.vocab_size)
        with torch.no_grad():
            want = draft(input_ids=torch.tensor([chunk]), cache=slow, use_cache=True).logits[0]
        assert torch.equal(got, want)
    assert calls == [draft.inner] * 3
