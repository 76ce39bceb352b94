"""Results measured ahead and shipped: found by key and weights content, shown with their origin."""
import os

import pytest
from streamlit.testing.v1 import AppTest

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


def test_a_shipped_result_is_found_by_key_and_the_weights_content(places):
    shipped.save("sweep", {"k": 4}, [{"speedup": 1.2}], seconds=90)
    value, where = shipped.load("sweep", {"k": 4})
    assert value == [{"speedup": 1.2}] and where["seconds"] == 90 and where["cores"] == os.cpu_count()
    assert shipped.load("sweep", {"k": 5}) is None and shipped.load("other", {"k": 4}) is None
    os.utime(places, (1, 1))                              # a fresh clone: new mtimes, same bytes
    assert shipped.load("sweep", {"k": 4}) is not None
    places.write_bytes(b"weights two")                    # retrained: the shipped result is stale
    assert shipped.load("sweep", {"k": 4}) is None


@pytest.mark.parametrize("store", [shipped, result_cache])
def test_results_timed_by_an_older_engine_are_not_shown(places, monkeypatch, store):
    if store is shipped:
        shipped.save("sweep", {"k": 4}, [1], seconds=1)
    else:
        result_cache.save("sweep", {"k": 4}, [1])
    assert store.load("sweep", {"k": 4}) is not None
    monkeypatch.setattr(store, "TIMING_REVISION", store.TIMING_REVISION + 1)
    assert store.load("sweep", {"k": 4}) is None


def test_a_damaged_shipped_file_is_ignored(places):
    path = shipped.save("sweep", {"k": 4}, [1], seconds=1)
    path.write_text("{not json")
    assert shipped.load("sweep", {"k": 4}) is None


def page():
    import streamlit as st

    from ui.measured import measured
    got = measured("demo", {"a": 1}, lambda progress: {"x": 2}, button="Measure it", intro="nothing yet")
    st.write(f"result {got}")


def test_the_page_shows_a_shipped_result_with_its_origin_and_measures_here_on_request(places):
    shipped.save("demo", {"a": 1}, {"x": 1}, seconds=600)
    at = AppTest.from_function(page).run()
    assert "result {'x': 1}" in [m.value for m in at.markdown]
    assert any("Measured ahead" in c.value and "10.0 min" in c.value for c in at.caption)
    assert at.button(key="demo_run").label == "Measure on this machine"
    at.button(key="demo_run").click().run()
    assert not at.exception and "result {'x': 2}" in [m.value for m in at.markdown]
    assert at.button(key="demo_run").label == "Recompute"
    assert not any("Measured ahead" in c.value for c in at.caption)


def test_without_either_result_the_page_asks_to_measure(places):
    at = AppTest.from_function(page).run()
    assert at.button(key="demo_run").label == "Measure it" and "nothing yet" in [m.value for m in at.markdown]
