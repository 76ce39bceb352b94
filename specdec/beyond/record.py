"""What a cascade measurement keeps: per query what each stage said (`Outcome`), the table
computed from them (`Row`: one pool size and gate), and the run around them (`Result`).
A Result carries where it was measured (records/provenance.py) and round-trips through the one
JSON form of a measurement (records/codec.py); `Result.decode` checks a file's shape and meaning
first (files are untrusted, as replay files are: specdec/trace/schema.py), with one
`ResultError` that says where and what.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from specdec.errors import InputError
from specdec.records import codec
from specdec.records.provenance import Provenance
from specdec.trace import schema

MAX_BYTES = 16 * 2**20
LANGS = ("en", "ko")


class ResultError(InputError):
    """A file that is not a cascade result: the message says where and why."""


@dataclass(frozen=True)
class Outcome:
    """One query in one language: the first stage's top `reference` passages and the judge's
    score of each (aligned), the first stage's margin, and what each stage cost."""
    id: str
    lang: str
    answers: tuple[str, ...]
    first: tuple[str, ...]          # passage ids, the first stage's order (the judged pool)
    judge: tuple[float, ...]        # the judge's score of each of `first`
    margin: float                   # the first stage's 1 − s2/s1, in [0, 1]
    stage_top: dict                 # stage name -> its top-10 ids (bm25, dense, hybrid)
    ms_cheap: dict                  # "bm25" | "dense" -> ms
    ms_prefix: float                # the judge's shared prefix
    ms_each: tuple[float, ...]      # the judge's ms per candidate, aligned with `first`


@dataclass(frozen=True)
class Row:
    """One point of the curves: pool size n, gate g, language."""
    lang: str
    pool: int
    gate: float
    mrr: float                      # MRR@10 of the final ranking
    ndcg: float                     # nDCG@10
    recall: float                   # recall of the pool (the first stage's top n)
    agree: float                    # top answer == judge everywhere's top answer
    differ: float                   # top answer != the full pipeline's (same pool, gate 0)
    skipped: float                  # share of queries the gate let through without the judge
    judge_calls: float              # per query
    ms: float                       # per query, every stage


@dataclass(frozen=True)
class AgentRow:
    """One k of the agents part: how often the called tool is the right one, and its cost."""
    lang: str
    k: int
    accuracy: float          # the judged top-k's best tool is the labelled one
    router: float            # the router's own first choice is
    recall: float            # the labelled tool is among the k proposed
    agree: float             # the same tool as the judge over all tools
    judge_calls: float
    ms: float


@dataclass(frozen=True)
class Result:
    split: str
    first_stage: str
    judge_format: str
    judge_backend: str
    reference: int                  # "judge everywhere": the judge over this many first-stage passages
                                    # (at most: a language may have fewer, every Outcome's `first` says)
    corpus_size: int
    python: str
    cpu: str
    threads: int
    load: float                     # the machine's load per core when it ended (a busy one slows every ms)
    stages: dict                    # stage name -> {lang -> {"mrr", "ndcg"}}
    rows: tuple[Row, ...]
    outcomes: tuple[Outcome, ...]
    agent_rows: tuple[AgentRow, ...] = ()        # the agents part (agents.py); () when not run
    agent_outcomes: tuple[Outcome, ...] = ()
    provenance: Provenance = Provenance()          # where and how it was measured

    def to_json(self) -> str:
        return codec.to_json(self)

    @staticmethod
    def decode(data: dict, where: str = "result") -> Result:
        """records/codec.py's hook: the fields checked here (stages, top lists and costs are maps)."""
        prov = schema.decode(Provenance, data.get("provenance", {}), f"{where}.provenance")
        return dataclasses.replace(_decode({k: v for k, v in data.items() if k != "provenance"}), provenance=prov)


def from_json(raw: str | bytes) -> Result:
    """A Result from JSON text, checked; a ResultError otherwise."""
    if len(raw) > MAX_BYTES:
        raise ResultError("the file is {mb:.1f} MB; results are at most {limit} MB",
                          mb=len(raw) / 2**20, limit=MAX_BYTES // 2**20)
    try:
        return codec.from_json(Result, raw, "result")
    except codec.RecordFileError as err:
        raise ResultError("{detail}", detail=str(err)) from None


def _decode(data: dict) -> Result:
    _check(data, Result, "result")
    rows = tuple(Row(**r) for r in data["rows"])
    outcomes, agent_outcomes = _outcomes(data["outcomes"], "outcomes"), _outcomes(data["agent_outcomes"],
                                                                                   "agent_outcomes")
    for i, r in enumerate(rows):
        _row_meaning(r, f"rows[{i}]")
    agent_rows = tuple(AgentRow(**r) for r in data["agent_rows"])
    for i, r in enumerate(agent_rows):
        _agent_meaning(r, f"agent_rows[{i}]")
    return Result(**{**data, "rows": rows, "outcomes": outcomes, "agent_rows": agent_rows,
                     "agent_outcomes": agent_outcomes})


def _outcomes(raw: list, where: str) -> tuple[Outcome, ...]:
    out = tuple(Outcome(**{**o, "answers": tuple(o["answers"]), "first": tuple(o["first"]),
                           "judge": tuple(o["judge"]), "ms_each": tuple(o["ms_each"])}) for o in raw)
    for i, o in enumerate(out):
        _meaning(o, f"{where}[{i}]")
    return out


SCALARS = {"str": str, "int": int, "float": (int, float), "dict": dict}


def _check(data, cls, where: str) -> None:
    """Every field present with its declared type (tuples of records or scalars, dicts, numbers)."""
    if not isinstance(data, dict):
        raise ResultError("{where} must be an object", where=where)
    fields = {f.name: f.type for f in dataclasses.fields(cls) if f.name != "provenance"}   # decoded apart
    if set(data) != set(fields):
        raise ResultError("{where} has fields {got}, expected {want}", where=where,
                          got=sorted(data), want=sorted(fields))
    for name, kind in fields.items():
        _value(data[name], str(kind), f"{where}.{name}")


def _value(value, kind: str, where: str) -> None:
    if kind.startswith("tuple["):
        inner = kind[6:].split(",")[0].strip(" ]")
        if not isinstance(value, list):
            raise ResultError("{where} must be a list", where=where)
        for i, item in enumerate(value):
            _value(item, inner, f"{where}[{i}]")
    elif kind in RECORDS:
        _check(value, RECORDS[kind], where)
    elif not isinstance(value, SCALARS[kind]) or isinstance(value, bool):
        raise ResultError("{where} must be of type {kind}", where=where, kind=kind)
    elif kind == "float" and not math.isfinite(value):
        raise ResultError("{where} must be a finite number", where=where)


RECORDS = {"Row": Row, "Outcome": Outcome, "AgentRow": AgentRow}


def _meaning(o: Outcome, where: str) -> None:
    if o.lang not in LANGS:
        raise ResultError("{where}.lang must be one of {langs}", where=where, langs=", ".join(LANGS))
    if len(o.first) != len(o.judge) or len(o.first) != len(o.ms_each):
        raise ResultError("{where}: first, judge and ms_each must have the same length", where=where)
    if not 0.0 <= o.margin <= 1.0:
        raise ResultError("{where}.margin must be in [0, 1]", where=where)


def _row_meaning(r: Row, where: str) -> None:
    if r.pool < 1 or not 0.0 <= r.gate <= 1.0:
        raise ResultError("{where}: pool must be ≥ 1 and gate in [0, 1]", where=where)
    for name in ("mrr", "ndcg", "recall", "agree", "differ", "skipped"):
        if not 0.0 <= getattr(r, name) <= 1.0:
            raise ResultError("{where}.{name} must be in [0, 1]", where=where, name=name)
    if r.judge_calls < 0 or r.ms < 0:
        raise ResultError("{where}: judge_calls and ms must be ≥ 0", where=where)


def _agent_meaning(r: AgentRow, where: str) -> None:
    if r.lang not in LANGS or r.k < 1:
        raise ResultError("{where}: lang must be one of {langs} and k ≥ 1", where=where, langs=", ".join(LANGS))
    for name in ("accuracy", "router", "recall", "agree"):
        if not 0.0 <= getattr(r, name) <= 1.0:
            raise ResultError("{where}.{name} must be in [0, 1]", where=where, name=name)
    if r.judge_calls < 0 or r.ms < 0:
        raise ResultError("{where}: judge_calls and ms must be ≥ 0", where=where)
