"""Tree rounds end to end on tiny config-built models (specdec/engine/tree.py): greedy parity,
exact sampling for every way of drafting children, caches that hold exactly the accepted
path, the recorded tree, and its JSON round trip."""
import pytest
import torch

import specdec
from specdec.trace.run import Run

from stats import chi2_pvalue
from test_engine import PROMPTS, full_forward_probs, hf_greedy
from test_lossless import PROMPT, RUNS, exact_two_token_law

TREES = {
    "model tree, top-w children": dict(drafter="tree", tree_children="top"),
    "model tree, sampled children": dict(drafter="tree", tree_children="sampled"),
    "n-gram tree": dict(drafter="ngram-tree"),
}


@pytest.mark.parametrize("name", TREES)
def test_greedy_parity_with_transformers_generate(pair, name):
    for prompt in PROMPTS:
        run = specdec.generate(pair, prompt, k=3, temperature=0, max_new_tokens=24, tree_width=2,
                               tree_budget=6, **TREES[name])
        assert list(run.token_ids) == hf_greedy(pair, prompt, 24), prompt


@pytest.mark.parametrize("name", TREES)
def test_first_two_tokens_follow_the_target(pair, name):
    settings = {"k": 3, "max_new_tokens": 4, "temperature": 1.0, "tree_width": 3, "tree_budget": 7,
                **TREES[name]}
    law = exact_two_token_law(pair, PROMPT, specdec.Settings(**settings).sampling)
    samples = [tuple(specdec.generate(pair, PROMPT, seed=seed, **settings).token_ids[:2])
               for seed in range(RUNS)]
    assert chi2_pvalue(samples, law) > 1e-3


@pytest.mark.parametrize("name", TREES)
def test_cache_holds_exactly_the_accepted_path(pair_no_eos, name):
    """After every round the target's cache equals a cache-free recompute of the sequence:
    the next round's p at the root, and p along the accepted path, match full forwards."""
    settings = specdec.Settings(k=3, temperature=0.9, seed=4, max_new_tokens=30, tree_width=2,
                                tree_budget=6, **TREES[name])
    decoder = specdec.Decoder(pair_no_eos, "abc abc a", settings)
    seq = list(decoder.prompt_ids)
    for rnd in decoder:
        root = full_forward_probs(pair_no_eos, seq, settings.sampling)
        assert torch.allclose(torch.tensor(rnd.tree.root_target.probs), root, atol=1e-5)
        for pos in rnd.positions:
            here = full_forward_probs(pair_no_eos, seq + [p.token for p in rnd.positions[:pos.i - 1]],
                                      settings.sampling)
            assert torch.allclose(torch.tensor(pos.target.probs), here, atol=1e-5)
        seq += list(rnd.emitted)
        assert rnd.caches.target_after == decoder.target_cache.get_seq_length() == len(seq) - 1
        assert rnd.caches.target_peak == rnd.prefix_len + rnd.drafted
    assert seq == decoder.seq


def test_the_tree_respects_width_budget_and_depth(pair):
    run = specdec.generate(pair, "cab cab", drafter="tree", k=3, tree_width=2, tree_budget=5,
                           temperature=1.0, seed=3, max_new_tokens=20)
    for rnd in run.rounds:
        tree = rnd.tree
        assert len(tree.nodes) <= 5
        assert all(n.parent < i for i, n in enumerate(tree.nodes))
        for parent in [-1] + list(range(len(tree.nodes))):
            assert sum(n.parent == parent for n in tree.nodes) <= 2
        assert all(tree.depth(i) <= rnd.draft_limit for i in range(len(tree.nodes)))


def test_the_record_tells_one_consistent_story(pair):
    """The accepted nodes form one branch from the root; at each node on it, the siblings
    tried before the accepted one were rejected and later ones untried; a rejected node
    records what was left of p; the emitted tokens are the path plus the final token."""
    runs = [specdec.generate(pair, "(a(b(a", drafter="tree", k=3, tree_width=3, tree_budget=8,
                             temperature=1.0, seed=s, max_new_tokens=12) for s in range(6)]
    rejected = 0
    for rnd in (r for run in runs for r in run.rounds):
        tree, path = rnd.tree, rnd.tree.path
        assert [tree.nodes[i].parent for i in path] == ([-1] + list(path))[:len(path)]
        told = [tree.nodes[i].token for i in path] + [rnd.final.token]
        assert told[:len(rnd.emitted)] == list(rnd.emitted)                 # (cut after EOS)
        for parent in [-1] + list(path):
            verdicts = [n.verdict for n in tree.nodes if n.parent == parent]
            tried = [v for v in verdicts if v != "untried"]
            assert verdicts[:len(tried)] == tried                          # tried in order
            assert all(v == "rejected" for v in tried[:-1])
        for n in tree.nodes:
            assert (n.left is not None) == (n.verdict == "rejected")
            assert (n.u is None) == (n.verdict == "untried")
            rejected += n.verdict == "rejected"
    assert rejected > 0


@pytest.mark.parametrize("name", TREES)
def test_tree_runs_round_trip_through_json(pair, name):
    run = specdec.generate(pair, "ab(ab", k=3, temperature=0.8, seed=2, max_new_tokens=10,
                           tree_width=2, tree_budget=6, **TREES[name])
    assert any(r.tree.nodes for r in run.rounds)
    assert Run.from_json(run.to_json()) == run


@pytest.fixture(scope="module")
def tree_file(pair):
    import json
    run = specdec.generate(pair, "ab(ab(a", drafter="tree", k=3, tree_width=2, tree_budget=6,
                           temperature=0.9, seed=2, max_new_tokens=10)
    assert run.rounds[0].tree.nodes[0].verdict != "untried"      # the root's first child is tried
    return json.loads(run.to_json())


BAD_TREES = [   # (where, new value, words the message must contain)
    (["rounds", 0, "tree", "nodes", 0, "parent"], 5, "hangs from"),
    (["rounds", 0, "tree", "nodes", 0, "verdict"], "<b>x</b>", "verdict"),
    (["rounds", 0, "tree", "nodes", 0, "ratio"], None, "tried"),
    (["rounds", 0, "tree", "nodes", 0, "token"], 10**6, "outside the vocabulary"),
    (["rounds", 0, "tree", "nodes", 0, "left", "probs"], [0.5], "full distribution"),
    (["rounds", 0, "tree", "rule"], "magic", "rule"),
    (["rounds", 0, "tree", "budget"], 1000, "budget"),
    (["rounds", 0, "tree", "nodes"], "many", "expected a list"),
]


@pytest.mark.parametrize("path, value, words", BAD_TREES)
def test_a_bad_tree_in_a_replay_file_is_one_clear_error(tree_file, path, value, words):
    from test_hostile import mutate

    from specdec.trace.schema import TraceError
    with pytest.raises(TraceError, match=words):
        Run.from_json(mutate(tree_file, path, value))


def test_a_tree_whose_accepted_nodes_are_not_a_branch_is_refused(tree_file):
    import json

    from specdec.trace.schema import TraceError
    data = json.loads(json.dumps(tree_file))
    nodes = data["rounds"][0]["tree"]["nodes"]
    for n in nodes:
        n["verdict"], n["ratio"] = "accepted", n["ratio"] if n["ratio"] is not None else 1.0
    with pytest.raises(TraceError, match="branch|accepted positions"):
        Run.from_json(json.dumps(data))


def test_bench_tree_rows_sit_beside_the_chain_rows(pair):
    """One row per budget and k; greedy tree output identical to every other row; tokens per
    target pass from the same runs."""
    from specdec.bench.runner import bench, tree_row
    result = bench(pair, ["ab(ab", "cab cab"], [2], [0.0], 12, 1, trees=(4, 8))
    rows = {r.row: r for r in result.settings[0].rows}
    assert tree_row(4) in rows and tree_row(8) in rows
    assert result.settings[0].identical is True
    assert all(rows[tree_row(b)].target_forwards_per_token > 0 for b in (4, 8))
