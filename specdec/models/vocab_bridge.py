"""Two tokenizers, one byte string: what each token stands for, which tokens two vocabularies
share, and a target's token ids re-tokenised as the draft reads them.

Tokens are compared by the BYTES they stand for, never by how a tokenizer spells them:
- byte-level BPE (GPT-2, SmolLM2, the stdlib family) spells each byte as one printable
  character (`bytes_to_unicode`: 'Ġ' is a space, 'Ċ' a newline), so a token may stand for
  half of a UTF-8 character;
- SentencePiece (Llama, Gemma) writes a space as '▁' and a byte it has no piece for as a
  byte-fallback token `<0xNN>`;
- a plain vocabulary (a list of words or characters) is its tokens' UTF-8.
Special tokens stand for no text here: they are never in the intersection, and in the draft's
context a special token is a boundary that maps to the draft's special token of the same name, or
is dropped when the draft has none. Added tokens that are not special (Gemma's newline runs) are
text: their content.

The intersection (Timor et al. 2025, arXiv 2502.05202, token-level intersection "TLI"): the
tokens of both vocabularies that stand for the same bytes, one target id for each draft id.
"""
from __future__ import annotations

import copy
import functools
import json
import re
from dataclasses import dataclass
from enum import StrEnum

import torch

from specdec.errors import InputError
from specdec.wording import N_

FALLBACK = re.compile(r"<0x([0-9A-Fa-f]{2})>")
ESCAPED = re.compile("([\udc80-\udcff]+)")        # bytes that are not UTF-8, as surrogateescape writes them
PROBE = "Hello, world!\n  def f(x):\n\treturn x * 2  # 3 <= 4 'é' \"ü\" 中"


class Spelling(StrEnum):
    """How a tokenizer writes the bytes its tokens stand for."""
    BYTE_LEVEL = "byte-level"          # one printable character per byte
    SENTENCEPIECE = "sentencepiece"    # '▁' for a space, <0xNN> for a byte
    PLAIN = "plain"                    # the token's own UTF-8


@functools.lru_cache(maxsize=1)
def byte_of_char() -> dict[str, int]:
    """The inverse of GPT-2's bytes_to_unicode: printable character -> the byte it spells."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = {b: b for b in kept}, 0
    for b in range(256):
        if b not in chars:
            chars[b], extra = 256 + extra, extra + 1
    return {chr(c): b for b, c in chars.items()}


def _kinds(node) -> set[str]:
    """Every component type in a tokenizers JSON node (a Sequence's parts included), and '▁' when
    a Replace component rewrites it."""
    if isinstance(node, list):
        return set().union(set(), *map(_kinds, node))
    if not isinstance(node, dict):
        return set()
    found = {node.get("type")} | set().union(set(), *(_kinds(v) for v in node.values() if isinstance(v, (dict, list))))
    if node.get("type") == "Replace" and "▁" in json.dumps(node, ensure_ascii=False):
        found.add("▁")
    return found - {None}


def _component(part) -> dict | None:
    """A tokenizers component (decoder, pre-tokenizer, normalizer) as its JSON, or None."""
    return json.loads(part.__getstate__()) if part is not None else None


def spelling(tok) -> Spelling:
    """The tokenizer's spelling, from its components (a fast tokenizer) or its vocabulary."""
    backend = getattr(tok, "backend_tokenizer", None)
    if backend is not None:
        parts = [_component(backend.decoder), _component(backend.pre_tokenizer), _component(backend.normalizer)]
        kinds = _kinds(parts) | {type(backend.model).__name__}
        byte_fallback = bool(getattr(backend.model, "byte_fallback", False))
    else:
        words = tok.get_vocab()
        kinds, byte_fallback = {"Metaspace"} if any("▁" in w for w in words) else set(), False
        if not kinds and any("Ġ" in w for w in words):
            kinds = {"ByteLevel"}
    if "WordPiece" in kinds:
        raise InputError(N_("a WordPiece tokenizer ('##' pieces) cannot draft across vocabularies: its "
                            "tokens do not say which bytes they stand for"))
    if "ByteLevel" in kinds:
        return Spelling.BYTE_LEVEL
    if kinds & {"Metaspace", "ByteFallback", "▁"} or byte_fallback:
        return Spelling.SENTENCEPIECE
    return Spelling.PLAIN


def bytes_of(token: str, how: Spelling) -> bytes | None:
    """The bytes one token stands for (None: it spells something that is not bytes)."""
    if how == Spelling.BYTE_LEVEL:
        table = byte_of_char()
        return bytes(table[c] for c in token) if all(c in table for c in token) else None
    if how == Spelling.SENTENCEPIECE:
        fallback = FALLBACK.fullmatch(token)
        return bytes([int(fallback.group(1), 16)]) if fallback else token.replace("▁", " ").encode()
    return token.encode()


def added_ids(tok) -> dict[int, tuple[str, bool]]:
    """Added tokens: id -> (content, special). Specials (a chat template's, EOS) included."""
    out = {i: (str(t), bool(getattr(t, "special", True))) for i, t in getattr(tok, "added_tokens_decoder", {}).items()}
    for i in tok.all_special_ids:
        out[i] = (tok.convert_ids_to_tokens(i), True)
    return out


def token_bytes(tok, how: Spelling) -> dict[int, bytes]:
    """id -> bytes for every token that stands for text: the vocabulary's, and added tokens that are
    not special (Gemma's newline runs, HTML tags: their content as it is); specials left out."""
    added = added_ids(tok)
    out = {i: content.encode() for i, (content, special) in added.items() if not special and content}
    for word, i in tok.get_vocab().items():
        if i not in added:
            spelt = bytes_of(word, how)
            if spelt:
                out[i] = spelt
    return out


def _by_bytes(table: dict[int, bytes], tok) -> dict[bytes, int]:
    """bytes -> one id: an ordinary piece before a byte-fallback one, then the lowest id."""
    fallback = {i for w, i in tok.get_vocab().items() if FALLBACK.fullmatch(w)}
    out: dict[bytes, int] = {}
    for i in sorted(table, key=lambda i: (i in fallback, i)):
        out.setdefault(table[i], i)
    return out


def check_spelling(tok, table: dict[int, bytes], name: str, how: Spelling) -> None:
    """The bytes of a probe's tokens, joined, must be the probe's bytes (a leading space allowed:
    SentencePiece's dummy prefix); only characters the tokenizer writes back are probed."""
    kept = "".join(c for c in PROBE if tok.decode(tok(c, add_special_tokens=False)["input_ids"]) == c)
    ids = tok(kept, add_special_tokens=False)["input_ids"]
    joined = b"".join(table.get(i, b"?") for i in ids)
    if kept and joined not in (kept.encode(), b" " + kept.encode()):
        raise InputError(N_("cannot tell which bytes the tokens of {name} stand for ({spelling} spelling "
                            "assumed; a probe read back as {got})"), name=name, spelling=how.value,
                         got=repr(joined[:60]))


def leading_ids(tok) -> list[int]:
    """What the tokenizer puts before every text (a BOS), e.g. [0] for the stdlib family."""
    plain, full = tok("a", add_special_tokens=False)["input_ids"], tok("a")["input_ids"]
    return full[:len(full) - len(plain)] if full[len(full) - len(plain):] == plain else []


@dataclass(frozen=True)
class Bridge:
    """What a draft with another tokenizer needs to draft for a target (built once per pair of
    tokenizers): the intersection both ways, and how a target sequence reads in draft ids."""
    draft_tok: object
    target_ids: torch.Tensor          # (n,) the intersection's target ids
    draft_ids: torch.Tensor           # (n,) the same tokens' draft ids
    to_draft: dict[int, int]          # target id -> draft id, over the intersection
    target_bytes: dict[int, bytes]    # target id -> the bytes it stands for (specials excluded)
    specials: dict[int, int | None]   # target special -> the draft's special of that name (None: dropped)
    draft_byte: dict[int, int]        # byte value -> the draft's one-byte token (bytes that are not UTF-8)
    lead: tuple[int, ...]             # the draft tokenizer's ids before every text (its BOS)

    def context(self, seq: list[int]) -> list[int]:
        """The target's token ids as the draft reads them: their bytes re-tokenised by the draft's
        tokenizer, run by run between special tokens (a special maps to the draft's or is dropped)."""
        out, run = list(self.lead), bytearray()
        for t in seq:
            if t in self.specials:
                out += self.encode(bytes(run))
                run.clear()
                mapped = self.specials[t]
                if mapped is not None and not (len(out) == len(self.lead) and mapped in self.lead):
                    out.append(mapped)                     # a BOS the lead already holds is not doubled
            else:
                run += self.target_bytes.get(t, b"")
        return out + self.encode(bytes(run))

    def encode(self, run: bytes) -> list[int]:
        """Draft ids for bytes: UTF-8 text through the draft's tokenizer (control strings in it stay
        text), a byte that is not UTF-8 (half a character) as the draft's one-byte token, if any."""
        ids: list[int] = []
        for i, piece in enumerate(ESCAPED.split(run.decode("utf-8", errors="surrogateescape"))):
            if i % 2 == 0 and piece:
                ids += self.draft_tok(piece, add_special_tokens=False, split_special_tokens=True)["input_ids"]
            elif i % 2:
                ids += [self.draft_byte[b] for b in (ord(c) - 0xDC00 for c in piece) if b in self.draft_byte]
        return ids


def _specials(target_tok, draft_tok) -> dict[int, int | None]:
    """Each special target token -> the draft's special token with the same content, else None."""
    by_name = {content: i for i, (content, special) in added_ids(draft_tok).items() if special}
    return {i: by_name.get(content) for i, (content, special) in added_ids(target_tok).items() if special}


def _own_copy(tok):
    """The bridge's own copy of a tokenizer: it always encodes with `split_special_tokens`, a flag
    the library sets on the tokenizer for each call, so sharing one with a caller that encodes
    control tokens (a chat template, from another thread) could flip it under either."""
    try:
        return copy.deepcopy(tok)
    except (TypeError, ValueError, RuntimeError):
        return tok


@functools.lru_cache(maxsize=8)
def bridge(target_tok, draft_tok, target_name: str = "target", draft_name: str = "draft") -> Bridge:
    """The bridge from `draft_tok`'s vocabulary to `target_tok`'s; a clear error when one of them
    cannot be read as bytes or they share no token."""
    tables = []                                     # the target's, then the draft's: id -> bytes
    for tok, name in ((target_tok, target_name), (draft_tok, draft_name)):
        how = spelling(tok)
        tables.append(token_bytes(tok, how))
        check_spelling(tok, tables[-1], name, how)
    t_by, d_by = _by_bytes(tables[0], target_tok), _by_bytes(tables[1], draft_tok)
    shared = sorted(set(t_by) & set(d_by), key=lambda b: d_by[b])
    if not shared:
        raise InputError(N_("{draft} and {target} share no token that stands for the same bytes: a draft "
                            "across vocabularies has nothing to propose"), draft=draft_name, target=target_name)
    target_ids, draft_ids = torch.tensor([t_by[b] for b in shared]), torch.tensor([d_by[b] for b in shared])
    return Bridge(_own_copy(draft_tok), target_ids, draft_ids, {t_by[b]: d_by[b] for b in shared}, tables[0],
                  _specials(target_tok, draft_tok), {b[0]: i for b, i in d_by.items() if len(b) == 1},
                  tuple(leading_ids(draft_tok)))
