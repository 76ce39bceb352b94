"""On a machine of the CPU model that shipped the lessons' results, their figures are this machine's kind's:
shown as measured ("a machine like this one"), the box's answer until this machine measures its own, and
never priced again beside themselves (reviews 22–24: eight figures for one setting). The CPU is stood in,
so the test reads the same branch on any machine."""
import json

from conftest import needs_embedded
from shown import stand_in_cpu

from ui.lessons import badges, shipped

PAIR = ["smollm2/target", "smollm2/draft"]


def first_sweep() -> dict:
    """The k sweep shipped first (no "cpu" of its own in the file) for the default pair at T = 0.7, chats."""
    for path in sorted(shipped.SHIPPED_DIR.glob("ksweep-*.json")):
        data = json.loads(path.read_text())
        key = data["key"]
        if "cpu" not in data and key.get("pair") == PAIR and key.get("T") == 0.7 and key.get("chat"):
            return data
    raise AssertionError("no k sweep shipped for the default pair at T = 0.7")


def texts(at) -> list[str]:
    return [m.value for m in at.markdown] + [c.value for c in at.caption]


@needs_embedded
def test_a_machine_like_the_shipping_one_reads_its_figures_as_measured(monkeypatch, tmp_path):
    from streamlit.testing.v1 import AppTest

    from specdec.bench import machine
    from ui.lessons import result_cache
    from ui.state import DEFAULTS

    from apptest import APP
    sweep = first_sweep()
    cpu = sweep["value"]["provenance"]["cpu"]
    at_4 = next(p for p in sweep["value"]["points"] if p["k"] == 4)
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path)      # nothing measured on this machine
    stand_in_cpu(monkeypatch, cpu)                                   # a machine like the one that shipped them
    widths = {m: 1 + 0.25 * (m - 1) for m in range(1, 18)}
    mine = machine.Profile(cpu, "torch", 1, 10.0, widths, {"smollm2/draft": 0.15, "smollm2/draft-2l": 0.2},
                           9.0, 50.0, 80.0, 135.0)
    monkeypatch.setattr(machine, "of", lambda pair: mine)
    at = AppTest.from_file(APP, default_timeout=300)
    for name in ("k", "temperature", "top_p"):
        at.session_state[name] = DEFAULTS[name]
    at.run()
    like = badges.shipped(cpu)
    assert like.startswith(":blue-badge[")
    said, best = {}, {}
    for page in ("pages/fast.py", "pages/drafters.py", "pages/where.py", "pages/step_through.py"):
        at.switch_page(page).run()
        assert not at.exception, page
        shown = texts(at)
        said[page] = next((m for m in shown if m.startswith("**Does it pay here?**")), None)
        best[page] = [m for m in shown if m.startswith("**Best drafter here**")]
        assert not any("priced again" in m for m in shown), page       # no second figure beside the measured one
        if page == "pages/where.py":
            assert any(m.startswith(like[:-1]) and "Measured by kind:" in m for m in shown)
    # the box: the shipped k sweep's k = 4, as measured on a machine like this one, on every page alike
    verdict = said["pages/fast.py"]
    assert verdict.startswith(f"**Does it pay here?** No: **{at_4['speedup']:.2f}×** the target alone {like[:-1]}")
    assert f"{at_4['speedup_min']:.2f}–" in verdict
    assert said.pop("pages/where.py") is None                          # Where it works has no box
    assert len(set(said.values())) == 1, said
    # the best drafter: measured there, the same sentence on both pages that rank drafters, nothing predicted
    assert best["pages/fast.py"] == best["pages/drafters.py"] and len(best["pages/fast.py"]) == 1
    assert badges.predicted() not in best["pages/fast.py"][0]
    # Drafters compared's table: every row as measured on a machine like this one, fastest first
    at.switch_page("pages/drafters.py").run()
    table = next(m.value for m in at.markdown if m.value.startswith("| drafter | k | speedup | whose |"))
    rows = [r.split(" | ") for r in table.splitlines()[2:]]
    assert rows and all(like[:-1] in r[3] and "not priced here" not in r[3] for r in rows), table
    figures = [float(r[2].strip("*×")) for r in rows if "picked by" not in r[1]]
    assert figures == sorted(figures, reverse=True), table


@needs_embedded
def test_a_setting_measured_here_since_replaces_the_shipped_point_of_a_machine_like_this_one(monkeypatch, tmp_path):
    """After "Measure it here" at the sidebar's settings, the k sweep's and the draft sizes' shipped points of that
    setting show this machine's newer figure, and say so (review 28: the sweep kept 1.08× after 1.01× here)."""
    import time
    from dataclasses import replace
    from types import SimpleNamespace

    from streamlit.testing.v1 import AppTest

    from specdec.bench import machine
    from specdec.records.provenance import Clock
    from specdec.settings import LENGTHS, Settings
    from ui import family, state
    from ui.lessons import fast, result_cache, store

    from apptest import APP
    sweep = first_sweep()
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path)
    stand_in_cpu(monkeypatch, sweep["value"]["provenance"]["cpu"])
    widths = {m: 1 + 0.25 * (m - 1) for m in range(1, 18)}
    mine = machine.Profile(sweep["value"]["provenance"]["cpu"], "torch", 1, 10.0, widths,
                           {"smollm2/draft": 0.15, "smollm2/draft-2l": 0.2}, 9.0, 50.0, 80.0, 135.0)
    monkeypatch.setattr(machine, "of", lambda pair: mine)
    run = replace(Settings(), max_new_tokens=LENGTHS.speed)           # the box's run: the sidebar's defaults
    key = fast.ksweep_figure(tuple(PAIR), run, family.speed_set(True), state.ran())(SimpleNamespace(k=4,
                                                                                                    clock=Clock.WALL))
    figure = store.Figure(speedup=0.5, speedup_min=0.45, speedup_max=0.55, clock=Clock.WALL, repeats=3,
                          mean_acceptance_length=1.8)
    result_cache.save(store.KIND, store._as_dict(key), store.Filed(figure, "box", time.time()))
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    at.switch_page("pages/fast.py").run()
    assert not at.exception
    verdict = next(m.value for m in at.markdown if m.value.startswith("**Does it pay here?**"))
    assert verdict.startswith(f"**Does it pay here?** No: **0.50×** the target alone {badges.here()}"), verdict
    said = [c.value for c in at.caption if "shows the newer run of the same setting and prompts" in c.value]
    assert any(c.startswith("k = 4:") and "“Measure it here”" in c for c in said), said          # the k sweep
    assert any(c.startswith("smollm2/draft:") and "“Measure it here”" in c for c in said), said  # the draft sizes
    kept = [k for k, _e in result_cache.kept(store.KIND, store.Filed)]
    assert len(kept) == 1                                  # the shipped points were not filed as this machine's
