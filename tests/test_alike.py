"""On a machine of the CPU model that shipped the lessons' results, their figures are this machine's kind's:
shown as measured ("a machine like this one"), the box's answer until this machine measures its own, and
never priced again beside themselves (reviews 22–24: eight figures for one setting). The CPU is stood in,
so the test reads the same branch on any machine."""
import json
import re

from conftest import needs_embedded
from shown import shown_files, stand_in_cpu

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


def like_machine_app(monkeypatch, tmp_path, cpu: str):
    """The app on a machine of `cpu`'s model with nothing measured here and this machine's prices by hand
    (c = 0.15, v(2) = 1.25: k = 1 pays most), run once at the sidebar's defaults."""
    from streamlit.testing.v1 import AppTest

    from specdec.bench import machine
    from ui.lessons import result_cache
    from ui.state import DEFAULTS

    from apptest import APP
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path)      # nothing measured on this machine
    stand_in_cpu(monkeypatch, cpu)                                   # a machine like the one that shipped them
    widths = {m: 1 + 0.25 * (m - 1) for m in range(1, 18)}
    mine = machine.Profile(cpu, "torch", 1, 10.0, widths, {"smollm2/draft": 0.15, "smollm2/draft-2l": 0.2},
                           9.0, 50.0, 80.0, 135.0)
    monkeypatch.setattr(machine, "of", lambda pair: mine)
    at = AppTest.from_file(APP, default_timeout=300)
    for name in ("k", "temperature", "top_p"):
        at.session_state[name] = DEFAULTS[name]
    return at.run()


@needs_embedded
def test_a_machine_like_the_shipping_one_reads_its_figures_as_measured(monkeypatch, tmp_path):
    sweep = first_sweep()
    cpu = sweep["value"]["provenance"]["cpu"]
    at_4 = next(p for p in sweep["value"]["points"] if p["k"] == 4)
    at = like_machine_app(monkeypatch, tmp_path, cpu)
    like = badges.shipped(cpu)
    assert like.startswith(":blue-badge[")
    said, best = {}, {}
    for page in ("pages/fast.py", "pages/drafters.py", "pages/where.py", "pages/step_through.py"):
        at.switch_page(page).run()
        assert not at.exception, page
        shown = texts(at)
        said[page] = next((m for m in shown if m.startswith("**Does it pay here?**")), None)
        best[page] = [m for m in shown if m.startswith(("**Best drafter here**", "**What pays",
                                                           "**Nearest to paying"))]
        assert not any("priced again" in m for m in shown), page       # no second figure beside the measured one
        if page == "pages/where.py":
            assert any(m.startswith(like[:-1]) and "Measured by kind:" in m for m in shown)
            assert "Rare tokens" in [h.value for h in at.header]               # the default pair's draft: its bands
            assert any(m.startswith("Where the draft tried, it guessed") and "outside its vocabulary" in m
                       for m in shown)
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
    said = [c.value for c in at.caption if "shows the run of the same setting and prompts by" in c.value]
    box = "the “Does it pay here?” box"
    assert any(c.startswith("k = 4:") and box in c for c in said), said              # the k sweep
    assert any(c.startswith("smollm2/draft:") and box in c for c in said), said      # the draft sizes
    kept = [k for k, _e in result_cache.kept(store.KIND, store.Filed)]
    assert len(kept) == 1                                  # the shipped points were not filed as this machine's
    # the sweep's pointer to the card names the row of the figure its chart now draws at k = 4, this machine's
    # (review 55: "on the pair card: row 5", the shipped 0.74×, under a chart plotting the 0.78× measured here)
    from ui import pair_card_view
    pointer = next(c.value for c in at.caption if c.value.startswith("T = 0.7, k = 4 on the pair card"))
    row = at.session_state[pair_card_view.SHOWN][int(pointer.split("row ")[1].split()[0]) - 1]
    assert row.whose == badges.here() and "0.50" in row.figure, (pointer, row)


def test_the_bench_shipped_from_this_cpu_model_is_the_one_the_pages_read(monkeypatch, tmp_path):
    """Two benches shipped from two CPU models: a machine of either model reads its own (as measured);
    a third model reads the first shipped, "for comparison" (issue 51: a figure from another machine is
    never the headline where this machine's kind has one)."""
    from dataclasses import replace

    from specdec.bench.record import Bench
    from ui.lessons import fast
    shipped_one = Bench.from_json(fast.SHIPPED_BENCH.read_bytes())
    first, second = tmp_path / "best-baseline.json", tmp_path / "best-baseline-zen4.json"
    for path, cpu in ((first, "Xeon X"), (second, "EPYC Y")):
        path.write_text(replace(shipped_one, provenance=replace(shipped_one.provenance, cpu=cpu)).to_json())
    (tmp_path / "best-baseline-broken.json").write_text("{")            # unreadable: never chosen, no error
    monkeypatch.setattr(fast, "SHIPPED_BENCH", first)
    monkeypatch.setattr(fast, "BENCH_FILE", tmp_path / "none.json")
    for cpu, path in (("EPYC Y", second), ("Xeon X", first), ("Third Z", first)):
        stand_in_cpu(monkeypatch, cpu)
        assert fast.shipped_bench() == path
        assert fast.read_bench(None)[0].provenance.cpu == ("Xeon X" if path == first else "EPYC Y")
    stand_in_cpu(monkeypatch, "EPYC Y")
    assert "a machine like this one" in badges.shipped(fast.read_bench(None)[0].provenance.cpu)


@needs_embedded
def test_where_nothing_pays_at_the_sidebars_k_one_click_shows_the_comparison_at_the_k_that_pays(monkeypatch, tmp_path):
    """Where it works and Drafters compared rank at the sidebar's k (4), where nothing pays on the shipping
    CPU; a button sets the sidebar's k to the k this machine's prices pick, and the pages then read the
    comparisons shipped at that k (review 26: every comparison at k = 4)."""
    from ui.state import DEFAULTS
    at_1 = [f for f in shown_files("where") if f["key"]["settings"]["k"] == 1 and f["key"]["pair"] == PAIR]
    assert at_1, "no Where it works shipped at k = 1 for the default pair"
    cpu = at_1[0]["value"]["provenance"]["cpu"]                    # a machine like the one that shipped it
    at = like_machine_app(monkeypatch, tmp_path, cpu)
    for page, key in (("pages/where.py", "where_picked_k"), ("pages/drafters.py", "drafters_picked_k")):
        at.session_state["k"] = DEFAULTS["k"]
        at.switch_page(page).run()
        assert not at.exception, page
        button = at.button(key=key)
        assert button.label == "Show it at k = 1, the k this machine's prices pick"
        button.click().run()
        assert not at.exception and at.session_state["k"] == 1
        assert not [b for b in at.button if b.key == key]                # at that k: nothing more to offer
        shown = texts(at)
        assert not any(m.startswith(("Measure on this machine", "Run the comparison")) for m in shown)
        if page == "pages/where.py":                                     # the kinds shipped at k = 1, as measured
            assert any(m.startswith("At k = 1, T = 0.7") for m in shown)
            assert any("Measured by kind:" in m and badges.shipped(cpu)[:-1] in m for m in shown), shown
        else:                                                            # the drafters shipped at k = 1
            table = next(m for m in shown if m.startswith("| drafter | k | speedup | whose |"))
            assert "| 1 |" in table and "| 4 |" not in table, table


def test_a_k_this_machine_never_ran_reads_its_kinds_benchmark_before_another_cpus_sweep(monkeypatch):
    """Review 42: Home's box named "a constant k = 1, measured: 1.07×" from a k sweep shipped from an AMD EPYC
    while the benchmark shipped from this CPU model had 1.01× at those settings. A figure of this machine's kind
    comes first; another CPU's sweep only where this kind has none."""
    from types import SimpleNamespace

    from specdec.settings import Settings
    from ui import payoff_answer, session
    stand_in_cpu(monkeypatch, "Xeon X")
    pair = SimpleNamespace(target_name="t", draft_name="d")
    monkeypatch.setattr(session, "uses_chat", lambda pair: False)
    monkeypatch.setattr(payoff_answer, "measured", lambda names, at: (None, None))      # nothing ran here
    point = SimpleNamespace(speedup=1.07, speedup_min=1.05, speedup_max=1.09)
    monkeypatch.setattr(payoff_answer, "swept_point", lambda names, at, chat: (point, "EPYC Y", "2026-12-01"))
    settings = Settings(temperature=0.0)
    for bench_cpu, figure in (("Xeon X", 1.01), (None, 1.01), ("EPYC Y", 1.07), ("Third Z", 1.07)):
        monkeypatch.setattr(payoff_answer, "benched", lambda names, at, c=bench_cpu: (1.01, c, "the benchmark"))
        assert payoff_answer.at_k(pair, settings, 1)[0] == figure, bench_cpu        # None: kept here
    assert shipped.alike("Xeon X") and not shipped.alike("EPYC Y")
    monkeypatch.setattr(payoff_answer, "swept_point", lambda names, at, chat: (point, "Xeon X", "2026-12-01"))
    assert payoff_answer.at_k(pair, settings, 1)[0] == 1.07                 # a sweep of this kind: before the bench
    monkeypatch.setattr(payoff_answer, "swept_point", lambda names, at, chat: (None, None, None))
    assert payoff_answer.at_k(pair, settings, 1)[0] == 1.01                 # no sweep: the benchmark


@needs_embedded
def test_the_draft_size_chart_gives_the_boxs_figure_for_the_pairs_draft_at_the_same_setting(monkeypatch, tmp_path):
    """Review 43: on a machine like the one that shipped both, When it is fast's box said 0.74× (the k sweep, one
    day) and its draft-size chart 0.76× for the same draft, setting and prompts (another day's run): the chart now
    shows the k sweep's figure, and says so."""
    from streamlit.testing.v1 import AppTest

    from ui.lessons import result_cache

    from apptest import APP
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path)       # nothing measured here
    def cpus(kind: str) -> set:
        return {json.loads(p.read_text())["value"]["provenance"]["cpu"] for p in shipped.SHIPPED_DIR.glob(
            f"{kind}-*.json")}
    for cpu in sorted(cpus("tradeoff") & cpus("ksweep")):
        stand_in_cpu(monkeypatch, cpu)
        at = AppTest.from_file(APP, default_timeout=300).run().switch_page("pages/fast.py").run()
        assert not at.exception
        verdict = next(m.value for m in at.markdown if m.value.startswith("**Does it pay here?**"))
        figure = float(re.search(r"\*\*([0-9.]+)×\*\* the target alone", verdict).group(1))
        said = [c.value for c in at.caption if c.value.startswith("smollm2/draft: shows the run of the same setting")]
        assert said and "the k sweep (section 2)" in said[0], (cpu, said)
        specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
        bars = next(d for d in specs if "speedup by draft size" in d["layout"]["title"]["text"].lower())
        ys = [round(y, 2) for trace in bars["data"] for y in (trace.get("y") or []) if isinstance(y, float)]
        assert figure in ys, (cpu, figure, ys)
