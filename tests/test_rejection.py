"""The acceptance rule on hand-made p, q: the emitted token's distribution is exactly p."""
import pytest
import torch

from specdec.rules.chain import accept_probability, beta, residual, verify_greedy, verify_sampled

from stats import chi2_pvalue

CASES = {
    "overlapping": ([0.5, 0.3, 0.2, 0.0], [0.2, 0.2, 0.2, 0.4]),
    "disjoint": ([0.0, 0.0, 0.6, 0.4], [0.7, 0.3, 0.0, 0.0]),
    "draft sharper": ([0.25, 0.25, 0.25, 0.25], [0.97, 0.01, 0.01, 0.01]),
    "equal (zero residual)": ([0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4]),
    "point-mass draft": ([0.1, 0.6, 0.3, 0.0], [0.0, 0.0, 1.0, 0.0]),
}


def one_round_distribution(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """Exact law of the first emitted token, by enumerating the draft token d ~ q."""
    out = torch.zeros_like(p)
    res = residual(p, q)
    for d in range(len(p)):
        if q[d] == 0:
            continue
        a = accept_probability(float(p[d]), float(q[d]))
        out[d] += q[d] * a
        out += q[d] * (1 - a) * res
    return out


@pytest.mark.parametrize("name", CASES)
def test_one_round_is_exactly_p(name):
    p, q = (torch.tensor(v, dtype=torch.float64) for v in CASES[name])
    assert torch.allclose(one_round_distribution(p, q), p, atol=1e-12)


def test_the_exactness_check_can_fail():
    """Resampling from p instead of the residual is a known bug: the same check rejects it."""
    p, q = (torch.tensor(v, dtype=torch.float64) for v in CASES["overlapping"])
    wrong = torch.zeros_like(p)
    for d in range(len(p)):
        a = accept_probability(float(p[d]), float(q[d]))
        wrong[d] += q[d] * a
        wrong += q[d] * (1 - a) * p
    assert not torch.allclose(wrong, p, atol=1e-3)


def test_residual_falls_back_to_p_when_empty():
    p = torch.tensor([0.1, 0.2, 0.7])
    q = p + torch.tensor([1e-9, -2e-9, 1e-9])       # float noise: p - q is ~0 everywhere
    r = residual(p, q)
    assert torch.isfinite(r).all() and torch.allclose(r, p)
    assert torch.allclose(residual(p, p.clone()), p)


def test_residual_and_beta_by_hand():
    p = torch.tensor([0.5, 0.3, 0.2, 0.0])
    q = torch.tensor([0.2, 0.2, 0.2, 0.4])
    assert beta(p, q) == pytest.approx(0.2 + 0.2 + 0.2 + 0.0)
    assert torch.allclose(residual(p, q), torch.tensor([0.3, 0.1, 0.0, 0.0]) / 0.4)


def test_verify_sampled_two_positions_matches_p_by_sampling():
    """k = 2 through verify_sampled: the first emitted token ~ p_1 (chi-square)."""
    p1, q1 = (torch.tensor(v) for v in CASES["overlapping"])
    p2 = torch.tensor([0.25, 0.25, 0.25, 0.25])
    g = torch.Generator().manual_seed(0)
    firsts = []
    for _ in range(6000):
        d1 = int(torch.multinomial(q1, 1, generator=g))
        v = verify_sampled([d1, 3], torch.stack([q1, p2]), torch.stack([p1, p2, p2]), g)
        firsts.append(d1 if v.n_accepted >= 1 else v.token)
    assert chi2_pvalue(firsts, dict(enumerate(p1.tolist()))) > 1e-3


def test_verify_sampled_records_draws_and_kind():
    p = torch.tensor([[0.0, 1.0], [0.5, 0.5]])
    q = torch.tensor([[1.0, 0.0]])
    v = verify_sampled([0], q, p, torch.Generator().manual_seed(1))
    assert v.n_accepted == 0 and v.kind == "correction" and v.token == 1
    assert len(v.draws) == 1 and v.ratios == (0.0,)


def test_verify_greedy_accepts_argmax_prefix():
    target = torch.tensor([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
    v = verify_greedy([1, 1], target)
    assert (v.n_accepted, v.token, v.kind) == (1, 0, "correction")
    v = verify_greedy([1, 0], target)
    assert (v.n_accepted, v.token, v.kind) == (2, 1, "bonus")
    v = verify_greedy([0, 0], target)           # token id 0 is a real token
    assert (v.n_accepted, v.token) == (0, 1)


def test_sample_follows_the_distribution_and_never_draws_zeros():
    from specdec.rules.sampling import sample
    probs = torch.tensor([0.0, 0.5, 0.0, 0.3, 0.2, 0.0])
    g = torch.Generator().manual_seed(3)
    draws = [sample(probs, g) for _ in range(6000)]
    assert not {0, 2, 5} & set(draws)
    assert chi2_pvalue(draws, {1: 0.5, 3: 0.3, 4: 0.2}) > 1e-3
    assert sample(torch.tensor([0.0, 0.0, 1.0]), g) == 2
