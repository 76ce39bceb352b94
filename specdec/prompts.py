"""The bundled prompt sets: kind, short label, prompt text.

- "text" (`assets/prompts.json`): raw-text continuations for the `stdlib/*` family.
- "chat" (`assets/prompts_chat.json`): user messages for the instruct pair (`smollm2/*`),
  held out from every training step of its drafts.
- "grounded" (`assets/prompts_grounded.json`): user messages whose answer copies much of the
  input (edit this code, fix this JSON, quote from a passage), for drafting without a model.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from specdec.errors import InputError

ASSETS = Path(__file__).resolve().parent.parent / "assets"
PROMPTS_FILE = ASSETS / "prompts.json"
CHAT_FILE = ASSETS / "prompts_chat.json"
GROUNDED_FILE = ASSETS / "prompts_grounded.json"
SETS = {"text": PROMPTS_FILE, "chat": CHAT_FILE, "grounded": GROUNDED_FILE}
KINDS = ("code", "structured", "prose", "identifiers", "repetitive")      # of the "text" set


@dataclass(frozen=True)
class Prompt:
    kind: str
    label: str
    prompt: str
    label_ko: str = ""          # the label in Korean (the prompt itself stays English)

    @property
    def key(self) -> dict:
        """What identifies the prompt in a stored measurement (not its translated label)."""
        return {"kind": self.kind, "label": self.label, "prompt": self.prompt}


def as_input(prompt: Prompt, chat: bool):
    """The prompt as the engine takes it: a one-message chat for an instruct model."""
    from specdec.chat import user_turn
    return user_turn(prompt.prompt) if chat else prompt.prompt


def load_prompts(path: Path | str = PROMPTS_FILE) -> list[Prompt]:
    """A set by name ("text", "chat") or a JSON file in the same format."""
    data = json.loads(Path(SETS.get(str(path), path)).read_text(encoding="utf-8"))
    return [Prompt(p["kind"], p["label"], p["prompt"], p.get("label_ko", "")) for p in data["prompts"]]


def kinds_of(prompts: list[Prompt]) -> list[str]:
    """The kinds in order of first appearance."""
    return list(dict.fromkeys(p.kind for p in prompts))


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


def select(spec: str | None, limit: int, prompt_set: str = "text") -> list[str]:
    """None = the bundled set (balanced), a kind of it, or a file (.json like ours, or lines);
    at least one prompt, or an InputError that says why not."""
    if limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit}")
    prompts = load_prompts(prompt_set)
    kinds = kinds_of(prompts)
    if spec is None or spec in kinds:
        chosen = round_robin(prompts, limit) if spec is None else \
            [p for p in prompts if p.kind == spec][:limit]
        return [p.prompt for p in chosen]
    path = Path(spec)
    if not path.is_file():
        raise InputError(f"--prompts must be a kind ({', '.join(kinds)}) or a file; {spec!r} is neither")
    found = _from_file(path)[:limit]
    if not found:
        raise InputError(f"{spec} holds no prompts: one per line, or a JSON file like assets/prompts.json")
    return found


def _from_file(path: Path) -> list[str]:
    """The prompts of a .json file in our format, or the non-blank lines of a text file."""
    try:
        if path.suffix == ".json":
            return [p.prompt for p in load_prompts(path) if isinstance(p.prompt, str) and p.prompt]
        return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except UnicodeDecodeError:
        raise InputError(f"{path} is not UTF-8 text") from None
    except (ValueError, KeyError, TypeError, AttributeError):
        raise InputError(f"{path} is not a prompt file like assets/prompts.json: a JSON object with "
                         '"prompts": [{"kind", "label", "prompt"}, ...]') from None
