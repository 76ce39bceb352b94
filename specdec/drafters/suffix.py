"""Suffix drafting (SuffixDecoding, Oliaro et al. 2024, arXiv 2411.04975), as a chain: no model.

The longest suffix of the sequence (up to `max_match` tokens) that occurs earlier — in the
prompt, in the answer so far, or in earlier texts handed to the drafter (`history`: a session's
earlier answers) — is looked up, and the continuations after all its occurrences are counted in
a trie. The chain follows the most frequent child while the path's estimated probability (the
product of each step's count over its parent's) stays at or above `min_score`, up to k tokens:
where every occurrence continued the same way it drafts far ahead, where they part it stops.
Prompt lookup (ngram.py) instead takes the latest match of at most 3 tokens and drafts its k
tokens whatever happens. q is a point mass on each draft, so the target accepts d with
probability p(d): exactness does not depend on any of this.
"""
from __future__ import annotations

import torch

from specdec.drafters.base import ChainDrafter, DrafterKind, Proposal, register
from specdec.rules.sampling import Sampling
from specdec.wording import N_

MAX_MATCH, MIN_SCORE = 16, 0.1


def longest_match(texts: list[list[int]], max_match: int) -> list[tuple[int, int]]:
    """(text, index after the match) for every earlier occurrence of the longest tail of the last
    text (up to max_match tokens) — in any text, the last text's own tail excluded."""
    seq, best, found = texts[-1], 0, []
    for t, text in enumerate(texts):
        stop = len(text) - 1 if t == len(texts) - 1 else len(text)
        for end in range(stop):
            if text[end] != seq[-1]:
                continue
            n = 1
            while n < min(max_match, len(seq)) and n <= end and text[end - n] == seq[-1 - n]:
                n += 1
            if n > best:
                best, found = n, []
            if n == best:
                found.append((t, end + 1))
    return found


def best_path(texts: list[list[int]], ends: list[tuple[int, int]], k: int, min_score: float) -> list[int]:
    """The most frequent continuation after `ends`, step by step, while its score holds."""
    path, score, live = [], 1.0, ends
    while len(path) < k and live:
        counts: dict[int, list[tuple[int, int]]] = {}
        for t, at in live:
            if at < len(texts[t]):
                counts.setdefault(texts[t][at], []).append((t, at + 1))
        if not counts:
            break
        token, nxt = max(counts.items(), key=lambda kv: (len(kv[1]), max(kv[1])))   # ties: the latest
        score *= len(nxt) / len(live)
        if score < min_score:
            break
        path.append(token)
        live = nxt
    return path


class SuffixDrafter(ChainDrafter):
    def __init__(self, vocab_size: int, history: list[list[int]] | None = None,
                 max_match: int = MAX_MATCH, min_score: float = MIN_SCORE):
        self.vocab_size, self.history = vocab_size, [list(h) for h in history or []]
        self.max_match, self.min_score = max_match, min_score

    def lookup(self, seq: list[int], k: int) -> list[int]:
        texts = [*self.history, list(seq)]
        return best_path(texts, longest_match(texts, self.max_match), k, self.min_score)

    def propose(self, seq: list[int], k: int, sampling: Sampling, generator, policy) -> Proposal:
        tokens = self.lookup(seq, k)
        probs = torch.zeros(len(tokens), self.vocab_size)                # (m, V) one-hot rows
        probs[torch.arange(len(tokens)), tokens] = 1.0
        return Proposal(tokens, probs, 0)


register(DrafterKind("suffix", N_("suffix match"), False, lambda pair, s: SuffixDrafter(pair.vocab_size), rank=4,
                     finds=True))
