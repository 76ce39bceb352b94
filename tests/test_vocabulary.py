"""One name and one definition per measured quantity (issue 50): every field of a measurement
record is a quantity of records/vocabulary.py, and the names the lessons used before for
quantities the bench already named are gone from the code."""
import dataclasses
from pathlib import Path

import pytest

from specdec.bench.compared import DrafterPoint
from specdec.bench.many import PromptRun
from specdec.bench.points import Point, TempPoint
from specdec.bench.record import BatchRow, Row
from specdec.bench.where import GroupPoint, KindPoint
from specdec.records.vocabulary import QUANTITIES
from ui.lessons.store import Figure

ROOT = Path(__file__).resolve().parents[1]
# the same quantity under another name, as lesson dicts had it: -> its one name now
SYNONYMS = {"tokens_per_round": "mean_acceptance_length", "theory_speedup": "bound",
            "theory_speedup_v": "bound_with_verify", "paid_speedup": "predicted_run",
            "theory_tokens": "expected_length", "profile_tokens": "profile_length",
            "passes_per_token": "target_forwards_per_token"}


@pytest.mark.parametrize("record", [Row, BatchRow, Point, TempPoint, DrafterPoint, KindPoint, GroupPoint,
                                    PromptRun, Figure], ids=lambda r: r.__name__)
def test_every_field_of_a_measured_point_is_a_quantity_of_the_vocabulary(record):
    assert [f.name for f in dataclasses.fields(record) if f.name not in QUANTITIES] == []


def test_no_synonym_is_a_quantity_and_none_is_left_in_the_code():
    assert not set(SYNONYMS) & set(QUANTITIES) and set(SYNONYMS.values()) <= set(QUANTITIES)
    found = [f"{path.relative_to(ROOT)}: {word}" for folder in ("specdec", "ui", "pages")
             for path in (ROOT / folder).rglob("*.py") if path.name != "vocabulary.py"
             for word in SYNONYMS if f'"{word}"' in path.read_text() or f".{word}" in path.read_text()]
    assert found == []
