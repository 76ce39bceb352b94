"""Rare tokens: how often the draft guesses a token, by how rare that token is (Where it works).

A token's rarity is how often the target writes it in its own answers: the text the SmolLM2 drafts
learned from, shipped with the lab (assets/training/smollm2/gen). Two things follow from how a draft
learns and what it can say:
- a token it met rarely in training it guesses rarely: its q there is small where p is not;
- a token outside its vocabulary (a reduced-vocabulary draft keeps the target's most written tokens,
  models/reduced_vocab.py) it cannot propose at all: q = 0 there, so only the residual writes it.

Read off any runs' rounds: each token the text emitted at a position the draft tried is a hit (an
accepted draft) or a miss (the correction that replaced a rejected draft); a bonus token was not
tried, and drafts discarded after a rejection were not examined.
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from specdec.models.names import ASSETS
from specdec.rules.chain import FinalKind
from specdec.trace.run import Round
from specdec.wording import N_

CORPORA = {"smollm2": ASSETS.parent / "training" / "smollm2" / "gen"}   # family -> its answers' shards
# (lowest count, label): every token the target wrote at least that many times in the corpus, the first band that
# holds it; where the draft's vocabulary is reduced, a token outside it is OUTSIDE's, whatever its count
BANDS = ((1000, N_("written 1,000+ times")), (100, N_("100–999 times")), (10, N_("10–99 times")),
         (0, N_("under 10 times")))
OUTSIDE = N_("outside the draft's vocabulary")


@dataclass(frozen=True)
class Band:
    label: str          # an N_ text: how rare its tokens are
    tokens: int         # tokens the text emitted at a position the draft tried, in this band
    hits: int           # of them, accepted drafts

    @property
    def rate(self) -> float | None:
        return self.hits / self.tokens if self.tokens else None


@dataclass(frozen=True)
class Rarity:
    bands: tuple[Band, ...]
    corpus_tokens: int          # the tokens the counts come from
    kept: int | None            # the draft's vocabulary, where reduced (None: the target's own)
    vocab: int                  # the target's


def tried(rounds: Iterable[Round]) -> list[tuple[int, bool]]:
    """(the token the text emitted, whether an accepted draft gave it) at every position a draft was examined."""
    out = []
    for r in rounds:
        if r.tree is not None:                                  # a tree's positions are not one chain
            continue
        out += [(p.token, True) for p in r.positions if p.verdict == "accepted"]
        if any(p.verdict == "rejected" for p in r.positions) and r.final.kind == FinalKind.CORRECTION:
            out.append((r.final.token, False))
    return out


def bands(pairs: Sequence[tuple[int, bool]], counts: np.ndarray, keep: set[int] | None) -> tuple[Band, ...]:
    """The hits and tokens of each band (`counts[t]`: how often the corpus holds token t; `keep`: the
    draft's vocabulary, None where it is the target's)."""
    def band_of(token: int) -> str:
        if keep is not None and token not in keep:
            return OUTSIDE
        n = int(counts[token]) if token < len(counts) else 0
        return next(label for low, label in BANDS if n >= low)
    order = [label for _low, label in BANDS] + ([OUTSIDE] if keep is not None else [])     # common to rare
    seen = {label: [0, 0] for label in order}
    for token, hit in pairs:
        tally = seen[band_of(token)]
        tally[0] += 1
        tally[1] += hit
    return tuple(Band(label, n, hits) for label, (n, hits) in seen.items())


@functools.lru_cache(maxsize=2)
def corpus_counts(folder: Path, vocab: int) -> tuple[np.ndarray, int] | None:
    """How often each token occurs in the answers of `folder`'s shards, and their total (None: no shards)."""
    counts, total = np.zeros(vocab, dtype=np.int64), 0
    for f in sorted(folder.glob("shard_*.tokens.npz")):
        ids = np.load(f)["answer_ids"].astype(np.int64)
        counts += np.bincount(ids[ids < vocab], minlength=vocab)
        total += len(ids)
    return (counts, total) if total else None


def draft_vocab(draft: str) -> list[int] | None:
    """The target tokens an embedded reduced-vocabulary draft keeps (None: it keeps them all, or it is not
    embedded)."""
    file = ASSETS / draft / "draft_vocab.json"
    return json.loads(file.read_text())["keep_ids"] if file.is_file() else None


def of(draft: str, vocab: int, rounds: Iterable[Round]) -> Rarity | None:
    """The rounds' hits by band for an embedded draft whose family ships its training answers (None: other
    drafts, whose training text the lab does not have)."""
    folder = CORPORA.get(draft.split("/", 1)[0])
    found = corpus_counts(folder, vocab) if folder is not None else None
    if found is None:
        return None
    keep = draft_vocab(draft)
    return Rarity(bands(tried(rounds), found[0], None if keep is None else set(keep)), found[1],
                  None if keep is None else len(keep), vocab)
