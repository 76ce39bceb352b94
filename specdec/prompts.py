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


def round_robin(prompts: list[Prompt], limit: int) -> list[Prompt]:
    """Up to `limit` prompts taking one of each kind in turn (a balanced subset)."""
    groups = list(by_kind(prompts).values())
    out: list[Prompt] = []
    for i in range(max(len(g) for g in groups)):
        out += [g[i] for g in groups if i < len(g)]
    return out[:limit]


def select(spec: str | None, limit: int) -> list[str]:
    """None = the bundled set (balanced), a kind name, or a file (.json like ours, or lines)."""
    from specdec.sampling import InputError
    if spec is None or spec in KINDS:
        prompts = load_prompts()
        chosen = round_robin(prompts, limit) if spec is None else \
            [p for p in prompts if p.kind == spec][:limit]
        return [p.prompt for p in chosen]
    path = Path(spec)
    if not path.is_file():
        raise InputError(f"--prompts must be a kind ({', '.join(KINDS)}) or a file; {spec!r} is neither")
    if path.suffix == ".json":
        return [p.prompt for p in load_prompts(path)][:limit]
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()][:limit]
