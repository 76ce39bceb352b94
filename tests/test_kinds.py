"""Kinds are types: a verdict's kind, a tree rule, a drafter's shape, the tree-children choice, a
backend, a precision, a mode and a clock are StrEnums, and no code outside the module that defines
one compares it to a string literal (issue 50, item 3). Their values stay the strings the CLI,
the JSON files and the shipped results already use."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from specdec.drafters.base import Shape
from specdec.drafters.tree import Children
from specdec.models.backend import Backend
from specdec.models.precision import Precision
from specdec.records.provenance import Clock, Provenance
from specdec.rules.chain import FinalKind
from specdec.rules.tree import TreeRule
from specdec.settings import Mode
from specdec.trace import schema
from specdec.trace.rounds import Final, Tree

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("specdec", "ui", "pages")
DEFINED_IN = {FinalKind: "specdec/rules/chain.py", TreeRule: "specdec/rules/tree.py",
              Shape: "specdec/drafters/base.py", Children: "specdec/drafters/tree.py",
              Backend: "specdec/models/backend.py", Precision: "specdec/models/precision.py",
              Mode: "specdec/settings.py", Clock: "specdec/records/provenance.py"}
# operands that hold the same words but are not these kinds: a torch device's type ("cpu"),
# the CLI's --color ("auto")
NOT_KINDS = (".device.type", "args.color")


def _homes() -> dict[str, set[str]]:
    """Each kind's value -> the files allowed to compare it as a string (the defining ones)."""
    homes: dict[str, set[str]] = {}
    for kind, path in DEFINED_IN.items():
        for member in kind:
            homes.setdefault(member.value, set()).add(path)
    return homes


def _literals(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def string_comparisons(source: str, path: str, homes: dict[str, set[str]]) -> list[str]:
    """`x == "onnx"`, `x != "cpu"`, `x in ("int4", "intdot")`: each comparison of a kind's value
    as a string literal outside the kind's module, as 'path:line: code'."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        if any(ast.unparse(s).endswith(NOT_KINDS) for s in sides):
            continue
        bad = [v for s in sides for v in _literals(s) if v in homes and path not in homes[v]]
        if bad:
            found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_scan_finds_a_kind_compared_as_a_string():
    """The scan itself: it flags each form of comparison, and leaves the defining module and
    the non-kinds alone (else the test below could pass by finding nothing)."""
    homes = _homes()
    bad = ('if pair.passes.name == "onnx": pass\nif s.mode != "speculative": pass\n'
           'if p in ("int4", "intdot"): pass\nif r["clock"] == "cpu": pass\n'
           'if rnd.final.kind == "bonus": pass\nif d.shape == "tree": pass\n')
    assert len(string_comparisons(bad, "ui/x.py", homes)) == 6
    assert string_comparisons('if precision == "int4": pass', "specdec/models/precision.py", homes) == []
    assert string_comparisons('if x.device.type == "cpu" or args.color == "auto": pass', "ui/x.py", homes) == []
    assert string_comparisons('if x == Backend.ONNX: pass', "ui/x.py", homes) == []


def test_no_kind_is_compared_as_a_string_outside_its_module():
    homes = _homes()
    found = []
    for top in SCANNED:
        for file in sorted((ROOT / top).rglob("*.py")):
            rel = file.relative_to(ROOT).as_posix()
            found += string_comparisons(file.read_text(encoding="utf-8"), rel, homes)
    assert found == [], "compare with the enum member instead:\n" + "\n".join(found)


@pytest.mark.parametrize("kind, words", [
    (FinalKind, ["correction", "bonus", "target"]), (TreeRule, ["deterministic", "sampled", "greedy"]),
    (Shape, ["chain", "tree"]), (Children, ["top", "sampled"]), (Backend, ["auto", "torch", "onnx"]),
    (Precision, ["auto", "float32", "bfloat16", "int4", "intdot"]), (Mode, ["speculative", "autoregressive"]),
    (Clock, ["wall", "cpu"])])
def test_values_are_the_strings_files_and_flags_use(kind, words):
    """The words written here by hand are those of the CLI's choices and of files already shipped:
    a member equals its word, prints as it and is written to JSON as it."""
    assert [m.value for m in kind] == words
    for member, word in zip(kind, words):
        assert member == word and f"{member}" == word and json.dumps(member) == json.dumps(word)


def test_records_read_kinds_back_as_members():
    """A replay file's and a bench file's words become the enum members (trace/schema.decode)."""
    final = schema.decode(Final, {"token": 3, "text": "x", "kind": "bonus", "p": 0.5, "source": None})
    assert final.kind is FinalKind.BONUS
    tree = schema.decode(Tree, {"nodes": [], "rule": "greedy", "width": 2, "budget": 4,
                                "root_target": None, "root_draft": None})
    assert tree.rule is TreeRule.GREEDY
    assert schema.decode(Provenance, {"backend": "onnx"}).backend is Backend.ONNX
    with pytest.raises(schema.TraceError, match="kind"):
        schema.decode(Final, {"token": 3, "text": "x", "kind": "residual", "p": 0.5, "source": None}, "final.kind")
