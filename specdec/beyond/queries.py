"""The labelled questions (assets/beyond/queries.json): English and Korean, each with the ids of
the passages that answer it, split into a development half and a held-out half."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from specdec.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
QUERIES = ROOT / "assets" / "beyond" / "queries.json"
SPLITS = ("dev", "held-out")
LANGUAGES = ("en", "ko")


@dataclass(frozen=True)
class Query:
    id: str
    split: str                  # "dev" (tune on it) | "held-out" (shipped results only)
    text: dict                  # language -> the question
    answers: tuple[str, ...]    # passage ids that answer it


def load(path: Path = QUERIES, split: str | None = None) -> list[Query]:
    """Every query of the file, or those of one split."""
    if split is not None and split not in SPLITS:
        raise InputError("split must be one of {choices}, not {value}", choices=", ".join(SPLITS), value=repr(split))
    raw = json.loads(Path(path).read_text())["queries"]
    out = [Query(q["id"], q["split"], {lang: q[lang] for lang in LANGUAGES}, tuple(q["answers"])) for q in raw]
    return [q for q in out if split is None or q.split == split]
