"""A tree round's own steps (the Decoder does the rest): draft the tree, verify every node in one target pass,
walk down from the root accepting at most one child per node, keep the accepted path.

1. Draft: the tree drafter grows a DraftTree (drafters/tree.py) within depth k and its budget.
2. Verify: one target forward over [pending tokens, all nodes] with the tree attention
   mask (rules/draft_tree.py): each node sees the prefix and its own ancestors only, so the logits
   at a node are the ones a chain along its branch would have produced.
3. Walk: at each node try its children in drafting order with the exact rule for how they
   were drafted (rules/tree.py): sampled children with min(1, p/q) against the shrinking
   residual, deterministic children (top-w, n-gram) as point masses, greedy by argmax.
4. The node reached last gives the final token: a draw from what was left of p when all
   its children were rejected ("correction"), or from its own p when it has no children
   ("bonus").
5. Caches: the target's cache keeps the prefix and the accepted path's rows only
   (models/runtime.keep_rows); the draft cache never held the tree.
"""
from __future__ import annotations

import torch

from specdec.drafters.base import EMPTY_TREE, FeatureReader, TreeProposal
from specdec.engine import checks
from specdec.engine.outcome import Outcome, Verified
from specdec.models.runtime import final_hidden_states
from specdec.rules.chain import FinalKind, beta
from specdec.rules.draft_tree import tree_mask, tree_positions
from specdec.rules.sampling import argmax, probs_from_logits, sample
from specdec.rules.tree import (
    NodeVerdict,
    TreeRule,
    verify_deterministic_children,
    verify_greedy_children,
    verify_sampled_children,
)
from specdec.trace import record
from specdec.trace.run import Final, Position, Tree, TreeNode, make_dist


def draft(decoder, k: int) -> TreeProposal:
    if not k:
        return EMPTY_TREE
    prop = decoder.drafter.propose_tree(decoder.seq, k, decoder.settings.sampling, decoder.generator)
    checks.tree(prop, decoder.pair.vocab_size, decoder.settings.sampling.greedy)
    return prop


@torch.no_grad()
def verify(decoder, prop: TreeProposal, pending: list[int]) -> Verified:
    """p at the last prefix position, then at every node (1 + N, V); the final hidden states
    (pending + N, H) of every fed position when the drafter reads them."""
    pair, cached, tree = decoder.pair, decoder.target_cache.get_seq_length(), prop.tree
    mask = tree_mask(cached, len(pending), tree)[None, None]                   # (1, 1, R, W)
    ids = torch.tensor([pending + list(tree.tokens)], device=pair.device)     # (1, R)
    pos = tree_positions(cached, len(pending), tree)[None].to(pair.device)    # (1, R)
    with final_hidden_states(pair.target) as seen:
        out = pair.target(input_ids=ids, attention_mask=mask.to(pair.device), position_ids=pos,
                          cache=decoder.target_cache, use_cache=True)
    feats = seen[-1] if isinstance(decoder.drafter, FeatureReader) else None
    logits = out.logits[0, len(pending) - 1:, :pair.vocab_size].float().cpu()  # (1 + N, V)
    return Verified(probs_from_logits(checks.logits(logits), decoder.settings.sampling), feats)


def try_children(rule: TreeRule, tokens: list[int], q, p: torch.Tensor, generator) -> NodeVerdict:
    if rule == TreeRule.GREEDY:
        return verify_greedy_children(tokens, p)
    if rule == TreeRule.SAMPLED:
        return verify_sampled_children(tokens, q, p, generator)
    return verify_deterministic_children(tokens, p, generator)


def walk(prop: TreeProposal, probs: torch.Tensor, rule: TreeRule, generator):
    """Root to leaf. probs (1 + N, V): p at the root, then at each node.
    -> (accepted path, {node: (ratio, u, verdict, left)}, final token, its source, kind)."""
    tree, node, path, tried = prop.tree, -1, [], {}
    while True:
        children = tree.children(node)
        p = probs[node + 1]                                                     # (V,)
        if not children:
            token = int(argmax(p)) if rule == TreeRule.GREEDY else sample(p, generator)
            return path, tried, token, p, FinalKind.BONUS
        v = try_children(rule, [tree.tokens[c] for c in children], prop.node_q.get(node), p, generator)
        for step in v.steps:
            tried[children[step.child]] = (step.ratio, step.u, step.accepted, step.p_after)
        if v.accepted_child is None:
            return path, tried, v.token, v.source, FinalKind.CORRECTION
        node = children[v.accepted_child]
        path.append(node)


def tree_trace(decoder, prop: TreeProposal, probs: torch.Tensor, tried: dict, rule: TreeRule) -> Tree:
    """Every node with its verdict; distributions unless the run is lean."""
    tok, lean, tree = decoder.pair.tokenizer, decoder.settings.lean, prop.tree
    dist = (lambda x: None) if lean else (lambda x: None if x is None else make_dist(x))
    nodes = []
    for i, (x, parent) in enumerate(zip(tree.tokens, tree.parents)):
        q_parent = prop.node_q.get(parent)
        ratio, u, accepted, left = tried.get(i, (None, None, None, None))
        nodes.append(TreeNode(
            token=x, text=record.token_text(tok, x), parent=parent,
            q=1.0 if q_parent is None else float(q_parent[x]), p=float(probs[parent + 1][x]),
            ratio=ratio, u=u, verdict="untried" if ratio is None else "accepted" if accepted else "rejected",
            left=dist(left), target=dist(probs[i + 1]), draft=dist(prop.node_q.get(i))))
    return Tree(tuple(nodes), rule, decoder.drafter.width, decoder.drafter.budget,
                dist(probs[0]), dist(prop.node_q.get(-1)))


def path_positions(decoder, prop: TreeProposal, probs: torch.Tensor, path: list[int],
                   tried: dict, greedy: bool) -> tuple[Position, ...]:
    """The accepted path as chain positions (the token strip and the metrics read these)."""
    out, tok, lean = [], decoder.pair.tokenizer, decoder.settings.lean
    for depth, i in enumerate(path, 1):
        x, parent = prop.tree.tokens[i], prop.tree.parents[i]
        p, q = probs[parent + 1], prop.node_q.get(parent)
        q = q if q is not None else torch.nn.functional.one_hot(torch.tensor(x), len(p)).float()
        ratio, u, _, _ = tried[i]
        b = float(int(argmax(p)) == int(argmax(q))) if greedy else beta(p, q)
        out.append(Position(i=depth, token=x, text=record.token_text(tok, x), q=float(q[x]),
                            p=float(p[x]), ratio=ratio, u=u, verdict="accepted", beta=b,
                            target=None if lean else make_dist(p), draft=None if lean else make_dist(q)))
    return tuple(out)


def decide(decoder, prop: TreeProposal, verified: Verified) -> Outcome:
    """Steps 3-4: walk the tree; the accepted path, the final token and their records."""
    sampling, probs = decoder.settings.sampling, verified.probs
    rule = TreeRule.GREEDY if sampling.greedy else prop.rule
    path, tried, token, source, kind = walk(prop, probs, rule, decoder.generator)
    final_p = probs[(path[-1] + 1) if path else 0][token]
    final = Final(token, record.token_text(decoder.pair.tokenizer, token),
                  FinalKind.TARGET if not prop.tree.tokens else kind, float(final_p),
                  None if decoder.settings.lean else make_dist(source))
    return Outcome(kept=path, accepted=[prop.tree.tokens[i] for i in path], token=token, final=final, drafted=None,
                   positions=path_positions(decoder, prop, probs, path, tried, sampling.greedy),
                   tree=tree_trace(decoder, prop, probs, tried, rule))
