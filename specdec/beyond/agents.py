"""The same shape for an agent choosing a tool: a cheap router (BM25, or embeddings, over the
tools' descriptions) proposes its top k tools, and the model verifies each candidate call,
(request, tool) scored like (question, passage); the best-scored tool is called. k = every tool
is "judge over all tools". The tools and labelled requests: assets/beyond/tools.json.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from specdec.beyond import cascade, metrics
from specdec.beyond.corpus import Passage
from specdec.beyond.queries import LANGUAGES, SPLITS
from specdec.beyond.record import AgentRow, Outcome
from specdec.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "assets" / "beyond" / "tools.json"


@dataclass(frozen=True)
class Request:
    id: str
    split: str
    text: dict          # language -> the request
    tool: str           # the tool that serves it


def load(path: Path = TOOLS, split: str | None = None) -> tuple[list[Passage], list[Request]]:
    """The tools (as passages: id = the tool's name) and the requests of one split (or all)."""
    if split is not None and split not in SPLITS:
        raise InputError("split must be one of {choices}, not {value}", choices=", ".join(SPLITS), value=repr(split))
    raw = json.loads(Path(path).read_text())
    tools = [Passage(t["name"], t["name"].replace("_", " "), t["description"]) for t in raw["tools"]]
    requests = [Request(r["id"], r["split"], {lang: r[lang] for lang in LANGUAGES}, r["tool"])
                for r in raw["requests"]]
    return tools, [r for r in requests if split is None or r.split == split]


def rows(outcomes: list[Outcome], ks: list[int], first: str) -> list[AgentRow]:
    """Per language and k (k past the number of tools is left out)."""
    out = []
    for lang in sorted({o.lang for o in outcomes}):
        mine = [o for o in outcomes if o.lang == lang]
        for k in [k for k in ks if k <= min(len(o.first) for o in mine)]:
            out.append(_row(mine, k, first))
    return out


def _row(mine: list[Outcome], k: int, first: str) -> AgentRow:
    mean, chosen = metrics.mean, [cascade.judged(o, k)[0] for o in mine]
    return AgentRow(
        mine[0].lang, k,
        accuracy=mean(c in o.answers for c, o in zip(chosen, mine)),
        router=mean(o.first[0] in o.answers for o in mine),
        recall=mean(bool(set(o.first[:k]) & set(o.answers)) for o in mine),
        agree=mean(c == cascade.judged(o, len(o.first))[0] for c, o in zip(chosen, mine)),
        judge_calls=float(k),
        ms=mean(cascade.cheap_ms(o, first) + o.ms_prefix + sum(o.ms_each[:k]) for o in mine))
