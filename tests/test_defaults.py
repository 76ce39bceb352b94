"""One table of defaults (specdec/defaults.py, issue 50 item 4): the sidebar, the pages, the CLI
and the sweeps read it, and the defaults two layers share agree."""
from __future__ import annotations

import argparse
import ast
from pathlib import Path

from specdec import defaults
from specdec.cli.main import _numbers, add_bench_parser, add_run_parser
from specdec.drafters.policies import Confidence, Constant, make_policy
from specdec.rules.sampling import Sampling
from specdec.settings import Settings, options

from apptest import app

ROOT = Path(__file__).resolve().parents[1]


def test_sampling_settings_and_the_policies_share_their_defaults():
    """Sampling used to default to T = 1.0 while Settings said 0.7; the confidence threshold had
    three defaults (0.3, 0.3 and 0.0)."""
    assert Sampling().temperature == Settings().temperature == defaults.TEMPERATURE == 0.7
    assert Settings().sampling == Sampling()
    assert Settings().confidence == defaults.CONFIDENCE
    assert make_policy("confidence", 4).threshold == Confidence(4).threshold == Constant(4).threshold \
        == defaults.CONFIDENCE


def test_the_sidebar_and_the_run_command_read_the_table_through_settings():
    k, temperature = options()["k"][1], options()["temperature"][1]
    assert k.high == defaults.K_MAX and k.span == (*defaults.K_OFFERED, 1)
    assert temperature.span == defaults.TEMPERATURE_SPAN
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    add_run_parser(sub)
    add_bench_parser(sub)
    run = parser.parse_args(["run", "--prompt", "x"])
    assert run.temperature == defaults.TEMPERATURE and run.confidence == defaults.CONFIDENCE
    bench = parser.parse_args(["bench"])
    assert tuple(_numbers(bench.k, int, "--k")) == defaults.BENCH.k
    assert tuple(_numbers(bench.temperature, float, "--temperature")) == defaults.BENCH.temperatures
    assert (bench.repeats, bench.limit, bench.max_new_tokens) == \
        (defaults.BENCH.repeats, defaults.BENCH.limit, defaults.LENGTHS.bench)


def test_k_above_the_table_s_ceiling_is_refused_with_the_ceiling_named():
    import pytest

    from specdec.errors import InputError
    Settings(k=defaults.K_MAX)
    with pytest.raises(InputError, match=f"between 1 and {defaults.K_MAX}, got {defaults.K_MAX + 1}"):
        Settings(k=defaults.K_MAX + 1)


def test_the_pages_offer_the_table_s_k(tiny_dirs):
    at = app(tiny_dirs, page="pages/fast.py")
    assert not at.exception
    for key in ("k", "fast_k"):                # the sidebar's slider, the theory's
        slider = at.slider(key=key)
        assert (slider.min, slider.max) == defaults.K_OFFERED, key


def _literal_lists(tree: ast.AST):
    """(line, value) of every range(a, b) with literal bounds and every literal list or tuple of numbers."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "range" and \
                all(isinstance(a, ast.Constant) for a in node.args):
            yield node.lineno, tuple(range(*(a.value for a in node.args)))
        elif isinstance(node, (ast.List, ast.Tuple)) and node.elts and \
                all(isinstance(e, ast.Constant) and type(e.value) in (int, float) for e in node.elts):
            yield node.lineno, tuple(e.value for e in node.elts)


def test_no_page_sweep_or_command_writes_a_list_of_the_table_again():
    """k = 1..12, the k sweep, the two temperature lists and the batch sizes are written once."""
    table = {defaults.K_CHOICES, defaults.K_SWEEP, defaults.TEMPERATURE_SWEEP, defaults.TEMPERATURE_COMPARE,
             defaults.SIZES, defaults.BENCH.k, defaults.BENCH.temperatures}
    found = []
    for top in ("pages", "ui", "specdec/cli", "specdec/bench", "specdec/settings.py"):
        files = [ROOT / top] if top.endswith(".py") else sorted((ROOT / top).rglob("*.py"))
        for file in files:
            rel = file.relative_to(ROOT).as_posix()
            found += [f"{rel}:{line}: {value}" for line, value in _literal_lists(ast.parse(file.read_text()))
                      if value in table]
    assert found == [], "read it from specdec/defaults.py:\n" + "\n".join(found)
