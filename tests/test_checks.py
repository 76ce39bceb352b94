"""A drafter's proposal and the target's logits are checked before the exact rules use them (issue 48)."""
import math

import pytest
import torch

import specdec
from specdec.drafters.base import ChainDrafter, Proposal
from specdec.engine import checks


class Plugin(ChainDrafter):
    """A person's drafter: proposes `tokens` with the q rows `make_q(V)` gives."""

    def __init__(self, tokens, make_q):
        self.tokens, self.make_q = tokens, make_q

    def propose(self, seq, k, sampling, generator, policy):
        return Proposal(list(self.tokens), self.make_q(), forwards=0)


def run(pair, drafter, temperature=1.0):
    dec = specdec.Decoder(pair, "hello", specdec.Settings(k=2, temperature=temperature, max_new_tokens=6),
                          drafter=drafter)
    return dec.step()


def rows(pair, fill):
    q = torch.full((2, pair.vocab_size), fill)
    return lambda: q


def one_hot(pair, token, scale=1.0):
    def make():
        q = torch.zeros(2, pair.vocab_size)
        q[:, token] = scale
        return q
    return make


@pytest.mark.parametrize("case, words", [
    ("nan", "NaN"), ("zero q", "q = 0"), ("sums to 2", "does not sum to 1"), ("huge id", "not in the vocabulary"),
    ("negative", "negative"), ("too many", "at most 2"), ("rows", "rows of q"), ("float id", "not in the vocabulary"),
])
def test_a_plugin_drafter_that_breaks_exactness_is_refused_with_one_message(pair, case, words):
    v = pair.vocab_size
    make = {
        "nan": lambda: Plugin([5, 6], rows(pair, math.nan)),
        "zero q": lambda: Plugin([5, 6], one_hot(pair, 7)),
        "sums to 2": lambda: Plugin([5, 5], one_hot(pair, 5, 2.0)),
        "huge id": lambda: Plugin([10**6, 5], one_hot(pair, 5)),
        "negative": lambda: Plugin([5, 5], lambda: torch.cat([one_hot(pair, 5, 2.0)()[:, :-1],
                                                              -torch.ones(2, 1)], 1)),
        "too many": lambda: Plugin([5, 5, 5], lambda: torch.zeros(3, v).index_fill_(1, torch.tensor([5]), 1.0)),
        "rows": lambda: Plugin([5, 5], lambda: torch.zeros(1, v).index_fill_(1, torch.tensor([5]), 1.0)),
        "float id": lambda: Plugin([5.0, 5], one_hot(pair, 5)),
    }[case]
    with pytest.raises(specdec.InputError, match="proposal cannot be verified exactly") as err:
        run(pair, make())
    assert words in str(err.value)


def test_a_valid_plugin_drafter_runs_and_greedy_rounds_do_not_read_q(pair):
    assert run(pair, Plugin([5, 6], lambda: torch.full((2, pair.vocab_size), 1 / pair.vocab_size))).index == 0
    assert run(pair, Plugin([5, 6], rows(pair, math.nan)), temperature=0.0).index == 0   # greedy: q unused


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_non_finite_target_logits_stop_the_run_with_one_message(bad):
    with pytest.raises(specdec.InputError, match="NaN or infinite logits"):
        checks.logits(torch.tensor([[0.0, bad, 1.0]]))


def test_logits_that_rule_tokens_out_are_usable_unless_a_row_rules_out_all():
    fine = torch.tensor([[0.0, -math.inf, 1.0]])
    assert checks.logits(fine) is fine
    with pytest.raises(specdec.InputError):
        checks.logits(torch.full((1, 3), -math.inf))


def test_a_target_with_nan_weights_stops_with_a_message_not_tokens(pair):
    head = pair.target.lm_head.weight
    saved = head.detach().clone()
    with torch.no_grad():
        head.fill_(math.nan)
    try:
        for temperature in (0.0, 1.0):
            with pytest.raises(specdec.InputError, match="NaN or infinite logits"):
                specdec.generate(pair, "hello", specdec.Settings(k=2, temperature=temperature, max_new_tokens=4))
    finally:
        with torch.no_grad():
            head.copy_(saved)
