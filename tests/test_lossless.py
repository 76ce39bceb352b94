"""Losslessness by sampling: the first two generated tokens follow the target exactly.

Many seeded runs of the full engine on a 13-token vocabulary; the empirical joint
distribution of (t1, t2) is compared with the exact target distribution (computed
by full forwards) with a chi-square test. Each configuration is seeded, so a pass
is reproducible; the bound (p > 1e-3) fails a wrong rule by a wide margin
(see test_rejection.test_the_exactness_check_can_fail and the lesson's wrong rules).
"""
from dataclasses import replace

import pytest
import torch

import specdec
from specdec.models.prices import Prices
from specdec.rules.sampling import probs_from_logits

from stats import chi2_pvalue

# Power, measured on the tiny pair at T = 1, k = 3 (the p-value of this check): resampling from p
# instead of the residual gives 3e-7 / 2e-11 / 4e-22 at 400 / 500 / 800 runs, eight orders below
# the bound at 500; the right rule at 500 runs gives 0.09-0.94 over the eight configurations
# below (0.06 / 0.23 at 400 / 800 for T = 1). A 10 % cut in acceptance with the right residual
# passes at every affordable size (0.03-0.19 up to 1500 runs): the rule tests (test_rejection)
# catch it. So 500 runs: a wide margin on the bugs this check can see, at 5/8 of the time of 800.
RUNS = 500
PROMPT = "ab(ab(a"      # repetitive, so the n-gram drafter finds matches


def exact_two_token_law(pair, prompt: str, sampling) -> dict:
    ids = pair.tokenizer(prompt)["input_ids"]
    with torch.no_grad():
        def probs(seq):
            logits = pair.target(torch.tensor([seq])).logits[0, -1:, :pair.vocab_size]
            return probs_from_logits(logits, sampling)[0]
        p1 = probs(ids)
        law = {}
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


# Prices under which the priced policy's k depends on the rounds before: at its prior α 0.5 it
# drafts 2 (of k = 3); after a rejection (α 0.4) it drafts 1, after two accepted (α 0.67) 3.
PRICES = Prices(0.05, {1: 1.0, 2: 1.3, 3: 1.45, 4: 1.6})

CONFIGS = {
    "T=1.0": dict(temperature=1.0),
    "T=0.5": dict(temperature=0.5),
    "T=1.0 top-p=0.8": dict(temperature=1.0, top_p=0.8),
    "T=0.8 top-k=4": dict(temperature=0.8, top_k=4),
    "n-gram drafter": dict(temperature=1.0, drafter="ngram"),
    "suffix drafter": dict(temperature=1.0, drafter="suffix"),
    "heuristic policy": dict(temperature=1.0, policy="heuristic", k=1),
    "confidence policy": dict(temperature=1.0, policy="confidence", confidence=0.4),
    "priced policy": dict(temperature=1.0, policy="priced"),
    "early-exit drafter": dict(temperature=1.0, drafter="early-exit", exit_layer=1),
}


@pytest.mark.parametrize("name", CONFIGS)
def test_first_two_tokens_follow_the_target(pair, name):
    # 4 new tokens so the first round really drafts k tokens (with 2, k would be capped
    # at 1 and the policies would never act); the law checked is that of the first two.
    settings = {"k": 3, "max_new_tokens": 4, **CONFIGS[name]}
    law = exact_two_token_law(pair, PROMPT, specdec.Settings(**settings).sampling)
    run_pair = replace(pair, prices=PRICES) if settings.get("policy") == "priced" else pair
    samples = [tuple(specdec.generate(run_pair, PROMPT, seed=seed, **settings).token_ids[:2])
               for seed in range(RUNS)]
    assert chi2_pvalue(samples, law) > 1e-3


def test_the_bound_rejects_a_wrong_distribution(pair):
    """Control: samples from the *draft* alone are told apart from the target's law."""
    settings = specdec.Settings(temperature=1.0, max_new_tokens=2)
    law = exact_two_token_law(pair, PROMPT, settings.sampling)
    draft_only = specdec.make_pair(pair.draft, None, pair.tokenizer)
    samples = [tuple(specdec.autoregressive(draft_only, PROMPT, seed=s, temperature=1.0,
                                            max_new_tokens=2).token_ids) for s in range(RUNS)]
    assert chi2_pvalue(samples, law) < 1e-6
