"""Turn the tensors of one round into its immutable trace (`trace.Round`)."""
from __future__ import annotations

import torch

from specdec.rules.chain import FinalKind, Verdict, beta
from specdec.trace.rounds import Final, Position, make_dist


def token_text(tokenizer, token: int) -> str:
    return tokenizer.decode([token])


def positions(tokenizer, drafts: list[int], draft_probs: torch.Tensor,
              target_probs: torch.Tensor, verdict: Verdict, lean: bool,
              greedy: bool = False) -> tuple[Position, ...]:
    """One Position per drafted token; draft_probs (m, V), target_probs (m+1, V).

    Greedy: the processed p and q are point masses at their argmax, so β = Σ min(p, q) is 1
    when the argmaxes agree and 0 otherwise (the softmax rows are kept only for display).
    """
    out = []
    for i, d in enumerate(drafts):
        verdict_i = ("accepted" if i < verdict.n_accepted else
                     "rejected" if i == verdict.n_accepted else "discarded")
        q, p = draft_probs[i], target_probs[i]                          # (V,), (V,)
        b = verdict.ratios[i] if greedy else beta(p, q)
        out.append(Position(
            i=i + 1, token=d, text=token_text(tokenizer, d), q=float(q[d]), p=float(p[d]),
            ratio=verdict.ratios[i], u=verdict.draws[i] if i < len(verdict.draws) else None,
            verdict=verdict_i, beta=b, target=None if lean else make_dist(p),
            draft=None if lean else make_dist(q)))
    return tuple(out)


def final(tokenizer, verdict: Verdict, target_probs: torch.Tensor, drafted: int,
          lean: bool) -> Final:
    kind = FinalKind.TARGET if drafted == 0 else verdict.kind
    p = float(target_probs[verdict.n_accepted][verdict.token])
    return Final(token=verdict.token, text=token_text(tokenizer, verdict.token), kind=kind, p=p,
                 source=None if lean else make_dist(verdict.source))


def vocabulary(tokenizer, seq: list[int], rounds) -> dict:
    """Texts of every token a replay may show: the sequence, drafts, top tokens of each dist."""
    ids = set(seq)
    for rnd in rounds:
        ids.add(rnd.final.token)
        dists = [rnd.final.source]
        for pos in rnd.positions:
            ids.add(pos.token)
            dists += [pos.target, pos.draft]
        for dist in dists:
            if dist is not None:
                ids.update(t for t, _ in dist.top(16))
    return {str(t): token_text(tokenizer, t) for t in sorted(ids)}
