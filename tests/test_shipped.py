"""Results measured ahead and shipped: found by key and weights content, shown with their origin."""
import json
import os
from dataclasses import replace

import pytest
from streamlit.testing.v1 import AppTest

from specdec.bench.points import Sweep, TempPoint, TempSweep
from specdec.records.provenance import here
from ui.lessons import badges, result_cache, shipped
from ui.lessons.bench_words import machine_name


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


def test_a_second_cpu_model_ships_beside_the_first_and_each_machine_reads_its_own(places, monkeypatch):
    """Sessions run on machines of several CPU models: each ships its own result for a key beside the first
    one, and a machine reads its CPU model's where there is one, else the first (one a key, in all_of too)."""
    def on(cpu: str, alpha: float) -> TempSweep:
        made = sweep(alpha)
        return replace(made, provenance=replace(made.provenance, cpu=cpu))
    monkeypatch.setattr(shipped, "cpu_model", lambda: "CPU A (family 1, model 1)")
    first = shipped.save("sweep", {"k": 4}, on("CPU A (family 1, model 1)", 0.5))
    assert first == shipped.path_for("sweep", {"k": 4})                               # the key's first result
    again = shipped.save("sweep", {"k": 4}, on("CPU A (family 1, model 1)", 0.55))     # the same CPU: replaced
    assert again == first and shipped.load("sweep", {"k": 4}, TempSweep).points[0].alpha == 0.55
    beside = shipped.save("sweep", {"k": 4}, on("CPU B (family 2, model 2)", 0.6))     # another CPU model
    assert beside != first and first.is_file()
    assert shipped.load("sweep", {"k": 4}, TempSweep).points[0].alpha == 0.55         # machine A reads A's
    assert [r.points[0].alpha for _k, r in shipped.all_of("sweep", TempSweep)] == [0.55]
    monkeypatch.setattr(shipped, "cpu_model", lambda: "CPU B (family 2, model 2)")
    assert shipped.load("sweep", {"k": 4}, TempSweep).points[0].alpha == 0.6          # machine B reads B's
    assert [r.points[0].alpha for _k, r in shipped.all_of("sweep", TempSweep)] == [0.6]
    monkeypatch.setattr(shipped, "cpu_model", lambda: "CPU C (family 3, model 3)")
    assert shipped.load("sweep", {"k": 4}, TempSweep).points[0].alpha == 0.55         # a third: the first
    assert [r.points[0].alpha for _k, r in shipped.all_of("sweep", TempSweep)] == [0.55]   # whichever file sorts first


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
    assert any("Shipped: measured on" in c.value and "10.0 min" in c.value for c in at.caption)
    assert at.button(key="demo_run").label == "Measure on this machine"
    at.button(key="demo_run").click().run()
    assert not at.exception and "result 0.2" in [m.value for m in at.markdown]
    assert at.button(key="demo_run").label == "Recompute"
    assert not any("Shipped: measured on" in c.value for c in at.caption)


def test_without_either_result_the_page_asks_to_measure(places):
    at = AppTest.from_function(page).run()
    assert at.button(key="demo_run").label == "Measure it" and "nothing yet" in [m.value for m in at.markdown]


def test_a_sidebar_temperature_other_than_the_shipped_one_still_shows_the_shipped_sweeps(tiny_dirs, monkeypatch,
                                                                                          tmp_path):
    """When it is fast, sections 2-3 (issue 51, deliverable 6): the k sweep and the draft sizes
    shipped at T = 0.7 stay in view, labelled with their CPU and T, beside the learner's own sweep
    at the sidebar's T = 0.3."""
    import torch

    from specdec import defaults
    from specdec.bench.points import Sweep
    from specdec.settings import Settings
    from ui import family
    from ui.lessons import store

    from apptest import app
    monkeypatch.setattr(shipped, "SHIPPED_DIR", tmp_path / "shipped")
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path / "kept")
    real = shipped.read(next(shipped.ROOT.glob("assets/results/ksweep-*.json")), Sweep)   # a real shipped sweep
    best = max(real.points, key=lambda p: p.speedup)
    at = app(tiny_dirs, page=None, temperature=0.3)
    names, texts = at.session_state["active_pair"], family.speed_prompts(False)[0]
    ran = store.Ran(threads=torch.get_num_threads())

    def key(t):
        s = Settings(temperature=t, max_new_tokens=defaults.LENGTHS.speed)
        return store.measurement("ksweep", names, s, texts, False, ran, repeats=defaults.REPEATS)
    shipped.save("ksweep", key(0.7), real)
    stdlib = shipped.ROOT / "assets/results/tradeoff-92f19d842d9e4d11.json"     # the stdlib family's draft sizes
    (tmp_path / "shipped" / stdlib.name).write_bytes(stdlib.read_bytes())         # shipped at k = 4, T = 0.7
    sizes = shipped.read(stdlib, Sweep)
    fastest = max(sizes.points, key=lambda p: p.speedup)
    result_cache.save("ksweep", key(0.3), real)                 # the learner's own, at T = 0.3
    at.switch_page("pages/fast.py").run()
    assert not at.exception
    captions = [c.value for c in at.caption]
    there = machine_name(sizes.provenance.cpu)                  # this CPU's model or another (the session's machine)
    assert any(f"shipped with the app: measured on {there} at T = 0.7" in c for c in captions)
    assert any(f"best **{best.speedup:.2f}×** at k = {best.k}" in m.value for m in at.markdown)
    assert any(m.value.startswith("α̂") and f"speedup {badges.here()} **" in m.value for m in at.markdown)  # the
    # learner's own beside it
    # section 3 (a pair outside the families measures the stdlib family's sizes): its shipped result too
    assert any(f"measured on {there} at T = 0.7, k = 4 (your sidebar: T = 0.3" in c for c in captions)
    assert any(f"**{fastest.speedup:.2f}×**" in m.value and m.value.startswith("There: the fastest")
               for m in at.markdown)
