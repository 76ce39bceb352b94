"""The losslessness lesson: the toy sum is exactly p; wrong rules leave p, the right one doesn't."""
import pytest
import torch

from ui.lessons import exact as ex
from ui.lessons.exact import RULES, decomposition, output_law, sample_rule

from stats import chi2_pvalue


def random_pair(seed: int, v: int = 6):
    g = torch.Generator().manual_seed(seed)
    p = torch.rand(v, generator=g, dtype=torch.float64) ** 3
    q = torch.rand(v, generator=g, dtype=torch.float64) ** 3
    p[torch.randint(v, (1,), generator=g)] = 0.0           # zeros on either side happen in practice
    return p / p.sum(), q / q.sum()


@pytest.mark.parametrize("seed", range(200))
def test_toy_sum_equals_p_for_random_p_q(seed):
    p, q = random_pair(seed)
    parts = decomposition(p, q)
    assert torch.allclose(parts.total, p, atol=1e-12)
    assert torch.allclose(output_law("correct", p, q), p, atol=1e-12)


def test_beta_of_a_hand_made_pair():
    p = torch.tensor([0.5, 0.3, 0.2], dtype=torch.float64)
    q = torch.tensor([0.2, 0.2, 0.6], dtype=torch.float64)
    assert decomposition(p, q).beta == pytest.approx(0.2 + 0.2 + 0.2)     # min per token


P = torch.tensor([0.40, 0.25, 0.15, 0.10, 0.06, 0.04], dtype=torch.float64)
Q = torch.tensor([0.10, 0.45, 0.05, 0.30, 0.05, 0.05], dtype=torch.float64)


@pytest.mark.parametrize("rule", [r for r in RULES if r != "correct"])
def test_each_wrong_rule_leaves_p(rule):
    law = output_law(rule, P, Q)
    assert float((law - P).abs().sum()) / 2 > 0.02                     # exact total variation
    samples = sample_rule(rule, P, Q, 5000, torch.Generator().manual_seed(1)).tolist()
    assert chi2_pvalue(samples, dict(enumerate(P.tolist()))) < 1e-6    # and sampling shows it


def test_correct_rule_sampling_matches_p():
    samples = sample_rule("correct", P, Q, 5000, torch.Generator().manual_seed(1)).tolist()
    assert chi2_pvalue(samples, dict(enumerate(P.tolist()))) > 1e-3


@pytest.mark.parametrize("rule", list(RULES))
def test_sampler_follows_its_own_exact_law(rule):
    law = output_law(rule, P, Q)
    samples = sample_rule(rule, P, Q, 5000, torch.Generator().manual_seed(2)).tolist()
    assert chi2_pvalue(samples, dict(enumerate(law.tolist()))) > 1e-3


def test_composed_rules_by_hand():
    """Only min(1, p/q) with the residual gives p; two other combinations by hand."""
    p = torch.tensor([0.35, 0.30, 0.20, 0.10, 0.05], dtype=torch.float64)
    q = torch.tensor([0.70, 0.10, 0.10, 0.05, 0.05], dtype=torch.float64)
    assert torch.allclose(ex.composed_law("ratio", "residual", p, q), p)
    # p >= q passes tokens 1-4 (q mass 0.3); the 0.7 rejected is redrawn from p
    assert torch.allclose(ex.composed_law("p_ge_q", "p", p, q),
                          torch.tensor([0.245, 0.31, 0.24, 0.12, 0.085], dtype=torch.float64))
    assert torch.allclose(ex.composed_law("always", "residual", p, q), q)
    others = [(t, f) for t in ex.TESTS for f in ex.FALLBACKS if (t, f) != ("ratio", "residual")]
    assert all(float((ex.composed_law(t, f, p, q) - p).abs().sum()) > 0.05 for t, f in others)


def test_composed_sampler_follows_its_law():
    p = torch.tensor([0.35, 0.30, 0.20, 0.10, 0.05], dtype=torch.float64)
    q = torch.tensor([0.70, 0.10, 0.10, 0.05, 0.05], dtype=torch.float64)
    for t, f in [("ratio", "residual"), ("p_ge_q", "p"), ("argmax", "q"), ("ratio", "keep")]:
        drawn = ex.sample_composed(t, f, p, q, 40000, torch.Generator().manual_seed(1))
        freq = torch.bincount(drawn, minlength=5).double() / 40000
        assert float((freq - ex.composed_law(t, f, p, q)).abs().max()) < 0.01, (t, f)


def test_every_rule_names_what_it_draws_after_a_rejection():
    """Issue 40: each row of the rule table says its fallback, and the law follows the name."""
    for rule, name in RULES.items():
        fallback = ex.FALLBACKS[ex.RULE_FALLBACK[rule]]                # "draw from p" / "... residual ..."
        assert fallback.split(" norm(")[0] in name, (rule, name)
    assert "p(d) ≥ q(d), else draw from the residual" in RULES["p_ge_q"]


@pytest.mark.parametrize("rule", ["correct", "p_ge_q", "resample_p"])
def test_a_table_rule_is_the_composer_rule_its_name_gives(rule):
    """The table's row and the composer with the same test and fallback have one law, so the
    learner can match the 0.35 of one to the other; the other fallback gives another distance."""
    p = torch.tensor([0.35, 0.30, 0.20, 0.10, 0.05], dtype=torch.float64)
    q = torch.tensor([0.70, 0.10, 0.10, 0.05, 0.05], dtype=torch.float64)
    test, fallback = ex.RULE_TEST[rule], ex.RULE_FALLBACK[rule]
    assert torch.allclose(output_law(rule, p, q), ex.composed_law(test, fallback, p, q), atol=1e-12)
    assert (rule, True) in ex.same_test_rules(test, fallback)
    other = "p" if fallback == "residual" else "residual"
    assert (rule, False) in ex.same_test_rules(test, other)


def test_p_ge_q_with_p_is_named_apart_from_the_tables_row():
    assert ex.same_test_rules("p_ge_q", "p") == [("p_ge_q", False)]
    assert ex.same_test_rules("always", "p") == []
