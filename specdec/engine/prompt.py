"""A prompt as the engine reads it: raw text or a chat, encoded with clear errors; the stop ids."""
from __future__ import annotations

from typing import Any, Sequence, Union

from specdec.chat import Message, as_messages, check_text, render
from specdec.errors import InputError
from specdec.models.pair import Pair
from specdec.wording import N_

Prompt = Union[str, Sequence[Any]]     # raw text, or a chat: [{"role", "content"}, ...]
CHARS_PER_TOKEN = 32     # no tokenizer's tokens are this long on average: longer text cannot fit


def check_size(prompt: Prompt, context: int) -> None:
    """Text that cannot fit the context whatever its tokens is refused before it is tokenised
    (a 10 MB prompt once took 19 s and 1 GB to be told it was too long)."""
    chars = sum(len(t) for t in _texts(prompt) if isinstance(t, str))
    if chars > CHARS_PER_TOKEN * context:
        raise InputError(N_("the prompt is {n} characters, more than the models' {limit} tokens can hold: "
                            "shorten it"), n=f"{chars:,}", limit=context)


def _texts(prompt: Prompt) -> list:
    """The text a prompt holds: itself, or each message's content (unchecked yet: as_messages checks)."""
    if isinstance(prompt, str):
        return [prompt]
    if isinstance(prompt, (list, tuple)):
        return [m.get("content") if isinstance(m, dict) else getattr(m, "content", "") for m in prompt]
    return []


def encode_prompt(pair: Pair, prompt: Prompt) -> tuple[str, list[int], tuple[Message, ...] | None]:
    """(prompt text, ids, chat messages or None), with clear errors for empty prompts, bad
    chats and prompts past the context window."""
    check_size(prompt, pair.context)
    if isinstance(prompt, str):
        if not prompt:
            raise InputError(N_("the prompt is empty: type some text to continue, e.g. `def parse(`"))
        check_text(prompt)
        text, ids, messages = prompt, list(pair.tokenizer(prompt)["input_ids"]), None
    else:
        messages = as_messages(prompt)
        text, ids = render(pair.tokenizer, messages)
    if len(ids) >= pair.context:
        cut = len(ids) - pair.context + 1
        raise InputError(N_("the prompt is {n} tokens but the models accept at most {limit}: "
                            "shorten it by at least 1 token") if cut == 1 else
                         N_("the prompt is {n} tokens but the models accept at most {limit}: "
                            "shorten it by at least {cut} tokens"), n=len(ids), limit=pair.context, cut=cut)
    return text, ids, messages


def stop_ids(pair: Pair) -> set[int]:
    """End-of-sequence and end-of-turn ids (the tokenizer's EOS and the model's own)."""
    ids = {pair.tokenizer.eos_token_id}
    configured = getattr(getattr(pair.target, "generation_config", None), "eos_token_id", None)
    ids.update(configured if isinstance(configured, (list, tuple)) else [configured])
    return {i for i in ids if i is not None}
