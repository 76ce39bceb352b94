"""The bundled prompt set (`assets/prompts.json`): kind, short label, prompt text."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

PROMPTS_FILE = Path(__file__).resolve().parent.parent / "assets" / "prompts.json"
KINDS = ("code", "structured", "prose", "identifiers", "repetitive")


@dataclass(frozen=True)
class Prompt:
    kind: str
    label: str
    prompt: str


def load_prompts(path: Path = PROMPTS_FILE) -> list[Prompt]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Prompt(p["kind"], p["label"], p["prompt"]) for p in data["prompts"]]


def by_kind(prompts: list[Prompt]) -> dict[str, list[Prompt]]:
    out: dict[str, list[Prompt]] = {}
    for p in prompts:
        out.setdefault(p.kind, []).append(p)
    return out
