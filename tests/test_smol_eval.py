"""The SmolLM2 model card's computed parts: vocabulary coverage and the per-kind table."""
from types import SimpleNamespace

import torch

from specdec.train.smollm2.evaluate import coverage
from specdec.train.smollm2.model_card import gpu_line, kind_table


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
    from specdec.train.smollm2.model_card import CARD, MEASURED, card, training_records
    measured = json.loads(MEASURED.read_text())
    assert measured["rows"][0]["draft"] == "smollm2/draft"
    assert card(measured, training_records()) == CARD.read_text()


def test_agreement_after_a_hit_or_a_miss_and_the_first_check_of_a_round():
    from specdec.train.smollm2.evaluate import share, share_after
    from specdec.train.smollm2.model_card import position_line
    hits = [[True, True, False, False, True], [False, True]]
    assert share(hits) == 4 / 7
    # pairs (previous, this): T-T, T-F, F-F, F-T in the first answer, F-T in the second
    assert share_after(hits, True) == 1 / 2
    assert share_after(hits, False) == 2 / 3
    row = {"draft": "d", "agreement_after_hit": 0.576, "agreement_after_miss": 0.394,
           "T0": {"per_check": [0.40, 0.48, 0.53]}}
    assert position_line(row) == ("`d`, teacher-forced, agrees with the target on 57.6 % of the positions "
                                  "right after one it got right and on 39.4 % right after one it missed. "
                                  "A round's first draft follows a rejection or a bonus token: at T = 0 it "
                                  "was accepted 40.0 % of the time, a draft after accepted ones 48.0 %–53.0 %.")
    assert position_line({"draft": "n-gram", "T0": {}}) == ""


def test_runs_merge_into_medians_with_their_range_and_different_counts_are_refused():
    import pytest

    from specdec.train.smollm2.model_card import _speed, merge

    def run(speed, accepted=0.2, date="2026-12-01"):
        t = {"acceptance_rate": accepted, "speedup": speed, "tokens_per_s": 10 * speed,
             "by_kind": {"code": {"speedup": speed + 0.1}}}
        return {"prompts": 4, "max_new_tokens": 8, "k": 4, "date": date, "target_step_ms": 50.0,
                "rows": [{"draft": "d", "c": 0.05, "T0": dict(t), "T1": dict(t)}]}
    merged = merge([run(1.46), run(1.26), run(1.30)])
    t0 = merged["rows"][0]["T0"]
    assert merged["runs"] == 3 and t0["speedup"] == 1.30 and t0["speedup_range"] == [1.26, 1.46]
    assert t0["by_kind"]["code"]["speedup"] == pytest.approx(1.40) and t0["tokens_per_s"] == 13.0
    assert _speed(t0) == "1.30× (1.26–1.46)" and _speed({"speedup": 1.3}) == "1.30×"
    with pytest.raises(ValueError, match="accepted differently"):
        merge([run(1.4), run(1.3, accepted=0.25)])
