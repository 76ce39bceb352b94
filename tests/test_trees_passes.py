"""Many drafts at once, its comparison table: the target alone makes one pass a token, so its
tokens a target pass is exactly 1 (its first token comes from reading the prompt, a pass no
round counts); a chain of drafts keeps more than one (issue 51's review: the table said 1.04)."""
from specdec.settings import Settings
from ui.lessons.trees import compare


def test_the_target_alone_makes_one_pass_a_token_and_a_chain_keeps_more(pair_no_eos):
    prompts = ["ab(a", "the cat"]                 # as the page passes them: the engine's inputs
    table = compare(pair_no_eos, prompts, Settings(temperature=0.0, max_new_tokens=12), budget=3, width=2, repeats=1)
    alone, chain = table.rows[0], table.rows[1]
    assert alone.kind == "alone" and alone.tokens_per_pass == 1.0
    assert alone.verified_per_pass == 1.0
    assert chain.tokens_per_pass >= 1.0 and 1.0 < chain.verified_per_pass <= 4.0    # 1 + up to 3 drafted a round
    assert alone.drafts_per_round == 0 and 0 < chain.drafts_per_round <= 3          # draft forwards a round, kept


def test_a_sibling_drawn_twice_is_counted_and_said():
    """Sampled children are independent draws from q: a tree may hold one token twice under one parent
    (Many drafts at once says so, with how many)."""
    from types import SimpleNamespace as NS

    from ui.lessons.trees import twins, twins_note
    tree = NS(nodes=[NS(parent=-1, token=5), NS(parent=-1, token=5), NS(parent=-1, token=7),
                     NS(parent=0, token=5), NS(parent=0, token=9), NS(parent=0, token=9), NS(parent=0, token=9)])
    assert twins(tree) == 3                          # one 5 under the root, two 9s under node 0
    assert twins(NS(nodes=[NS(parent=-1, token=5), NS(parent=0, token=5)])) == 0      # other parents
    assert twins_note(3).startswith("3 node(s) repeat a sibling's token")
