"""The schema a replay file must meet before it becomes a `Run` (files are untrusted).

Two passes over the parsed JSON:
1. shape: every field of every record has its declared type (walking the dataclasses'
   type hints), numbers are finite, strings and lists are bounded, nesting is shallow;
2. meaning: probabilities in [0, 1], verdicts and kinds from their fixed sets, sizes
   consistent with each other (positions 1..m, m <= the round's draft limit, the
   verdicts' order, emitted tokens, token ids inside the vocabulary).
Any failure is one `TraceError` whose message says where (`rounds[3].positions[1].verdict`)
and what was wrong. This module knows the records only through their type hints, so
trace.py can use it without an import circle.
"""
from __future__ import annotations

import dataclasses
import enum
import functools
import json
import math
import types
import typing
from typing import Callable

from specdec.defaults import K_MAX
from specdec.errors import InputError
from specdec.rules.chain import FinalKind
from specdec.rules.tree import TreeRule

MAX_BYTES = 32 * 2**20          # a long run with full distributions is a few MB
MAX_DEPTH = 12                  # a valid run nests 8 deep (run, rounds, round, tree, nodes, ...)
MAX_TEXT = 100_000              # characters in one string (a prompt)
MAX_ITEMS = 1_000_000           # entries in one list (a full distribution is one list)
MAX_ID = 2**31 - 1
VERDICTS = ("accepted", "rejected", "discarded")
FINAL_KINDS = tuple(FinalKind)
STOPS = ("eos", "max_new_tokens", "context window")
TREE_VERDICTS = ("accepted", "rejected", "untried")
TREE_RULES = tuple(TreeRule)


class TraceError(InputError):
    """A file that is not a run this app exported: the message says where and why."""


def _no_settings_rule(values: dict) -> None:
    """Until specdec/__init__.py installs Settings' own rules (settings imports this layer, not
    the reverse)."""


_settings_rule: Callable[[dict], None] = _no_settings_rule


def use_settings_rule(rule: Callable[[dict], None]) -> None:
    """specdec/__init__.py hands over settings.check_recorded: the layers let settings import
    trace, not trace import settings, and a replay's settings must meet the very rules a run's did."""
    global _settings_rule
    _settings_rule = rule


def check_settings(values: dict) -> None:
    """A run's recorded settings by Settings' rules: its message, placed at run.settings."""
    try:
        _settings_rule(values)
    except InputError as err:
        raise TraceError(f"run.settings: {err}") from None


def parse(raw: str | bytes) -> dict:
    """JSON text -> dict, within the size and depth bounds; no NaN or Infinity."""
    if len(raw) > MAX_BYTES:
        raise TraceError(f"the file is {len(raw) / 2**20:.1f} MB; runs are at most "
                         f"{MAX_BYTES // 2**20} MB")
    try:
        data = json.loads(raw, parse_constant=_no_constant)
    except RecursionError:
        raise TraceError("the file nests brackets too deeply to be a run") from None
    except (ValueError, UnicodeDecodeError) as err:
        raise TraceError(f"the file is not valid JSON ({str(err)[:120]})") from None
    if not isinstance(data, dict):
        raise TraceError("the file must hold one JSON object (a run), not "
                         f"{type(data).__name__}")
    _check_depth(data)
    return data


def _no_constant(name: str):
    raise TraceError(f"the file contains {name}, which is not a number a run can hold")


def _check_depth(data) -> None:
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise TraceError("the file nests brackets too deeply to be a run")
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        stack += [(child, depth + 1) for child in children if isinstance(child, (dict, list))]


def decode(tp, value, path: str = "run"):
    """Typed decode of `value` as `tp` (a dataclass, tuple[...], X | None, an Enum, int, float,
    str, bool or dict); raises TraceError naming `path` on the first mismatch."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        return decode(next(a for a in args if a is not type(None)), value, path)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        allowed = [m.value for m in tp]
        if value not in allowed or isinstance(value, bool):
            raise TraceError(f"{path}: {_kind(value)} is not one of {', '.join(map(str, allowed))}")
        return tp(value)
    if dataclasses.is_dataclass(tp):
        return _decode_record(tp, value, path)
    if origin is tuple:
        if not isinstance(value, list):
            raise TraceError(f"{path}: expected a list, got {_kind(value)}")
        if len(value) > MAX_ITEMS:
            raise TraceError(f"{path}: a list of {len(value)} items; a run's lists hold at most {MAX_ITEMS}")
        return tuple(decode(args[0], v, f"{path}[{i}]") for i, v in enumerate(value))
    if tp is dict or origin is dict:
        return _decode_mapping(value, path)
    return _decode_scalar(tp, value, path)


@functools.lru_cache(maxsize=64)
def _fields(tp) -> tuple[dict, tuple]:
    """(type hints, fields) of a record type: resolved once (resolving per record was most of
    the time of decoding a file)."""
    return typing.get_type_hints(tp), dataclasses.fields(tp)


def _decode_record(tp, value, path: str):
    if not isinstance(value, dict):
        raise TraceError(f"{path}: expected an object, got {_kind(value)}")
    (hints, fields), out = _fields(tp), {}
    for f in fields:
        if f.name in value:
            out[f.name] = decode(hints[f.name], value[f.name], f"{path}.{f.name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise TraceError(f"{path}: the field {f.name!r} is missing")
    return tp(**out)


def _decode_mapping(value, path: str) -> dict:
    """Settings and vocab: string keys, scalar values."""
    if not isinstance(value, dict):
        raise TraceError(f"{path}: expected an object, got {_kind(value)}")
    for key, item in value.items():
        if item is not None and not isinstance(item, (str, int, float, bool)):
            raise TraceError(f"{path}.{key}: expected a number, text or true/false, got {_kind(item)}")
        if isinstance(item, float) and not math.isfinite(item):
            raise TraceError(f"{path}.{key}: {item} is not a number a run can hold")
        if isinstance(item, str) and len(item) > MAX_TEXT:
            raise TraceError(f"{path}.{key}: text longer than {MAX_TEXT} characters")
    return dict(value)


def _decode_scalar(tp, value, path: str):
    if tp is bool:
        ok = isinstance(value, bool)
    elif tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool) and abs(value) <= 2**63
    elif tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    elif tp is str:
        ok = isinstance(value, str)
        if ok and len(value) > MAX_TEXT:
            raise TraceError(f"{path}: a text of {len(value)} characters; a run's texts are at most "
                             f"{MAX_TEXT} characters")
    else:
        raise TraceError(f"{path}: cannot check values of type {tp}")
    if not ok:
        raise TraceError(f"{path}: expected {tp.__name__}, got {_kind(value)}")
    return float(value) if tp is float else value


def _kind(value) -> str:
    if isinstance(value, str):
        return f"text {value[:40]!r}"
    if isinstance(value, (bool, int, float)) or value is None:
        return json.dumps(value)[:40]
    return {dict: "an object", list: "a list"}.get(type(value), type(value).__name__)


def _need(ok: bool, path: str, what: str) -> None:
    if not ok:
        raise TraceError(f"{path}: {what}")


def _prob(x: float | None, path: str) -> None:
    _need(x is None or 0.0 <= x <= 1.0 + 1e-6, path, f"a probability must be in [0, 1], got {x}")


def check_dist(dist, vocab: int, path: str) -> None:
    if dist is None:
        return
    for i, p in enumerate(dist.probs):
        _prob(p, f"{path}.probs[{i}]")
    _prob(dist.rest, f"{path}.rest")
    if dist.ids is None:
        _need(len(dist.probs) == vocab, path, f"a full distribution has {vocab} entries here, "
                                              f"this one {len(dist.probs)}")
    else:
        _need(len(dist.ids) == len(dist.probs), path, "ids and probs differ in length")
        for i, t in enumerate(dist.ids):
            _need(0 <= t < vocab, f"{path}.ids[{i}]", f"token id {t} is outside the vocabulary")


def check_round(rnd, index: int, vocab: int, path: str) -> None:
    m = len(rnd.positions)
    _need(rnd.index == index, f"{path}.index", f"round {index} says it is round {rnd.index}")
    _need(0 <= m <= rnd.draft_limit <= K_MAX, f"{path}.draft_limit",
          f"{m} drafts with a limit of {rnd.draft_limit} (at most {K_MAX})")
    _need(0 <= rnd.n_accepted <= m, f"{path}.n_accepted", f"{rnd.n_accepted} accepted of {m} drafted")
    _need(1 <= len(rnd.emitted) <= rnd.n_accepted + 1, f"{path}.emitted",
          f"{len(rnd.emitted)} tokens emitted after {rnd.n_accepted} acceptances")
    for i, pos in enumerate(rnd.positions):
        where = f"{path}.positions[{i}]"
        want = "accepted" if i < rnd.n_accepted else "rejected" if i == rnd.n_accepted else "discarded"
        _need(pos.i == i + 1, f"{where}.i", f"position {i + 1} is numbered {pos.i}")
        _need(pos.verdict == want, f"{where}.verdict",
              f"{pos.verdict!r} where the rule gives {want!r} (one of {', '.join(VERDICTS)})")
        for name in ("q", "p", "ratio", "beta", "u"):
            _prob(getattr(pos, name), f"{where}.{name}")
        _need(0 <= pos.token < vocab, f"{where}.token", f"token id {pos.token} is outside the vocabulary")
        check_dist(pos.target, vocab, f"{where}.target")
        check_dist(pos.draft, vocab, f"{where}.draft")
    _need(rnd.final.kind in FINAL_KINDS, f"{path}.final.kind",
          f"{rnd.final.kind!r} is not one of {', '.join(FINAL_KINDS)}")
    _prob(rnd.final.p, f"{path}.final.p")
    check_dist(rnd.final.source, vocab, f"{path}.final.source")
    for name in ("draft_forwards", "target_forwards", "prefix_len"):
        _need(getattr(rnd, name) >= 0, f"{path}.{name}", "must not be negative")
    _need(rnd.draft_ms >= 0 and rnd.verify_ms >= 0, f"{path}", "times must not be negative")
    _need(rnd.stop is None or rnd.stop in STOPS, f"{path}.stop", f"unknown stop reason {rnd.stop!r}")
    if rnd.tree is not None:
        check_tree(rnd, vocab, f"{path}.tree")


def check_tree(rnd, vocab: int, path: str) -> None:
    """Nodes hang from earlier nodes; the accepted ones are one branch from the root and
    are the round's accepted positions; a node is untried exactly when it has no ratio."""
    tree = rnd.tree
    _need(tree.rule in TREE_RULES, f"{path}.rule", f"{tree.rule!r} is not one of {', '.join(TREE_RULES)}")
    _need(1 <= tree.width <= 16 and 1 <= tree.budget <= 64 and len(tree.nodes) <= tree.budget,
          path, f"{len(tree.nodes)} nodes, width {tree.width}, budget {tree.budget} "
                "(width 1..16, budget 1..64)")
    for i, n in enumerate(tree.nodes):
        where = f"{path}.nodes[{i}]"
        _need(-1 <= n.parent < i, f"{where}.parent", f"node {i} hangs from {n.parent}")
        _need(0 <= n.token < vocab, f"{where}.token", f"token id {n.token} is outside the vocabulary")
        _need(n.verdict in TREE_VERDICTS, f"{where}.verdict",
              f"{n.verdict!r} is not one of {', '.join(TREE_VERDICTS)}")
        _need((n.ratio is None) == (n.verdict == "untried"), f"{where}.ratio",
              "a node has a ratio exactly when it was tried")
        for name in ("q", "p", "ratio", "u"):
            _prob(getattr(n, name), f"{where}.{name}")
        for name in ("left", "target", "draft"):
            check_dist(getattr(n, name), vocab, f"{where}.{name}")
    accepted = [i for i, n in enumerate(tree.nodes) if n.verdict == "accepted"]
    _need([tree.nodes[i].parent for i in accepted] == ([-1] + accepted)[:len(accepted)], path,
          "the accepted nodes are not one branch from the root")
    _need([tree.nodes[i].token for i in accepted] == [p.token for p in rnd.positions] and
          len(accepted) == rnd.n_accepted, f"{path}.nodes", "the accepted nodes are not the "
                                                            "round's accepted positions")
    check_dist(tree.root_target, vocab, f"{path}.root_target")
    check_dist(tree.root_draft, vocab, f"{path}.root_draft")


def vocab_size(run) -> int:
    """From the full distributions if any (they must all agree), else the id bound."""
    sizes = {len(d.probs) for r in run.rounds for d in _dists(r) if d is not None and d.ids is None}
    _need(len(sizes) <= 1, "run.rounds", f"full distributions of different sizes {sorted(sizes)}")
    return sizes.pop() if sizes else MAX_ID


def _dists(rnd):
    out = [rnd.final.source] + [d for pos in rnd.positions for d in (pos.target, pos.draft)]
    if rnd.tree is not None:
        out += [rnd.tree.root_target, rnd.tree.root_draft]
        out += [d for n in rnd.tree.nodes for d in (n.left, n.target, n.draft)]
    return out


def check_run(run) -> None:
    check_settings(run.settings)
    vocab = vocab_size(run)
    for i, t in enumerate(run.prompt_ids + run.token_ids):
        _need(0 <= t < vocab, f"run ids[{i}]", f"token id {t} is outside the vocabulary")
    for i, rnd in enumerate(run.rounds):
        check_round(rnd, i, vocab, f"rounds[{i}]")
    emitted = tuple(t for rnd in run.rounds for t in rnd.emitted)
    _need(emitted == run.token_ids, "run.token_ids", "the rounds' emitted tokens are not the run's tokens")
    _need(run.stop_reason in STOPS + ("running",), "run.stop_reason",
          f"unknown stop reason {run.stop_reason!r}")
    _need(all(key.isdigit() for key in run.vocab), "run.vocab", "keys must be token ids")
    _need(all(isinstance(text, str) for text in run.vocab.values()), "run.vocab", "values must be token texts")
    if run.prefill is not None:
        _need(run.prefill.tokens <= len(run.prompt_ids) and run.prefill.target_ms >= 0
              and run.prefill.draft_ms >= 0, "run.prefill", "the prefill reads at most the prompt, in time >= 0")
    for i, m in enumerate(run.messages or ()):
        _need(m.role in ("system", "user", "assistant"), f"run.messages[{i}].role",
              f"unknown role {m.role!r}")
