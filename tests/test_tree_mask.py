"""The tree attention mask: one pass over a tree gives each node the logits a plain chain
(its own branch) would have given, on a real transformers model with sdpa and a cache."""
import torch
from transformers import DynamicCache

from specdec.rules.draft_tree import DraftTree, tree_mask, tree_positions

from tiny import tiny_llama

TREE = DraftTree(tokens=(5, 6, 7, 8, 9), parents=(-1, -1, 0, 0, 2))   # 0-2-4 is the deepest branch


def test_shape_of_the_mask_by_hand():
    m = tree_mask(cached=2, pending=1, tree=DraftTree((5, 6, 7), (-1, -1, 0)))
    assert m.int().tolist() == [
        [1, 1, 1, 0, 0, 0],     # the pending token: cache + itself
        [1, 1, 1, 1, 0, 0],     # node 0: cache, pending, itself
        [1, 1, 1, 0, 1, 0],     # node 1: not its sibling 0
        [1, 1, 1, 1, 0, 1],     # node 2: its parent 0 and itself
    ]
    assert tree_positions(2, 1, DraftTree((5, 6, 7), (-1, -1, 0))).tolist() == [2, 3, 3, 4]


def test_depths_children_and_ancestors():
    assert [TREE.depth(i) for i in range(5)] == [1, 1, 2, 2, 3]
    assert TREE.children(-1) == [0, 1] and TREE.children(0) == [2, 3] and TREE.ancestors(4) == [4, 2, 0]


@torch.no_grad()
def test_one_tree_pass_equals_every_branch_as_a_chain():
    model = tiny_llama(13, 2, seed=1, context=64)
    prefix, pending = [1, 2, 3, 4], [10, 11]
    cache = DynamicCache(config=model.config)
    model(input_ids=torch.tensor([prefix]), cache=cache, use_cache=True)
    mask = tree_mask(len(prefix), len(pending), TREE)
    ids = torch.tensor([pending + list(TREE.tokens)])
    out = model(input_ids=ids, attention_mask=mask[None, None], cache=cache, use_cache=True,
                position_ids=tree_positions(len(prefix), len(pending), TREE)[None]).logits[0]
    for i in range(len(TREE.tokens)):
        branch = [TREE.tokens[a] for a in reversed(TREE.ancestors(i))]
        chain = model(input_ids=torch.tensor([prefix + pending + branch])).logits[0, -1]
        torch.testing.assert_close(out[len(pending) + i], chain, rtol=1e-5, atol=1e-5)
    chain = model(input_ids=torch.tensor([prefix + pending])).logits[0, -1]
    torch.testing.assert_close(out[len(pending) - 1], chain, rtol=1e-5, atol=1e-5)
