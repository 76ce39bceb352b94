"""The shape of the code: specdec's layers and its top level (docs/architecture.md)."""
import ast
import contextlib
import io
import os
from pathlib import Path

from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parent.parent


def test_the_import_contracts_hold():
    """pyproject.toml's contracts: specdec's layers, no cycles between siblings (function-local
    imports included), no Streamlit in specdec, ui/lessons or ui/figures."""
    out = io.StringIO()
    cwd = os.getcwd()
    try:
        os.chdir(ROOT)
        with contextlib.redirect_stdout(out):
            code = lint_imports(no_cache=True, no_logo=True)
    finally:
        os.chdir(cwd)
    assert code == 0, out.getvalue()


def test_the_contracts_count_imports_made_for_type_hints():
    """A circle through `if TYPE_CHECKING:` is a circle too (issue 42): the contracts see those
    imports, so Settings' choices are offered upward (settings.offer) instead of imported, and
    trace's round records sit below both metrics and run."""
    import tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert config.get("exclude_type_checking_imports") is False
    layers = next(c for c in config["contracts"] if c["type"] == "layers")["layers"]
    assert layers.index("drafters") < layers.index("settings")     # drafters take Settings


def test_specdec_top_level_stays_readable():
    entries = [p.name for p in (ROOT / "specdec").iterdir() if p.name != "__pycache__"]
    # 17: beyond/, the cascade lesson's engine (issue 41); 18: defaults.py, the one table of defaults, read
    # by every layer down to rules/ (issue 50); 19: records/, where every measurement was taken and its one
    # JSON form, below both bench/ and beyond/ (issue 50)
    assert len(entries) <= 19, sorted(entries)
    for package in ("rules", "trace", "models", "drafters", "engine", "records", "bench", "cli", "train"):
        assert (ROOT / "specdec" / package / "__init__.py").is_file(), package


def test_no_drafter_capability_is_asked_by_attribute():
    """What a drafter can do is its class (drafters/base.py), never getattr / hasattr on it."""
    words = ("wants_features", "drafts_trees", "reads_target_features", '"attach"')
    found = [f"{p.relative_to(ROOT)}: {w}" for folder in ("specdec", "ui", "pages")
             for p in (ROOT / folder).rglob("*.py") for w in words if w in p.read_text()]
    assert found == []


def _python_files(*folders: str, skip: tuple[str, ...] = ()):
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if not any(path.is_relative_to(ROOT / s) for s in skip):
                yield path


def _names_in(node) -> set:
    """The string constants a comparison operand spells out (alone or in a tuple, list, set)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(set(), *(_names_in(e) for e in node.elts))
    return set()


def test_no_drafter_name_is_compared_outside_the_registry():
    """Callers ask a drafter's kind (drafters/base.DrafterKind: tree form, cache, cost model,
    transformers counterpart, key id) and never compare its name (issue 42). A shape is not a
    name: `kind.shape == "tree"` is fine. specdec/train/ trains models and has no drafters."""
    from specdec.drafters.registry import DRAFTERS
    found = []
    for path in [ROOT / "app.py", *_python_files("specdec", "ui", "pages", skip=("specdec/drafters", "specdec/train"))]:
        for node in ast.walk(ast.parse(path.read_text())):
            operands = [node.left, *node.comparators] if isinstance(node, ast.Compare) else []
            shapes = any(isinstance(o, ast.Attribute) and o.attr == "shape" for o in operands)
            names = set().union(set(), *(_names_in(o) for o in operands)) & set(DRAFTERS)
            if names and not shapes:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert found == []


def test_no_function_in_specdec_is_longer_than_40_lines():
    """DESIGN.md §4: functions ≲ 40 lines, split into short named steps (docstring included)."""
    long = [f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for path in _python_files("specdec") for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 40]
    assert long == []


# the views and computations several pages share (everything else in ui/ is named after its page)
SHARED_LESSONS = {"acceptance_words", "badges", "bench_words", "best_drafter", "many_words", "other_rows", "pair_card",
                  "payoff_paid",
                  "payoff_words", "payoff_working", "price_table", "result_cache", "shipped", "speed_table",
                  "speed_words", "store", "speed_prompts",
                  "bench_lines", "bottom_line",
                  "store_words"}
SHARED_FIGURES = {"bars", "many", "payoff", "rounds"}   # payoff: the box on four pages
SHARED_VIEWS = {"best_drafter_view", "cache_story", "context_view", "many_view", "metrics_view", "pair_card_view",
                "payoff_answer", "payoff_view", "picked_k_view", "prefill_view", "round_view"}
GLUE = {"catalog", "examples", "family", "i18n", "jobs", "korean", "loaders", "measured", "navigation", "safe",
        "session", "shell", "sidebar", "state", "strip", "tables", "typical", "upload"}


def test_a_pages_lesson_code_goes_by_the_pages_name_and_the_server_keeps_to_itself():
    """Issue 50 item 2: every module of ui/lessons, ui/figures and every view in ui/ is named after
    the page it serves (pages/fast.py <-> ui/lessons/fast*.py, ui/figures/fast*.py, ui/fast_*view.py)
    or is one the pages share; ui/ holds no server machinery beside them (that is ui/server/)."""
    from ui.navigation import PAGES
    pages = {Path(p.path).stem for p in PAGES}

    def stray(folder: Path, shared: set[str]) -> list[str]:
        names = [p.stem for p in folder.glob("*.py") if p.stem != "__init__"]
        return [n for n in names if n not in shared and not any(n == pg or n.startswith(pg + "_") for pg in pages)]
    assert stray(ROOT / "ui" / "lessons", SHARED_LESSONS) == []
    assert stray(ROOT / "ui" / "figures", SHARED_FIGURES) == []
    assert stray(ROOT / "ui", SHARED_VIEWS | GLUE) == []
    server = {p.stem for p in (ROOT / "ui" / "server").glob("*.py")}
    assert {"serve", "launch", "gate", "turns", "health", "memory"} <= server
    assert not (server - {"__init__"}) & {p.stem for p in (ROOT / "ui").glob("*.py")}
