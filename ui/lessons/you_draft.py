""""You are the drafter": a person's expected continuation verified like any draft.

The typed tokens are proposed in one round (q = a point mass on each, so the target keeps
d with probability p(d); at T = 0, while d is its argmax). The first rejected token is
replaced from the residual — p without that token — and the target then writes on by
itself. The same prompt is then drafted by the n-gram lookup and by the draft model with
the same k and seed, for comparison.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from specdec.drafters.ngram import PointMassDrafter
from specdec.engine.decoder import Decoder
from specdec.engine.prompt import Prompt, encode_prompt
from specdec.errors import InputError
from specdec.settings import Settings
from specdec.trace.run import Round
from specdec.wording import N_

MAX_TYPED = 48      # tokens of a typed continuation verified in one pass


@dataclass(frozen=True)
class Verified:
    who: str
    round: Round                 # the one verification round
    continuation: tuple[int, ...]   # what the target wrote after it (the run's remaining tokens)


def typed_ids(pair, prompt_text: str, prompt_ids: list[int], text: str) -> list[int]:
    """The guess as the target would tokenize it after the prompt (tokenized alone, "    x"
    after a newline can split differently), falling back to the guess on its own."""
    if not text.strip():
        raise InputError(N_("type the continuation you expect first"))
    whole = pair.tokenizer(prompt_text + text, add_special_tokens=False)["input_ids"]
    n = len(prompt_ids)
    ids = whole[n:] if whole[:n] == prompt_ids and len(whole) > n else \
        pair.tokenizer(text, add_special_tokens=False)["input_ids"]
    if len(ids) > MAX_TYPED:
        raise InputError(N_("your continuation is {n} tokens; keep it to {limit}"), n=len(ids), limit=MAX_TYPED)
    return list(ids)


def verify(pair, prompt: Prompt, settings: Settings, who: str, drafter=None,
           then: int = 16) -> Verified:
    """One round with the given drafter (or settings.drafter), then `then` tokens more."""
    dec = Decoder(pair, prompt, settings, drafter)
    first = dec.step()
    before = len(dec.generated)
    while dec.stop is None and len(dec.generated) < before + then:
        dec.step()
    return Verified(who, first, tuple(dec.generated[before:]))


def compare(pair, prompt: Prompt, text: str, settings: Settings) -> list[Verified]:
    """Your text, then the n-gram lookup and (if the pair has one) the draft model, same k."""
    prompt_text, prompt_ids, _ = encode_prompt(pair, prompt)
    ids = typed_ids(pair, prompt_text, prompt_ids, text)
    k_settings = replace(settings, k=len(ids), max_new_tokens=len(ids) + 17, policy="constant")
    you = PointMassDrafter(pair.vocab_size, len(prompt_ids), ids)
    out = [verify(pair, prompt, k_settings, "you", you)]
    out.append(verify(pair, prompt, replace(k_settings, drafter="ngram"), "n-gram lookup"))
    if pair.draft is not None:
        out.append(verify(pair, prompt, replace(k_settings, drafter="model"), "draft model"))
    return out
