"""The measuring pages: Why it is exact, When it is fast, Where it works, Drafters compared
(AppTest, tiny models)."""
import json
import re
from pathlib import Path

import pytest
from conftest import needs_embedded
from shown import shown_files, stand_in_cpu
from streamlit.testing.v1 import AppTest

from ui.lessons import badges
from ui.lessons.payoff_words import answer_word

from apptest import APP, app


def test_exact_page_toy_and_real_views(tiny_dirs):
    at = app(tiny_dirs, page="pages/exact.py", temperature=0.8, top_p=1.0, k=3)
    assert any("Toy view" in h.value for h in at.header)
    at.selectbox(key="toy_preset").set_value("Disjoint (β = 0)").run()
    assert any("β = Σ min(p, q) = **0.000**" in m.value for m in at.markdown)
    at.select_slider(key="exact_n").set_value(1000).run()
    at.radio(key="exact_rule").set_value("resample_p").run()
    at.button(key="exact_go").click().run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "1000 rounds" in text and "p-value" in text
    assert any("Notice where this wrong rule's bars leave" in c.value for c in at.caption)
    at.radio(key="exact_rule").set_value("correct").run()
    at.button(key="exact_go").click().run()                    # the right rule: no wrong bars to point at
    said = " ".join(c.value for c in at.caption)
    assert "pick a wrong rule above to see them leave" in said and "Notice where" not in said


def test_fast_page_theory_sliders_and_a_measurement(tiny_dirs, monkeypatch, tmp_path):
    from specdec import defaults
    from ui.lessons import fast, result_cache
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path)
    monkeypatch.setattr(defaults, "REPEATS", 1)                # the sweep's path, not its statistics
    from ui import family
    real = family.speed_prompts
    monkeypatch.setattr(family, "speed_prompts", lambda chat, n=8: real(chat, 2))   # 2 prompts, not 8
    from ui.lessons import speed_prompts as speed  # speed_set's own, for the figures' keys
    monkeypatch.setattr(speed, "speed_prompts", family.speed_prompts)
    monkeypatch.setattr(fast, "BENCH_FILE", tmp_path / "bench.json")
    (tmp_path / "bench.json").write_text("{not json")            # a broken local file: a message
    at = app(tiny_dirs, page="pages/fast.py", temperature=0.8, k=2)
    for key, value in (("fast_alpha", 0.9), ("fast_k", 6), ("fast_c", 0.05)):
        at.slider(key=key).set_value(value).run()
        assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Expected speedup"] == "4.01×"      # (1 − 0.9^7) / (0.1 · 1.3) by hand
    assert any("not the JSON of `python -m specdec bench --json`" in e.value for e in at.error)
    at.slider(key="fast_eps").set_value(0.1).run()      # a (k+1)-token pass costs 1 + 6·0.1 steps
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Expected speedup"] == "2.75×"      # (1 − 0.9^7) / (0.1 · 1.9) by hand
    at.button(key="ksweep_run").click().run()
    assert not at.exception
    line = next(m.value for m in at.markdown if m.value.startswith("α̂"))
    # the best k's word by the box's rule, from its own figure and range (review 29: "best 1.03×" beside "Break-even")
    best = re.search(r"best measured speedup " + re.escape(badges.here()) + r" \*\*([\d.]+)×\*\* at k = \d+ "
                     r"\(median of \d+ interleaved repeats, ([\d.]+)–([\d.]+)×\): ([^·]+) ·", line)
    assert best and best.group(4).strip() == answer_word(*(float(best.group(i)) for i in (1, 2, 3))), line
    assert any("tokens cost v(k + 1) target steps" in m.value for m in at.markdown)
    texts = [m.value for m in [*at.markdown, *at.caption]]
    assert any("reading the prompt costs" in t and "It lands within" in t for t in texts)
    assert list(tmp_path.glob("ksweep-*.json"))          # cached on disk for the next visit


def test_where_page_runs_a_subset_and_drills_down(tiny_dirs, monkeypatch, tmp_path):
    from ui.lessons import result_cache
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path)
    at = app(tiny_dirs, page="pages/where.py", temperature=0.8, k=2)
    at.multiselect(key="where_kinds_sel").set_value(["repetitive"]).run()
    at.button(key="where_run").click().run()
    assert not at.exception
    assert any("By kind of text" in h.value for h in at.header)
    table = next(d.value for d in at.dataframe if "speedup min" in d.value.columns)
    assert list(table["kind"]) == ["repetitive"]
    assert (table["speedup min"] <= table["speedup"]).all() and (table["speedup"] <= table["speedup max"]).all()
    at.button(key="where_tokens").click().run()
    assert not at.exception
    assert list(tmp_path.glob("where-*.json"))          # kept on disk (JSON): a new visit shows it
    again = app(tiny_dirs, page="pages/where.py", temperature=0.8, k=2)
    again.multiselect(key="where_kinds_sel").set_value(["repetitive"]).run()
    shown = next(d.value for d in again.dataframe if "speedup min" in d.value.columns)
    assert shown.equals(table)
    at.slider(key="k").set_value(3).run()               # a change of k needs a new run
    assert not any("By kind of text" in h.value for h in at.header)


@needs_embedded
def test_drafters_page_compares_on_the_embedded_family(monkeypatch, tmp_path):
    """On the fast embedded family (stdlib: three drafts, n-gram, early exit, two policies), one
    repeat: the page's measure -> tables -> winners path (the real pair took 3 minutes here)."""
    from specdec import defaults
    from ui.catalog import CHOICES
    from ui.lessons import result_cache
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path)
    monkeypatch.setattr(defaults, "REPEATS", 1)
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["pair_label"] = next(c.label for c in CHOICES if c.target == "stdlib/target")
    at.session_state["k"] = 2
    at.session_state["temperature"] = 1.0
    at.run()
    at.switch_page("pages/drafters.py").run()
    at.slider(key="drafters_n").set_value(2).run()
    at.button(key="drafters_run").click().run()
    assert not at.exception
    assert any("Winner per kind" in s.value for s in at.subheader)


@pytest.mark.parametrize("drafter, shown", [(None, "d"), ("early-exit", "early exit after layer 4")])
def test_fast_page_shows_a_local_benchmark(tiny_dirs, monkeypatch, tmp_path, drafter, shown):
    """A file without --drafter (no such key: the draft model) names its draft model; an
    early-exit bench names the drafter and transformers' counterpart it ran."""
    from specdec.bench.runner import ROWS
    from ui.lessons import fast
    rows = [{"row": name, "tokens_per_s": 100.0 + i, "speedup": 1.0 + i / 10, "bound": 1.5,
             "bound_with_verify": 1.2} for i, name in enumerate(ROWS)]
    result = {"schema": 3, "record": "Bench", "target": "t", "draft": "d", "prompts": 3, "max_new_tokens": 8,
              "repeats": 1, "c": 0.2,
              "settings": [{"temperature": 0.0, "k": 2, "verify_cost": 1.3, "rows": rows}]}
    if drafter:
        result.update(drafter=drafter, exit_layer=4, library_drafting="assistant_early_exit = 4")
    (tmp_path / "bench.json").write_text(json.dumps(result))
    monkeypatch.setattr(fast, "BENCH_FILE", tmp_path / "bench.json")
    at = app(tiny_dirs, page="pages/fast.py")
    assert not at.exception and not at.error
    assert any(f"t ← {shown}, 3 prompts × 8 tokens" in c.value for c in at.caption)
    assert any("counterpart: assistant\\_early\\_exit = 4" in c.value for c in at.caption) == bool(drafter)
    table = [d for d in at.dataframe if len(d.value) == len(ROWS)]
    from ui.lessons.bench_words import bench_row
    assert list(table[0].value["row"]) == [bench_row(r) for r in ROWS]          # the baseline as "the target alone"
    assert table[0].value["row"][0] == "engine, target alone"
    drafts_k = {"engine speculative", "transformers assisted (k, constant)", "llama.cpp prompt lookup (k)"}
    v = table[0].value["v (pass cost in steps)"]
    assert [x == 1.3 for x in v] == [name in drafts_k for name in ROWS]     # the rows that ignore k have no pass


def test_fast_page_shows_the_shipped_benchmark_against_the_fastest_plain_ways(tiny_dirs, monkeypatch, tmp_path):
    """No bench here: the shipped one, said to be shipped (CPU, threads, precision), with each
    setting's line computed from its rows."""
    from ui.lessons import fast
    monkeypatch.setattr(fast, "BENCH_FILE", tmp_path / "none.json")
    stand_in_cpu(monkeypatch, "CPU here")            # of a model that shipped no bench: the first one shipped
    from specdec.bench.record import Bench, RowKind
    shipped = Bench.from_json(fast.SHIPPED_BENCH.read_bytes())
    at = app(tiny_dirs, page="pages/fast.py")
    assert not at.exception and not at.error
    # the shipped file: measured on a 2-core Intel Xeon (AVX-512), the target on torch in intdot, llama.cpp beside it
    assert shipped.provenance.cpu.startswith("Intel(R) Xeon(R)") and shipped.provenance.backend == "torch"
    assert any("Shipped with the lab, measured on" in c.value and "Xeon" in c.value and "integer sums" in c.value
               for c in at.caption)
    table = next(d.value for d in at.dataframe if "fastest way" in d.value.columns)
    assert len(table) == len(shipped.settings) and "transformers" in table.columns
    llama = shipped.settings[0].row(RowKind.LLAMA)                    # the yardstick, its rate
    assert table["llama.cpp"].iloc[0] == f"{llama.tokens_per_s:.1f}"
    assert not any("the target ran on ONNX Runtime" in c.value for c in at.caption)


def test_where_page_shows_the_shipped_real_pair_result_with_what_its_positions_say(monkeypatch, tmp_path):
    """The default pair and settings find the result shipped in assets/results; its rounds are
    enough for the per-position caption, computed from them."""
    from specdec.bench import machine
    from ui.lessons import result_cache
    from ui.state import DEFAULTS
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path)      # nothing measured here
    stand_in_cpu(monkeypatch, "CPU here")                            # of a model that shipped nothing
    widths = {m: 1 + 0.25 * (m - 1) for m in range(1, 18)}        # v(5) = 2.0
    mine = machine.Profile("CPU here", "torch", 1, 10.0, widths, {"smollm2/draft": 0.25})   # by hand
    monkeypatch.setattr(machine, "of", lambda pair: mine)
    at = AppTest.from_file(APP, default_timeout=300)
    for name in ("k", "temperature", "top_p"):      # AppTest resets sidebar sliders on a page switch
        at.session_state[name] = DEFAULTS[name]
    at.run()
    at.switch_page("pages/where.py").run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "Shipped: measured on" in captions
    assert "Taken one check at a time, the first draft of a round survived" in captions
    assert "after a round that kept every draft" in captions
    # the shipped kinds priced again here for whole runs (their runs recorded the prefill and the
    # bookkeeping a kind's prompts paid): (plain prefill + 1 + plain bookkeeping) / (prefill + (k·c +
    # v(k + 1) + bookkeeping) / L), a round's price 4 · 0.25 + 2.0 = 3 steps
    from specdec.bench import where
    from specdec.records.codec import from_data
    kinds = next(d.value for d in at.dataframe if "speedup min" in d.value.columns)
    said = next(m.value for m in at.markdown if "priced again, whole runs**:" in m.value)
    assert "c = 0.250 and v(k + 1) = 2.00 (k = 4)" in said
    shown = next(f for f in shown_files("where") if (f["key"]["settings"]["temperature"], f["key"]["settings"]["k"])
                 == (DEFAULTS["temperature"], DEFAULTS["k"]))
    pooled = where.by_kind(from_data(where.WhereSet, shown["value"]).results)
    whole = [(p.base_prefill_steps + 1 + p.base_overhead) /
             (p.prefill_steps + (3 + p.round_overhead) / p.mean_acceptance_length) for p in pooled]
    assert f"predict {min(whole):.2f}×" in said and f"to {max(whole):.2f}×" in said
    assert sorted(kinds["tokens a round (L)"]) == pytest.approx(sorted(p.mean_acceptance_length for p in pooled))
    shipped = f"for comparison: {kinds['speedup'].min():.2f}× to {kinds['speedup'].max():.2f}×."   # beside
    assert any(shipped in c.value for c in at.caption)
    # the drill-down's shipped speedups carry their machine's badge: this CPU model's "a machine like this one"
    from specdec.models.kernels import cpu_model
    recorded = {json.loads(f.read_text())["value"]["provenance"]["cpu"]       # the shipped sets' CPUs
                for f in (Path(APP).parent / "assets/results").glob("where-*.json")}
    from ui.lessons.bench_words import tidy
    named = ["a machine like this one" if cpu == cpu_model() else tidy(cpu) for cpu in recorded]
    drill = [c.value for c in at.caption if "Speedups in this table were measured there" in c.value]
    assert len(drill) == 1 and drill[0].startswith(":") and any(n in drill[0] for n in named), (drill, named)


def test_the_k_sweeps_best_is_set_beside_the_k_the_prices_pick():
    """Review 31: after "Measure k = 1 here" the sweep said "best measured speedup 1.03× at k = 2" (shipped) while
    the box named k = 1 (1.01× here) the k this machine's prices pick, and nothing set the two side by side."""
    from types import SimpleNamespace

    from ui.fast_ksweep_view import picked_clause

    def pt(k, x, low, high):
        return SimpleNamespace(k=k, speedup=x, speedup_min=low, speedup_max=high)
    sweep = [pt(1, 1.01, 0.98, 1.03), pt(2, 1.03, 0.99, 1.05), pt(4, 0.67, 0.64, 0.70)]
    best = sweep[1]
    mine = {1}                                                    # k = 1 measured here since

    def whose(p):
        return "HERE" if p.k in mine else "ALIKE"
    said = picked_clause(sweep, best, 1, whose)
    assert "At k = 1, the k this machine's prices pick: **1.01×** (0.98–1.03×) HERE" in said
    assert "cannot tell k = 2 from k = 1" in said
    apart = picked_clause([pt(1, 0.90, 0.88, 0.92), best], best, 1, whose)       # 0.92 below 0.99: told apart
    assert "k = 2 measured faster beyond the spread" in apart and "cannot tell" not in apart
    assert picked_clause(sweep, best, 2, whose) == "" and picked_clause(sweep, best, None, whose) == ""
    assert picked_clause(sweep, best, 3, whose) == ""                          # a k the sweep did not run


def test_the_k_sweeps_clause_reads_right_in_korean(monkeypatch):
    """Review 32: "k = 2와 k = 1를": the clause's parts were joined before their figures filled them."""
    from types import SimpleNamespace

    from ui import i18n
    from ui.fast_ksweep_view import picked_clause
    monkeypatch.setattr(i18n, "current", lambda: "ko")
    sweep = [SimpleNamespace(k=k, speedup=x, speedup_min=x - 0.03, speedup_max=x + 0.02) for k, x in ((1, 1.01),
                                                                                                       (2, 1.03))]
    korean = picked_clause(sweep, sweep[1], 1, lambda p: "")
    assert "k = 2와 k = 1을" in korean, korean
