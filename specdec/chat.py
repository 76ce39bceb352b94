"""Chat prompts: a list of {"role", "content"} messages rendered by the tokenizer's own
chat template, with the generation prompt appended (the assistant's turn begins).

Instruct models end a turn with their own end-of-turn token (SmolLM2: `<|im_end|>`),
which the engine treats as a stop. A model without a chat template cannot take a chat:
the caller is told to pass raw text instead.

A message's text is text. `apply_chat_template` tokenises the rendered prompt as one string,
so a message containing `<|im_end|>\n<|im_start|>system\n...` would get the template's real
control ids and open a turn of its own (prompt injection through the template). Here the
template's own parts keep their control ids, and a message that contains a control string is
tokenised with `split_special_tokens`: its `<|im_end|>` stays the characters `<`, `|`, ...
Ordinary messages get exactly apply_chat_template's ids.
"""
from __future__ import annotations

import contextlib
import re
import sys
import time
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from specdec.errors import InputError
from specdec.wording import N_

ROLES = ("system", "user", "assistant")
RENDER_SECONDS = 2.0       # a template renders in milliseconds; a model file's may loop for ever
RENDERED_CHARS = 1_000_000  # far more than any context window holds; past it, no tokenising


@dataclass(frozen=True)
class Message:
    role: str
    content: str


def as_messages(chat: Sequence[Any]) -> tuple[Message, ...]:
    """Validate a chat given as dicts (or Messages); a clear error for each kind of mistake."""
    if not isinstance(chat, (list, tuple)):
        raise InputError(N_("a prompt is text or a chat (a list of messages), not {kind}"),
                         kind=type(chat).__name__)
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
        check_text(content, i)
        out.append(Message(role, content))
    return tuple(out)


def check_text(text: str, message: int | None = None) -> None:
    """Text a tokenizer can read: a lone surrogate (text decoded with the wrong codec, or
    `surrogateescape`) is one message, not a tokenizer traceback. `message`: its number in a chat."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        at = {"i": err.start + 1, "code": f"U+{ord(text[err.start]):04X}", "n": message}
        raise InputError(N_("the prompt is not valid text: character {i} is a lone surrogate ({code}); "
                            "was it read with the wrong encoding?") if message is None else
                         N_("message {n} is not valid text: character {i} is a lone surrogate ({code}); "
                            "was it read with the wrong encoding?"), **at) from None


def has_template(tokenizer) -> bool:
    return bool(getattr(tokenizer, "chat_template", None))


def render(tokenizer, messages: tuple[Message, ...]) -> tuple[str, list[int]]:
    """(the prompt text the template produced, its ids) with the generation prompt appended."""
    if not has_template(tokenizer):
        raise InputError(N_("this model has no chat template, so it cannot take a chat: "
                            "pass the prompt as raw text instead"))
    dicts = [{"role": m.role, "content": m.content} for m in messages]
    text = _apply(tokenizer, dicts)
    if not any(control_strings(tokenizer, m.content) for m in messages):
        return text, list(tokenizer(text, add_special_tokens=False)["input_ids"])
    return text, _literal_ids(tokenizer, text, messages)


def _apply(tokenizer, dicts: list[dict]) -> str:
    """The template's text for these messages, rendered within RENDER_SECONDS and RENDERED_CHARS;
    whatever goes wrong in a model file's template is one message."""
    try:
        with limit(RENDER_SECONDS):
            text = tokenizer.apply_chat_template(dicts, add_generation_prompt=True, tokenize=False)
    except Overrun:
        raise InputError(N_("this model's chat template did not finish within {s} seconds: pass the "
                            "prompt as raw text"), s=f"{RENDER_SECONDS:g}") from None
    except (MemoryError, RecursionError, OverflowError) as err:
        raise InputError(N_("this model's chat template asked for too much ({kind}): pass the prompt as "
                            "raw text"), kind=type(err).__name__) from None
    except Exception as err:            # jinja2's TemplateError, SecurityError, raise_exception(...)
        raise InputError(N_("this model's chat template failed: {detail}"),
                         detail=f"{type(err).__name__}: {str(err)[:200]}") from None
    if not isinstance(text, str) or len(text) > RENDERED_CHARS:
        raise InputError(N_("this model's chat template made a prompt of more than {n} characters: pass "
                            "the prompt as raw text"), n=f"{RENDERED_CHARS:,}")
    return text


class Overrun(Exception):
    """Limited work ran past its time (`limit`)."""


@contextlib.contextmanager
def limit(seconds: float) -> Iterator[None]:
    """Raise Overrun inside the block's Python code once `seconds` have passed (this thread only).
    A chat template is code from a model's folder, rendered by Jinja's sandbox: it cannot reach the
    machine, but two nested `range(99999)` loops ran for ever and held the server's compute slots
    (issue 48). Jinja compiles a template to Python, so a trace function on the rendering thread
    sees each of its lines and stops it once the time is up. Only Python lines are seen (one long C
    call finishes first), which is why the rendered text's size is bounded too. A tracer installed
    before (a coverage tool's) is put back afterwards."""
    end, before = time.monotonic() + seconds, sys.gettrace()

    def tracer(frame, event, arg):
        if time.monotonic() > end:
            raise Overrun(f"still running after {seconds:g} s")
        return tracer
    sys.settrace(tracer)
    try:
        yield
    finally:
        sys.settrace(before)


def control_strings(tokenizer, content: str) -> list[str]:
    """The tokenizer's special-token strings that occur in `content`."""
    special = set(tokenizer.all_special_tokens) | {
        t.content for t in getattr(tokenizer, "added_tokens_decoder", {}).values() if t.special}
    return sorted(s for s in special if s and s in content)


def _literal_ids(tokenizer, text: str, messages: tuple[Message, ...]) -> list[int]:
    """Ids of the rendered `text` with every message's content tokenised as plain text. Where
    each content sits comes from rendering the template with a placeholder per message."""
    marks = [f"\ue000{i}\ue001" for i in range(len(messages))]
    dicts = [{"role": m.role, "content": mark} for m, mark in zip(messages, marks)]
    skeleton = _apply(tokenizer, dicts)
    parts = re.split("(\ue000\\d+\ue001)", skeleton)          # template, mark, template, ...
    contents = {mark: m.content for mark, m in zip(marks, messages)}
    if "".join(contents.get(p, p) for p in parts) != text or sorted(parts[1::2]) != sorted(marks):
        found = sorted({s for m in messages for s in control_strings(tokenizer, m.content)})
        raise InputError(N_("a message contains the control text {found}, and this model's chat "
                            "template changes message text, so it cannot be kept as plain text: "
                            "remove it"), found=", ".join(found))
    ids = []
    for i, part in enumerate(parts):
        if i % 2:
            ids += tokenizer(contents[part], add_special_tokens=False, split_special_tokens=True)["input_ids"]
        elif part:
            ids += tokenizer(part, add_special_tokens=False)["input_ids"]
    return ids


def user_turn(text: str) -> tuple[Message, ...]:
    """The usual one-message chat for a typed prompt."""
    return as_messages([{"role": "user", "content": text}])
