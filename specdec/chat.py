"""Chat prompts: a list of {"role", "content"} messages rendered by the tokenizer's own
chat template, with the generation prompt appended (the assistant's turn begins).

Instruct models end a turn with their own end-of-turn token (SmolLM2: `<|im_end|>`),
which the engine treats as a stop. A model without a chat template cannot take a chat:
the caller is told to pass raw text instead.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from specdec.errors import InputError
from specdec.wording import N_

ROLES = ("system", "user", "assistant")


@dataclass(frozen=True)
class Message:
    role: str
    content: str


def as_messages(chat: Sequence[Any]) -> tuple[Message, ...]:
    """Validate a chat given as dicts (or Messages); a clear error for each kind of mistake."""
    if not chat:
        raise InputError(N_("the chat is empty: give at least one message, e.g. "
                            '[{"role": "user", "content": "Hello"}]'))
    out = []
    for i, item in enumerate(chat, 1):
        if isinstance(item, Message):
            item = {"role": item.role, "content": item.content}
        if not isinstance(item, dict) or set(item) - {"role", "content"} or "role" not in item:
            raise InputError(N_("message {i} must be a dict with the keys 'role' and 'content'"), i=i)
        role, content = item["role"], item.get("content")
        if role not in ROLES:
            raise InputError(N_("message {i} has the role {role}; use one of {choices}"), i=i,
                             role=repr(role), choices=", ".join(ROLES))
        if not isinstance(content, str) or not content.strip():
            raise InputError(N_("message {i} ({role}) has no text: write something in it"), i=i, role=role)
        out.append(Message(role, content))
    return tuple(out)


def has_template(tokenizer) -> bool:
    return bool(getattr(tokenizer, "chat_template", None))


def render(tokenizer, messages: tuple[Message, ...]) -> tuple[str, list[int]]:
    """(the prompt text the template produced, its ids) with the generation prompt appended."""
    if not has_template(tokenizer):
        raise InputError(N_("this model has no chat template, so it cannot take a chat: "
                            "pass the prompt as raw text instead"))
    dicts = [{"role": m.role, "content": m.content} for m in messages]
    text = tokenizer.apply_chat_template(dicts, add_generation_prompt=True, tokenize=False)
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    return text, list(ids)


def user_turn(text: str) -> tuple[Message, ...]:
    """The usual one-message chat for a typed prompt."""
    return as_messages([{"role": "user", "content": text}])
