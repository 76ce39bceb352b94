"""The SmolLM2 model card's computed parts: vocabulary coverage and the per-kind table."""
from types import SimpleNamespace

import torch

from specdec.train.smol_eval import coverage, kind_table


def test_coverage_counts_the_answer_tokens_inside_the_drafts_vocabulary():
    pair = SimpleNamespace(draft=SimpleNamespace(keep_ids=torch.tensor([1, 2, 3])))
    assert coverage(pair, [[1, 2, 9], [3, 7]]) == (3, 3 / 5)


def test_kinds_are_ranked_by_the_first_drafts_acceptance_length_and_early_exit_is_left_out():
    def row(name, lengths):
        return {"draft": name, "T0": {"by_kind": {k: {"mean_acceptance_length": v, "speedup": v / 2}
                                                  for k, v in lengths.items()}}}
    rows = [row("smollm2/draft", {"creative": 1.1, "code": 1.9, "edit": 1.5}),
            row("early exit after layer 4", {"creative": 1.0, "code": 1.0, "edit": 1.0}),
            row("n-gram lookup", {"creative": 1.0, "code": 1.2, "edit": 2.0})]
    table = kind_table(rows)
    assert table[3] == "| kind | smollm2/draft | n-gram lookup |"
    assert [line.split(" | ")[0] for line in table[5:]] == ["| code", "| edit", "| creative"]
    assert table[6] == "| edit | 1.50 / 0.75× | 2.00 / 1.00× |"
