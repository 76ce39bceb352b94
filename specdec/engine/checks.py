"""What the engine checks before it trusts a round's numbers: a drafter's proposal, the target's logits.

A drafter can be anyone's code (`Decoder(..., drafter=...)`), and the acceptance rule is exact
only for a q that is a distribution the drafts were really drawn from: with q = NaN every
`u > p/q` is false and every draft was accepted; with q(d) = 0 a token the target gives no
chance at all was emitted. So each round's proposal is checked once (token ids in the
vocabulary, no more drafts than asked, each q row finite, non-negative and summing to 1, each
drafted token with q(d) > 0), and refused with one message. Greedy rounds accept by argmax
and never read q, so only the tokens are checked there. Logits that are not finite (a model
with NaN weights, an overflow) stop the run the same way: every rule downstream would
silently pick a token from them.
"""
from __future__ import annotations

import torch

from specdec.errors import InputError
from specdec.wording import N_

SUM_TOLERANCE = 1e-3      # a q row's sum may differ from 1 by float32 rounding over 49k entries


def tokens(ids, vocab: int) -> None:
    """Every drafted id is a whole number in [0, vocab)."""
    for t in ids:
        if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t < vocab:
            raise InputError(N_("the drafter's proposal cannot be verified exactly: "
                                "token id {token} is not in the vocabulary (0 to {last})"),
                             token=repr(t), last=vocab - 1)


def distribution(q: torch.Tensor, vocab: int, what: str) -> None:
    """q (..., vocab): finite, non-negative, each row summing to 1. Two passes over q (its row
    sums and its smallest entry): NaN and ±inf make a row's sum non-finite, so they need no pass
    of their own (0.16 ms for 4 rows of SmolLM2's 49,152 words on an AMD EPYC; more only for a bad q)."""
    if not isinstance(q, torch.Tensor) or q.shape[-1:] != (vocab,) or not q.is_floating_point():
        shape = tuple(q.shape) if isinstance(q, torch.Tensor) else type(q).__name__
        raise InputError(N_("the drafter's proposal cannot be verified exactly: "
                            "{what} has shape {shape}, not rows of {vocab} probabilities"), what=what,
                         shape=shape, vocab=vocab)
    sums = q.sum(-1)                            # (...,): float32 sums are exact enough for 1e-3
    if not bool(torch.isfinite(sums).all()):
        raise InputError(N_("the drafter's proposal cannot be verified exactly: "
                            "{what} holds NaN or infinite values"), what=what)
    if q.numel() and float(q.amin()) < 0:
        raise InputError(N_("the drafter's proposal cannot be verified exactly: "
                            "{what} holds negative probabilities"), what=what)
    worst = (sums - 1).abs()
    if bool((worst > SUM_TOLERANCE).any()):
        raise InputError(N_("the drafter's proposal cannot be verified exactly: "
                            "{what} does not sum to 1 (a row sums to {total})"), what=what,
                         total=f"{float(sums.flatten()[worst.argmax()]):.4g}")


def chain(prop, k: int, vocab: int, greedy: bool) -> None:
    """A chain proposal: at most k drafts in the vocabulary; when sampling, q_i rows that are
    distributions with q_i(d_i) > 0."""
    if len(prop.tokens) > k:
        raise InputError(N_("the drafter's proposal cannot be verified exactly: "
                            "{n} drafts where at most {k} were asked"), n=len(prop.tokens), k=k)
    tokens(prop.tokens, vocab)
    if greedy or not prop.tokens:
        return
    distribution(prop.probs, vocab, "q")
    if prop.probs.shape[0] != len(prop.tokens):
        raise InputError(N_("the drafter's proposal cannot be verified exactly: "
                            "{rows} rows of q for {n} drafts"), rows=prop.probs.shape[0], n=len(prop.tokens))
    chosen = prop.probs[torch.arange(len(prop.tokens)), torch.tensor(prop.tokens)]      # (m,) q_i(d_i)
    if not bool((chosen > 0).all()):
        i = int((chosen > 0).logical_not().nonzero()[0])
        raise InputError(N_("the drafter's proposal cannot be verified exactly: "
                            "draft {i} (token {token}) has q = 0: it could not have been drawn from q"),
                         i=i + 1, token=prop.tokens[i])


def tree(prop, vocab: int, greedy: bool) -> None:
    """A tree proposal: node tokens in the vocabulary; when sampling, each node's q a distribution."""
    tokens(list(prop.tree.tokens), vocab)
    if greedy:
        return
    for node, q in prop.node_q.items():
        distribution(q, vocab, f"q at node {node}")


def logits(values: torch.Tensor) -> torch.Tensor:
    """The target's logits (R, V), returned when usable: no NaN, no +inf, and in each row some
    token not ruled out (-inf rules a token out, as a model may). One pass when all are finite
    (their sum is then finite); the detailed look only when it is not."""
    if bool(torch.isfinite(values.sum())):
        return values
    if bool(torch.isnan(values).any() or torch.isposinf(values).any() or torch.isneginf(values).all(-1).any()):
        raise InputError(N_("the target model gave NaN or infinite logits (broken weights or an "
                            "overflow in its precision): the run stops here"))
    return values
