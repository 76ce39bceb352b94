"""The tree lesson's noise floor: what n draws from p itself give, over many sets (mean and the
95th percentile), so one lucky or unlucky set does not decide whether a rule looks exact."""
import torch

from ui.lessons.trees import noise_floor


def test_the_noise_of_a_fair_coin_matches_the_binomial():
    # TV = |K/100 − 1/2| with K ~ Binomial(100, 1/2): mean E|K − 50| / 100 ≈ √(2/π) · 5 / 100 = 0.040,
    # 95th percentile of |K − 50| ≈ 1.96 · 5 ≈ 10 (K is an integer: 0.09–0.10)
    noise = noise_floor(torch.tensor([0.5, 0.5]), 100, sets=2000)
    assert 0.035 < noise.mean < 0.045 and 0.08 <= noise.high <= 0.11


def test_more_draws_less_noise():
    p = torch.softmax(torch.linspace(0, 3, 20), 0)
    assert noise_floor(p, 4000).high < noise_floor(p, 250).mean
