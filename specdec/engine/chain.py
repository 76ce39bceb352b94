"""A chain round's own steps (Leviathan et al. 2023, Algorithm 1); the Decoder does the rest.

1. Draft: the drafter proposes d_1..d_m (m <= k), sampled from q.
2. Verify: one target forward over [pending tokens, d_1..d_m] gives p_1..p_{m+1}.
3. Accept / reject each draft; 4. resample from the residual, or take the bonus.
"""
from __future__ import annotations

import torch

from specdec.drafters.base import FeatureReader, Proposal
from specdec.engine import checks
from specdec.engine.outcome import Outcome, Verified
from specdec.rules.chain import verify_greedy, verify_sampled
from specdec.rules.sampling import probs_from_logits
from specdec.trace import record


def draft(decoder, k: int) -> Proposal:
    if not k:
        return Proposal([], torch.zeros(0, decoder.pair.vocab_size), 0)
    s = decoder.settings
    prop = decoder.drafter.propose(decoder.seq, k, s.sampling, decoder.generator, decoder.policy)
    checks.chain(prop, k, decoder.pair.vocab_size, s.sampling.greedy)      # anyone's drafter: checked
    return prop


def verify(decoder, prop: Proposal, pending: list[int]) -> Verified:
    """p at the last prefix position and after each draft (m+1, V); the final hidden states of
    every fed position when the drafter reads them."""
    ids, keep = pending + prop.tokens, len(prop.tokens) + 1
    if not ids:             # an autoregressive run's round 1: the prompt's pass gave p (Decoder.read_prompt)
        return Verified(probs_from_logits(decoder.first_logits, decoder.settings.sampling), None, passes=0)
    reads = isinstance(decoder.drafter, FeatureReader)
    logits, feats = decoder.target.forward(ids, decoder.target_cache, keep, features=reads)   # (m+1, V)
    return Verified(probs_from_logits(checks.logits(logits), decoder.settings.sampling), feats)   # (m+1, V)


def decide(decoder, prop: Proposal, verified: Verified) -> Outcome:
    """Steps 3-4: the accepted drafts, the final token and their records."""
    sampling, tok, lean, p = decoder.settings.sampling, decoder.pair.tokenizer, decoder.settings.lean, verified.probs
    verdict = (verify_greedy(prop.tokens, p) if sampling.greedy else
               verify_sampled(prop.tokens, prop.probs, p, decoder.generator))
    m = len(prop.tokens)
    return Outcome(
        kept=list(range(verdict.n_accepted)), accepted=prop.tokens[:verdict.n_accepted],
        token=verdict.token,
        positions=record.positions(tok, prop.tokens, prop.probs, p, verdict, lean, sampling.greedy),
        final=record.final(tok, verdict, p, m, lean), drafted=m)
