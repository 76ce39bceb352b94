"""Verifying a tree of drafts at one node, exactly (pure tensor math, no models).

At a node the target's distribution is p; its drafted children x_1..x_m are tried in
turn. Two ways of drafting children need two rules (SpecInfer, Miao et al. 2024; Chen
et al., "Sequoia", 2024):

- sampled children (each drawn independently from q): accept x_i with probability
  min(1, p(x_i)/q(x_i)); on rejection p <- norm(max(0, p - q)) and try the next child;
  if every child is rejected, the token is drawn from what is left of p.
- deterministic children (distinct tokens chosen without sampling: top-w of q, n-gram
  matches): each child is a point mass, so accept x_i with probability p(x_i); on
  rejection p(x_i) <- 0, renormalise, try the next child; if all are rejected, draw
  from what is left.

Either way the emitted token has exactly distribution p (tests enumerate it). The rule
that looks right but is not — sample one target token per child and keep the child if
they match — is here too (`wrong_match_rule`), for the exactness lab.
Greedy: follow the child equal to argmax p, else emit argmax p.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import torch

from specdec.rules.chain import RESIDUAL_EPS, accept_probability, residual
from specdec.rules.sampling import argmax, sample, uniform


class TreeRule(StrEnum):
    """How a node's drafted children are verified (this module's rules)."""
    DETERMINISTIC = "deterministic"   # distinct children chosen without sampling: point masses
    SAMPLED = "sampled"               # independent draws from q: min(1, p/q) and the residual
    GREEDY = "greedy"                 # T = 0: follow the child equal to argmax p


@dataclass(frozen=True)
class SiblingStep:
    child: int                      # index into the node's children
    token: int
    ratio: float                    # the acceptance probability used
    u: float | None                 # the draw (None in greedy mode)
    accepted: bool
    p_after: torch.Tensor | None    # (V,) what was left of p after this rejection


@dataclass(frozen=True)
class NodeVerdict:
    accepted_child: int | None      # index of the accepted child, None if all were rejected
    steps: tuple[SiblingStep, ...]
    token: int | None               # drawn from what is left of p when no child was accepted
    source: torch.Tensor | None     # (V,) the distribution `token` was drawn from


def _remove(p: torch.Tensor, token: int) -> torch.Tensor:
    """p with one token's mass removed, renormalised (falls back to p if nothing is left)."""
    left = p.clone()
    left[token] = 0.0
    total = float(left.sum())
    return p if total <= RESIDUAL_EPS else left / total


def _try_children(tokens: list[int], p: torch.Tensor, ratio, shrink,
                  generator: torch.Generator) -> NodeVerdict:
    """Try each child with probability ratio(p, x); on rejection p <- shrink(p, x); if every
    child is rejected, draw from what is left of p."""
    steps = []
    for i, x in enumerate(tokens):
        r, u = ratio(p, x), uniform(generator)
        if u <= r:
            steps.append(SiblingStep(i, x, r, u, True, None))
            return NodeVerdict(i, tuple(steps), None, None)
        p = shrink(p, x)                                               # (V,)
        steps.append(SiblingStep(i, x, r, u, False, p))
    return NodeVerdict(None, tuple(steps), sample(p, generator), p)


def verify_sampled_children(tokens: list[int], q: torch.Tensor, p: torch.Tensor,
                            generator: torch.Generator) -> NodeVerdict:
    """tokens (m,) drawn i.i.d. from q (V,); p (V,) the target's distribution at the node."""
    return _try_children(tokens, p, lambda p, x: accept_probability(float(p[x]), float(q[x])),
                         lambda p, x: residual(p, q), generator)


def verify_deterministic_children(tokens: list[int], p: torch.Tensor,
                                  generator: torch.Generator) -> NodeVerdict:
    """tokens (m,) distinct, chosen without sampling: each is a point mass."""
    return _try_children(tokens, p, lambda p, x: float(p[x]), _remove, generator)


def verify_greedy_children(tokens: list[int], p: torch.Tensor) -> NodeVerdict:
    best = int(argmax(p))
    steps = []
    for i, x in enumerate(tokens):
        steps.append(SiblingStep(i, x, 1.0 if x == best else 0.0, None, x == best, None))
        if x == best:
            return NodeVerdict(i, tuple(steps), None, None)
    return NodeVerdict(None, tuple(steps), best, p)


def wrong_match_rule(tokens: list[int], p: torch.Tensor, generator: torch.Generator) -> NodeVerdict:
    """NOT exact: draw one target token per child and keep the child when they match; if none
    matches, emit a fresh draw from p. Biased towards the drafted tokens."""
    steps = []
    for i, x in enumerate(tokens):
        y = sample(p, generator)
        steps.append(SiblingStep(i, x, float(p[x]), None, y == x, None))
        if y == x:
            return NodeVerdict(i, tuple(steps), None, None)
    return NodeVerdict(None, tuple(steps), sample(p, generator), p)
