"""Tree verification at one node: exact laws by enumeration, and sampling that follows them.

For hand-made and random p, q (V <= 5, up to 3 children): the two correct rules emit
exactly p; the match rule does not; each sampler follows its own exact law (chi-square).
"""
import itertools

import pytest
import torch
from test_exactness_lesson import random_pair

from specdec.rules.chain import residual
from specdec.rules.tree import (
    _remove,
    verify_deterministic_children,
    verify_greedy_children,
    verify_sampled_children,
    wrong_match_rule,
)

from stats import chi2_pvalue

P = torch.tensor([0.40, 0.25, 0.15, 0.15, 0.05], dtype=torch.float64)
Q = torch.tensor([0.10, 0.50, 0.05, 0.30, 0.05], dtype=torch.float64)


# The exact laws of the emitted token under each rule: the tests' oracle (they lived in
# rules/tree.py, used by nothing else; the app shows the chain's law, not these).
def law_sampled_children(q: torch.Tensor, p: torch.Tensor, m: int) -> torch.Tensor:
    """The exact law of the emitted token when m children are drawn i.i.d. from q and verified
    with `verify_sampled_children`, by enumerating every draw sequence; (V,) float64."""
    q, p = q.double(), p.double()
    law, reach, current = torch.zeros_like(p), 1.0, p          # reach: P(all children so far rejected)
    for _ in range(m):
        accept = torch.minimum(torch.ones_like(q), torch.where(q > 0, current / q, 0.0))   # (V,)
        law += reach * q * accept                              # drawn x and accepted
        reach *= float((q * (1 - accept)).sum())               # drawn x and rejected
        current = residual(current, q)
    return law + reach * current


def law_deterministic_children(tokens: list[int], p: torch.Tensor) -> torch.Tensor:
    """Exact law for `verify_deterministic_children`; (V,) float64."""
    p = p.double()
    law, reach, current = torch.zeros_like(p), 1.0, p
    for x in tokens:
        law[x] += reach * float(current[x])
        reach *= 1 - float(current[x])
        current = _remove(current, x)
    return law + reach * current


def law_wrong_match_rule(tokens: list[int], p: torch.Tensor) -> torch.Tensor:
    """Exact law of `wrong_match_rule` — not p whenever a drafted token could be missed."""
    p = p.double()
    law, reach = torch.zeros_like(p), 1.0
    for x in tokens:
        law[x] += reach * float(p[x])
        reach *= 1 - float(p[x])
    return law + reach * p


def brute_force_sampled_law(q, p, m):
    """Independent of law_sampled_children: enumerate every (x_1..x_m) and follow the rule."""
    from specdec.rules.chain import residual
    v, law = len(p), torch.zeros(len(p), dtype=torch.float64)
    for xs in itertools.product(range(v), repeat=m):
        weight = float(torch.prod(q[list(xs)]))
        if weight == 0:
            continue
        cur, reach = p, 1.0
        for x in xs:
            a = min(1.0, float(cur[x] / q[x]))
            law[x] += weight * reach * a
            reach *= 1 - a
            cur = residual(cur, q)
        law += weight * reach * cur
    return law


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("m", [1, 2, 3])
def test_sampled_children_emit_exactly_p(seed, m):
    p, q = random_pair(seed, v=5)      # the exactness lesson's hard cases
    law = brute_force_sampled_law(q, p, m)
    assert torch.allclose(law, p, atol=1e-12)
    assert torch.allclose(law_sampled_children(q, p, m), law, atol=1e-12)


@pytest.mark.parametrize("tokens", [[0], [1, 3], [3, 1, 0], [4, 2, 1]])
def test_deterministic_children_emit_exactly_p(tokens):
    assert torch.allclose(law_deterministic_children(tokens, P), P, atol=1e-12)


def test_a_hand_computed_deterministic_case():
    """p = (0.5, 0.3, 0.2), children [1, 2]: 1 is kept w.p. 0.3; else p -> (5/7, 0, 2/7) and 2
    is kept w.p. 2/7 of the remaining 0.7 = 0.2; the rest 0.5 goes to token 0."""
    p = torch.tensor([0.5, 0.3, 0.2], dtype=torch.float64)
    law = law_deterministic_children([1, 2], p)
    assert law.tolist() == pytest.approx([0.5, 0.3, 0.2])


@pytest.mark.parametrize("tokens", [[1], [1, 3], [3, 1, 0]])
def test_the_match_rule_is_biased(tokens):
    law = law_wrong_match_rule(tokens, P)
    assert float((law - P).abs().sum()) / 2 > 0.02
    assert all(law[t] > P[t] for t in tokens)          # drafted tokens are over-represented


SAMPLERS = {
    "sampled": (lambda g: verify_sampled_children(
        [int(torch.multinomial(Q, 1, generator=g)) for _ in range(2)], Q, P, g),
        law_sampled_children(Q, P, 2)),
    "deterministic": (lambda g: verify_deterministic_children([1, 3], P, g),
                      law_deterministic_children([1, 3], P)),
    "wrong match": (lambda g: wrong_match_rule([1, 3], P, g), law_wrong_match_rule([1, 3], P)),
}


def emitted(verdict) -> int:
    return verdict.steps[verdict.accepted_child].token if verdict.accepted_child is not None \
        else verdict.token


@pytest.mark.parametrize("name", SAMPLERS)
def test_each_sampler_follows_its_exact_law(name):
    draw, law = SAMPLERS[name]
    g = torch.Generator().manual_seed(7)
    samples = [emitted(draw(g)) for _ in range(6000)]
    assert chi2_pvalue(samples, dict(enumerate(law.tolist()))) > 1e-3


def test_the_wrong_rule_is_caught_by_the_same_check():
    g = torch.Generator().manual_seed(7)
    samples = [emitted(wrong_match_rule([1, 3], P, g)) for _ in range(6000)]
    assert chi2_pvalue(samples, dict(enumerate(P.tolist()))) < 1e-6


def test_greedy_follows_the_argmax_child():
    v = verify_greedy_children([3, 0, 1], P)
    assert v.accepted_child == 1 and [s.accepted for s in v.steps] == [False, True]
    none = verify_greedy_children([3, 1], P)
    assert none.accepted_child is None and none.token == 0


def test_rejections_record_what_is_left_of_p():
    g = torch.Generator().manual_seed(0)
    v = verify_deterministic_children([0, 1, 2, 3, 4], torch.tensor([0.0, 0.0, 0.0, 0.0, 1.0]), g)
    assert v.accepted_child == 4
    assert [s.accepted for s in v.steps] == [False, False, False, False, True]
    assert all(abs(float(s.p_after.sum()) - 1) < 1e-9 for s in v.steps[:-1])


def test_the_lessons_sampled_laws_match_the_exact_ones():
    """The page's empirical check: both exact rules land on p; the matching rule lands on its
    own (hand-derived) law [0.28, 0.408, 0.312], far from p."""
    from ui.lessons.trees import first_token_law, total_variation
    p, q = torch.tensor([0.5, 0.3, 0.2]), torch.tensor([0.1, 0.2, 0.7])
    for rule in ("sampled", "deterministic"):
        assert total_variation(first_token_law(rule, p, q, 2, 20000), p) < 0.015
    wrong = first_token_law("wrong", p, q, 2, 20000)
    assert total_variation(wrong, torch.tensor([0.28, 0.408, 0.312])) < 0.015
    assert total_variation(wrong, p) > 0.2
