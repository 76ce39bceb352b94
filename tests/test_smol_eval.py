"""The SmolLM2 model card's computed parts: vocabulary coverage and the per-kind table."""
from types import SimpleNamespace

import torch

from specdec.train.smol_eval import coverage, gpu_line, kind_table


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
    rows[0]["agreement_by_kind"] = {"creative": 0.25, "code": 0.625, "edit": 0.5}
    table = kind_table(rows, per_kind=4)
    assert "4 prompts a kind" in table[1]
    assert table[3] == "| kind | smollm2/draft | n-gram lookup |"
    assert [line.split(" | ")[0] for line in table[5:8]] == ["| code", "| edit", "| creative"]
    assert table[6] == "| edit | 50.0 % · 1.50 / 0.75× | 2.00 / 1.00× |"
    assert table[-1] == "`smollm2/draft`'s greedy agreement runs from 25.0 % on creative to 62.5 % on code."


def test_the_card_adds_up_the_gpu_runs_behind_a_draft():
    runs = [{"device": "NVIDIA H200", "seconds": 460, "answers": 11118, "answer_tokens": 1708263,
             "steps": 2408, "positions": 17014688, "held_out_before": 0.505, "held_out_after": 0.61},
            {"device": "NVIDIA H200", "seconds": 265, "answers": 6017, "answer_tokens": 952971,
             "steps": 1222, "positions": 8614243, "held_out_before": 0.611, "held_out_after": 0.634}]
    line = gpu_line(runs)
    assert "2 runs on one NVIDIA H200 (725 s in all: 17,135 answers, 2,661,234 answer tokens" in line
    assert "3,630 steps over 25,628,931 positions" in line and "0.505 before, 0.634 after" in line
    assert gpu_line([]) == ""


def test_the_committed_model_card_shows_the_committed_measurements(monkeypatch):
    """The card is rendered from eval.json beside it: a card edited or re-measured without
    the other file would disagree here."""
    import json
    from pathlib import Path
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)     # the card's paths are the repo's
    from specdec.train.smol_eval import CARD, MEASURED, card, training_records
    measured = json.loads(MEASURED.read_text())
    assert measured["rows"][0]["draft"] == "smollm2/draft"
    assert card(measured, training_records()) == CARD.read_text()
