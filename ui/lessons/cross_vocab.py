"""Across vocabularies: one cross-vocabulary round taken apart, and the drafters compared on this
machine (the lesson's computations; pages/cross_vocab.py shows them, ui/cross_vocab_view.py draws).

The rule that runs is the cross-vocab drafter's (specdec/drafters/cross_vocab.py): token-level
intersection (TLI, Timor et al. 2025, arXiv 2502.05202). Before each round the target's sequence
is turned into bytes and re-read by the draft's tokenizer; the draft proposes only tokens that
stand for the same bytes in both vocabularies, so each drafted token IS one target token and the
target verifies it with the usual min(1, p/q). What a round shows here, beside the engine's record:
- the context as the draft re-read it, and how much of the draft's cache survived (a merge across
  the boundary, ' wor' + 'ld' -> ' world', changes the draft's last tokens);
- at each drafted position, the draft's own first choice over its WHOLE vocabulary, whether the
  target has a token with its bytes, and the draft's mass inside the intersection (the rest is lost);
- the drafted text as the target's own tokenizer would write it (a split it would not make is
  still verified token by token, and usually rejected).
"""
from __future__ import annotations

import codecs
from dataclasses import dataclass, replace

import torch

from specdec.drafters.cross_vocab import common_prefix
from specdec.engine.decoder import Decoder
from specdec.models.pair import context_window
from specdec.models.vocab_bridge import Bridge
from specdec.trace.rounds import Round

SHOWN_CONTEXT = 8            # the draft's last tokens shown from its re-read context


def spelt(data: bytes) -> str:
    """Bytes as text; half a UTF-8 character shows as its escaped byte (\\xc3)."""
    return data.decode("utf-8", errors="backslashreplace")


@dataclass(frozen=True)
class OwnChoice:
    """The draft's first choice over its whole vocabulary at one position (softmax at T = 1)."""
    piece: str                   # in the draft's own spelling
    shared: bool                 # a target token stands for the same bytes: TLI may propose it
    target_split: tuple[str, ...]   # the target's token texts for its bytes ((): shared, or a special)
    inside: float                # the draft's probability mass on the intersection


@dataclass(frozen=True)
class Drafted:
    """One drafted position: the draft's token, the target token with the same bytes, the test."""
    i: int
    draft_piece: str
    draft_id: int
    target_piece: str
    target_id: int
    text: str
    q: float
    p: float
    ratio: float
    u: float | None
    verdict: str
    own: OwnChoice


@dataclass(frozen=True)
class CrossRound:
    rnd: Round
    context_tail: tuple[str, ...]  # the draft's last tokens of the re-read context (their texts)
    kept: int                      # draft tokens of its cache that still held
    cached: int                    # draft tokens its cache held before the round
    reread: tuple[str, ...]        # the last of the draft tokens it fed itself (texts)
    fed: int                       # how many it fed itself: the re-read text's tokens past `kept`
    drafted: tuple[Drafted, ...]
    text: str                      # the drafted tokens' text
    target_split: tuple[str, ...]  # that text as the target's own tokenizer writes it (token texts)
    same_split: bool               # ... with exactly the drafted tokens
    half: int                      # bytes of a character the drafts cut in half at their end
    final_piece: str


def pieces(tok, ids) -> tuple[str, ...]:
    """Each token's text, one by one (a special token as its name, half a character as U+FFFD)."""
    return tuple(tok.convert_tokens_to_string([t]) for t in tok.convert_ids_to_tokens(list(ids)))


def whole_text(data: bytes) -> tuple[str, int]:
    """(the text of `data` up to a character cut in half at its end, the bytes of that half); a
    byte that starts no character inside it reads as U+FFFD."""
    reader = codecs.getincrementaldecoder("utf-8")("replace")
    text = reader.decode(data, final=False)
    return text, len(reader.getstate()[0])


def target_split(target_tok, data: bytes) -> tuple[int, ...]:
    """The target tokenizer's own ids for the whole characters of some bytes (no BOS, control
    strings as text); a half character at the end has no text yet, so it is left out."""
    text, _half = whole_text(data)
    return tuple(target_tok(text, add_special_tokens=False, split_special_tokens=True)["input_ids"]) if text else ()


def own_choice(draft, link: Bridge, target_tok, context: list[int]) -> OwnChoice:
    """What the draft would propose with its whole vocabulary after `context` (its ids)."""
    window = context_window(draft.config)
    with torch.no_grad():
        logits = draft(torch.tensor([context[-window:]])).logits[0, -1, :draft.config.vocab_size]   # (V_draft,)
    probs = torch.softmax(logits.float(), dim=-1)                                                    # (V_draft,)
    top = int(probs.argmax())
    shared = top in link.to_draft.values()
    piece = link.draft_tok.convert_ids_to_tokens(top)
    special = top in link.draft_tok.all_special_ids
    text = b"" if shared or special else link.draft_tok.decode([top]).encode()
    split = pieces(target_tok, target_split(target_tok, text)) if text else ()
    return OwnChoice(piece, shared, split, float(probs[link.draft_ids].sum()))


def drafted_rows(rnd: Round, seq: list[int], link: Bridge, draft, target_tok) -> tuple[Drafted, ...]:
    """Each drafted position with its draft-side token and the draft's own first choice there."""
    out, so_far = [], list(seq)
    for pos in rnd.positions:
        draft_id = link.to_draft[pos.token]
        own = own_choice(draft, link, target_tok, link.context(so_far))
        out.append(Drafted(pos.i, link.draft_tok.convert_ids_to_tokens(draft_id), draft_id,
                           target_tok.convert_ids_to_tokens(pos.token), pos.token,
                           spelt(link.target_bytes[pos.token]), pos.q, pos.p, pos.ratio, pos.u, pos.verdict, own))
        so_far.append(pos.token)
    return tuple(out)


def cross_round(rnd: Round, seq: list[int], fed: list[int], link: Bridge, draft, target_tok) -> CrossRound:
    """A round taken apart: `seq` the target's sequence before it, `fed` the draft ids its cache held."""
    want = link.context(seq)
    kept = min(common_prefix(fed, want), max(len(want) - 1, 0))
    drafted = drafted_rows(rnd, seq, link, draft, target_tok)
    data = b"".join(link.target_bytes[d.target_id] for d in drafted)
    split = target_split(target_tok, data) if data else ()
    return CrossRound(rnd, pieces(link.draft_tok, want[-SHOWN_CONTEXT:]), kept, len(fed),
                      pieces(link.draft_tok, want[kept:])[-SHOWN_CONTEXT:], len(want) - kept, drafted, spelt(data),
                      pieces(target_tok, split), split == tuple(d.target_id for d in drafted), whole_text(data)[1],
                      pieces(target_tok, [rnd.final.token])[0])


class Stepper:
    """A cross-vocabulary run, one round at a time, each round taken apart."""

    def __init__(self, pair, prompt, settings):
        self.decoder = Decoder(pair, prompt, replace(settings, drafter=cross_drafter_name()))
        self.pair = pair
        self.taken: list[CrossRound] = []

    @property
    def done(self) -> bool:
        return self.decoder.stop is not None

    def step(self) -> CrossRound:
        dec, drafter = self.decoder, self.decoder.drafter
        dec.read_prompt()
        seq, fed = list(dec.seq), list(drafter.fed)
        rnd = dec.step()
        self.taken.append(cross_round(rnd, seq, fed, drafter.link, self.pair.draft, self.pair.tokenizer))
        return self.taken[-1]


def cross_drafter_name() -> str:
    """The drafter that bridges two vocabularies (asked of the registry, never spelt out)."""
    from specdec.drafters.registry import DRAFTERS
    return next(n for n, d in DRAFTERS.items() if d.bridges_vocab)
