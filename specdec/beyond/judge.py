"""The expensive stage: the lab's target model scores (query, passage) pairs.

Two ways to ask it, compared on the development queries (scripts/beyond_ship.py --choose):
- "yes-no": a chat turn "Question … Documentation … Does it answer the question?"; the score is
  log p(yes) − log p(no) at the answer's first position;
- "likelihood": the query's mean log-probability after the passage (query likelihood, as in
  Sachan et al. 2022, "Improving Passage Retrieval with Zero-Shot Question Generation").

Every pair runs through the engine's own target backend (`pair.passes`: ONNX Runtime or torch,
whichever the pair verifies with): the part shared by all candidates of a query (the instruction,
and for yes-no the question) is read once into a KV cache, then each candidate's rows are fed
after it and the cache is cropped back, as a rejected draft is. Measured against a padded torch
batch of the same pairs, this was the faster way on this CPU (the notes in docs/beyond.md).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import torch

from specdec.models.runtime import crop_cache

PASSAGE_TOKENS = 40          # of a passage the judge reads: its name, signature and first sentence
QUERY_TOKENS = 32
MARK = "\x00PASSAGE\x00"
FORMATS = ("yes-no", "likelihood")
# what the judge is asked: about a passage of documentation, or about a tool for an agent's request
# (the question's label, the candidate's label, the yes-no question, the likelihood format's link)
WORDING = {"passage": ("Question", "Documentation", "Does the documentation below answer the question?",
                       "\nA question this answers:"),
           "tool": ("Request", "Tool", "Is the tool below the right one for the request?",
                    "\nA request this tool serves:")}


@dataclass(frozen=True)
class Plan:
    """Token ids of one query's judging: the shared prefix, then per candidate its rows and how
    many of the last rows' logits the score reads."""
    prefix: list[int]
    rows: list[list[int]]
    keep: int


def _ids(tokenizer, text: str) -> list[int]:
    return tokenizer(text, add_special_tokens=False, split_special_tokens=True)["input_ids"]


def _chat_halves(tokenizer, query: str, kind: str) -> tuple[str, str]:
    """The yes-no turn rendered by the model's chat template (plain text without one), cut
    where the passage goes."""
    asked, shown, question, _link = WORDING[kind]
    turn = f"{asked}: {query}\n{question} Answer yes or no.\n{shown}: {MARK}"    # the passage last: fewer rows each
    if getattr(tokenizer, "chat_template", None):
        text = tokenizer.apply_chat_template([{"role": "user", "content": turn}], tokenize=False,
                                             add_generation_prompt=True)
    else:
        text = turn + "\nAnswer:"
    before, after = text.split(MARK)
    return before, after


def plan(tokenizer, fmt: str, query: str, passages: list[str], kind: str = "passage") -> Plan:
    """The ids the judge feeds for `query` and each passage (cut to PASSAGE_TOKENS)."""
    cut = [_ids(tokenizer, p)[:PASSAGE_TOKENS] for p in passages]
    if fmt == "yes-no":
        before, after = _chat_halves(tokenizer, query[:500], kind)
        tail = _ids(tokenizer, after)
        return Plan(_ids(tokenizer, before), [c + tail for c in cut], 1)
    asked = _ids(tokenizer, " " + query)[:QUERY_TOKENS]
    link = _ids(tokenizer, WORDING[kind][3])
    return Plan(_ids(tokenizer, "Python documentation:\n"), [c + link + asked for c in cut], len(asked) + 1)


def answer_ids(tokenizer, words: tuple[str, ...]) -> list[int]:
    """First token of each spelling of an answer word (" yes", "yes", "Yes" ...), distinct."""
    return sorted({_ids(tokenizer, w)[0] for w in words if _ids(tokenizer, w)})


def score_rows(fmt: str, logits: torch.Tensor, rows: list[int], yes: list[int], no: list[int]) -> float:
    """logits (keep, V) of one candidate's last rows -> its score (higher: more relevant)."""
    logp = torch.log_softmax(logits.double(), dim=-1)                          # (keep, V)
    if fmt == "yes-no":
        return float(torch.logsumexp(logp[-1, yes], 0) - torch.logsumexp(logp[-1, no], 0))
    asked = torch.tensor(rows[-(logits.shape[0] - 1):])                        # (keep - 1,)
    return float(logp[:-1].gather(1, asked[:, None]).mean())


class Judge:
    """The target model as a relevance judge. `scores(query, passages)` -> one float each."""

    def __init__(self, pair, fmt: str = "yes-no", kind: str = "passage"):
        if fmt not in FORMATS or kind not in WORDING:
            raise ValueError(f"judge format must be one of {FORMATS} and kind one of {tuple(WORDING)}")
        self.backend, self.tokenizer, self.fmt, self.kind = pair.passes, pair.tokenizer, fmt, kind
        self.name = f"{getattr(pair, 'target_name', 'target')} ({fmt}, {self.backend.name})"
        self.yes = answer_ids(pair.tokenizer, (" yes", "yes", " Yes", "Yes"))
        self.no = answer_ids(pair.tokenizer, (" no", "no", " No", "No"))
        self.prefix_ms, self.each_ms = 0.0, []     # the last `scores` call: its prefix, each candidate

    @torch.no_grad()
    def scores(self, query: str, passages: list[str]) -> list[float]:
        t0 = time.perf_counter()
        p = plan(self.tokenizer, self.fmt, query, passages, self.kind)
        cache = self.backend.new_cache()
        self.backend.forward(p.prefix, cache, keep=1)                          # read once
        start, out, self.each_ms = cache.get_seq_length(), [], []
        self.prefix_ms = (time.perf_counter() - t0) * 1e3
        for rows in p.rows:
            t0 = time.perf_counter()
            logits, _ = self.backend.forward(rows, cache, keep=p.keep)         # (keep, V)
            out.append(score_rows(self.fmt, logits, rows, self.yes, self.no))
            crop_cache(cache, start)                                           # back to the prefix
            self.each_ms.append((time.perf_counter() - t0) * 1e3)
        return out
