"""Results measured ahead and shipped: found by key and weights content, shown with their origin."""
import json
import os
from dataclasses import replace

import pytest
from streamlit.testing.v1 import AppTest

from specdec.bench.points import Sweep, TempPoint, TempSweep
from specdec.records.provenance import here
from ui.lessons import result_cache, shipped


@pytest.fixture
def places(tmp_path, monkeypatch):
    weights = tmp_path / "models" / "fam" / "draft"
    weights.mkdir(parents=True)
    (weights / "model.safetensors").write_bytes(b"weights one")
    monkeypatch.setattr(shipped, "ASSETS", tmp_path / "models")
    monkeypatch.setattr(result_cache, "ASSETS", tmp_path / "models")
    monkeypatch.setattr(shipped, "SHIPPED_DIR", tmp_path / "shipped")
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path / "local")
    return weights / "model.safetensors"


def sweep(alpha: float = 0.5, seconds: float = 90.0) -> TempSweep:
    point = TempPoint(temperature=0.0, alpha=alpha, acceptance_rate=0.4, mean_acceptance_length=1.5)
    return TempSweep((point,), replace(here(), seconds=seconds))


def test_a_shipped_result_is_found_by_key_and_the_weights_content(places):
    shipped.save("sweep", {"k": 4}, sweep())
    found = shipped.load("sweep", {"k": 4}, TempSweep)
    assert found.points == sweep().points and found.provenance.seconds == 90
    assert found.provenance.cores == os.cpu_count()
    assert shipped.load("sweep", {"k": 5}, TempSweep) is None and shipped.load("other", {"k": 4}, TempSweep) is None
    assert shipped.load("sweep", {"k": 4}, Sweep) is None            # not the record asked for
    os.utime(places, (1, 1))                              # a fresh clone: new mtimes, same bytes
    assert shipped.load("sweep", {"k": 4}, TempSweep) is not None
    places.write_bytes(b"weights two")                    # retrained: the shipped result is stale
    assert shipped.load("sweep", {"k": 4}, TempSweep) is None


@pytest.mark.parametrize("store", [shipped, result_cache])
def test_results_timed_by_an_older_engine_are_not_shown(places, monkeypatch, store):
    store.save("sweep", {"k": 4}, sweep())
    assert store.load("sweep", {"k": 4}, TempSweep) is not None
    monkeypatch.setattr(store, "TIMING_REVISION", store.TIMING_REVISION + 1)
    assert store.load("sweep", {"k": 4}, TempSweep) is None


def test_a_damaged_shipped_file_or_one_of_another_schema_is_ignored(places):
    path = shipped.save("sweep", {"k": 4}, sweep())
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "value": {**data["value"], "schema": 2}}))
    assert shipped.load("sweep", {"k": 4}, TempSweep) is None
    path.write_text("{not json")
    assert shipped.load("sweep", {"k": 4}, TempSweep) is None


def page():
    import streamlit as st

    from specdec.bench.points import TempPoint, TempSweep
    from specdec.records.provenance import here
    from ui.measured import measured
    fresh = TempSweep((TempPoint(temperature=0.0, alpha=0.2, acceptance_rate=0.4, mean_acceptance_length=1.5),),
                      here())
    got = measured("demo", {"a": 1}, lambda progress: fresh, record=TempSweep, button="Measure it",
                   intro="nothing yet")
    st.write(f"result {got.points[0].alpha if got else None}")


def test_the_page_shows_a_shipped_result_with_its_origin_and_measures_here_on_request(places):
    shipped.save("demo", {"a": 1}, sweep(alpha=0.1, seconds=600))
    at = AppTest.from_function(page).run()
    assert "result 0.1" in [m.value for m in at.markdown]
    assert any("Measured ahead" in c.value and "10.0 min" in c.value for c in at.caption)
    assert at.button(key="demo_run").label == "Measure on this machine"
    at.button(key="demo_run").click().run()
    assert not at.exception and "result 0.2" in [m.value for m in at.markdown]
    assert at.button(key="demo_run").label == "Recompute"
    assert not any("Measured ahead" in c.value for c in at.caption)


def test_without_either_result_the_page_asks_to_measure(places):
    at = AppTest.from_function(page).run()
    assert at.button(key="demo_run").label == "Measure it" and "nothing yet" in [m.value for m in at.markdown]
