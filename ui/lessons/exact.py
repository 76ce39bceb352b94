"""Why speculative sampling is exact, and how common mistakes break it.

For one drafted position with target p and draft q (vectors over the vocabulary):
    P(emit x) = q(x)·min(1, p(x)/q(x)) + (1 − β)·residual(x) = min(p, q)(x) + (p − q)⁺(x) = p(x).
The wrong rules below exist only for the lesson; the engine's path cannot be switched
to them. Each has an exact output law (by enumerating the drafted token) and a sampler.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from specdec.rules.chain import residual
from specdec.wording import N_, _

RULES = {   # each name says what is drawn after a rejection (RULE_FALLBACK, FALLBACKS below)
    "correct": N_("Correct: accept with min(1, p/q), else draw from the residual"),
    "p_ge_q": N_("Wrong: accept only if p(d) ≥ q(d), else draw from the residual"),
    "greedy_draft": N_("Wrong: draft greedily (argmax q), accept with min(1, p/q), else draw from the residual"),
    "resample_p": N_("Wrong: accept with min(1, p/q), else draw from p (not the residual)"),
    "typical": N_("Lossy: typical acceptance (accept if p(d) > min(ε, δ·e^−H(p))), else draw from p"),
}
RULE_FALLBACK = {"correct": "residual", "p_ge_q": "residual", "greedy_draft": "residual",
                 "resample_p": "p", "typical": "p"}
RULE_TEST = {"correct": "ratio", "p_ge_q": "p_ge_q", "resample_p": "ratio"}   # those drafting from q
TYPICAL_EPS, TYPICAL_DELTA = 0.3, 0.09   # Medusa's defaults for the typical-acceptance threshold


@dataclass(frozen=True)
class Decomposition:
    """The pieces of the toy view; every vector is (V,)."""
    accepted: torch.Tensor          # q·min(1, p/q) = min(p, q)
    beta: float                     # its mass: the chance a draft is accepted
    residual: torch.Tensor          # norm(max(0, p − q))
    from_residual: torch.Tensor     # the rejected mass, redistributed: (1 − β)·residual
    total: torch.Tensor             # accepted + from_residual (= p)


def decomposition(p: torch.Tensor, q: torch.Tensor) -> Decomposition:
    accepted = torch.minimum(p, q)
    beta = float(accepted.sum())
    res = residual(p, q)
    from_residual = (1 - beta) * res
    return Decomposition(accepted, beta, res, from_residual, accepted + from_residual)


def acceptance_vector(rule: str, p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """Probability that a drafted token x is accepted, for every x; (V,)."""
    if rule == "p_ge_q":
        return (p >= q).to(p.dtype)
    if rule == "typical":
        entropy = -float((p[p > 0] * p[p > 0].log()).sum())
        return (p > min(TYPICAL_EPS, TYPICAL_DELTA * math.exp(-entropy))).to(p.dtype)
    safe_q = torch.where(q > 0, q, torch.ones_like(q))
    return torch.where(q > 0, (p / safe_q).clamp(max=1.0), torch.zeros_like(p))


def _fallback(rule: str, p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    return p if RULE_FALLBACK[rule] == "p" else residual(p, q)


def _draft_law(rule: str, q: torch.Tensor) -> torch.Tensor:
    if rule == "greedy_draft":
        return torch.nn.functional.one_hot(q.argmax(), len(q)).to(q.dtype)
    return q


def output_law(rule: str, p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """Exact distribution of the emitted token under `rule`, summing over the drafted token; (V,)."""
    draft, a = _draft_law(rule, q), acceptance_vector(rule, p, q)
    rejected_mass = float((draft * (1 - a)).sum())
    return draft * a + rejected_mass * _fallback(rule, p, q)


def sample_rule(rule: str, p: torch.Tensor, q: torch.Tensor, n: int,
                generator: torch.Generator) -> torch.Tensor:
    """n emitted tokens under `rule`: draft, draw u, accept or fall back; (n,) int64."""
    draft, a = _draft_law(rule, q), acceptance_vector(rule, p, q)
    drafts = torch.multinomial(draft, n, replacement=True, generator=generator)      # (n,)
    u = torch.rand(n, generator=generator)                                            # (n,)
    backups = torch.multinomial(_fallback(rule, p, q), n, replacement=True, generator=generator)
    return torch.where(u <= a[drafts], drafts, backups)                               # (n,)


def first_position(pair, prompt_ids: list[int], sampling) -> tuple[torch.Tensor, torch.Tensor]:
    """p₁ and q₁ for a prompt with the real models (the same processing the engine uses)."""
    from specdec.models.runtime import forward, new_cache
    from specdec.rules.sampling import probs_from_logits
    rows = [forward(m, prompt_ids, new_cache(m), pair.vocab_size, keep=1)
            for m in (pair.target, pair.draft)]
    p, q = (probs_from_logits(r, sampling)[0].double() for r in rows)   # (V,), (V,)
    return p / p.sum(), q / q.sum()


# The rule composer: an acceptance test × what to emit after a rejection.
TESTS = {
    "ratio": N_("accept d with probability min(1, p(d)/q(d))"),
    "p_ge_q": N_("accept d only if p(d) ≥ q(d)"),
    "always": N_("always accept d"),
    "argmax": N_("accept d only if it is the target's most likely token"),
}
FALLBACKS = {
    "residual": N_("draw from the residual norm(max(0, p − q))"),
    "p": N_("draw from p"),
    "q": N_("draw from q"),
    "keep": N_("keep d anyway"),
}


def same_test_rules(test: str, fallback: str) -> list[tuple[str, bool]]:
    """The section-1 rules (a plain q draft) that use this acceptance test: (rule, whether it
    also uses this fallback) — so a learner can tell why their distances differ."""
    return [(rule, RULE_FALLBACK[rule] == fallback) for rule, t in RULE_TEST.items() if t == test]


def test_vector(test: str, p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """a(x): probability that a drafted x passes the test; (V,)."""
    if test == "always":
        return torch.ones_like(p)
    if test == "argmax":
        return torch.nn.functional.one_hot(p.argmax(), len(p)).to(p.dtype)
    return acceptance_vector("p_ge_q" if test == "p_ge_q" else "correct", p, q)


def composed_law(test: str, fallback: str, p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """Exact law of the emitted token: Σ_d q(d)·[a(d)·δ_d + (1 − a(d))·F]; (V,)."""
    a = test_vector(test, p, q)
    if fallback == "keep":
        return q.clone()                                 # every draft is emitted either way
    source = {"residual": residual(p, q), "p": p, "q": q}[fallback]
    return q * a + float((q * (1 - a)).sum()) * source


def sample_composed(test: str, fallback: str, p: torch.Tensor, q: torch.Tensor, n: int,
                    generator: torch.Generator) -> torch.Tensor:
    """n emitted tokens, drawn step by step (draft, u, accept or fall back); (n,) int64."""
    a = test_vector(test, p, q)
    drafts = torch.multinomial(q, n, replacement=True, generator=generator)           # (n,)
    u = torch.rand(n, generator=generator, dtype=p.dtype)                              # (n,)
    source = {"residual": residual(p, q), "p": p, "q": q, "keep": q}[fallback]
    backups = drafts if fallback == "keep" else \
        torch.multinomial(source, n, replacement=True, generator=generator)
    return torch.where(u < a[drafts], drafts, backups)


def branches(test: str, fallback: str, p: torch.Tensor, q: torch.Tensor) -> list[str]:
    """The chosen rule in words, one line per branch, with its probability for these p, q."""
    a = test_vector(test, p, q)
    kept = float((q * a).sum())
    return [_("Draft d from q; {test}.").format(test=_(TESTS[test])),
            _("Accepted (probability Σ q·a = {kept:.3f}): emit d.").format(kept=kept),
            _("Rejected (probability {rejected:.3f}): {fallback}.").format(
                rejected=1 - kept, fallback=_(FALLBACKS[fallback]))]


def noise_tv(p: torch.Tensor, n: int) -> float:
    """Expected total variation between p and the frequencies of n draws from p itself
    (normal approximation: E|f(x) − p(x)| ≈ sqrt(2 p(1 − p) / (π n)))."""
    return 0.5 * float((2 * p * (1 - p) / (math.pi * n)).sqrt().sum())
