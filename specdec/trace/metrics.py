"""Run metrics with the serving engines' definitions (vLLM / llama.cpp), DESIGN.md §1.

- acceptance rate = accepted draft tokens / drafted tokens
- mean acceptance length = emitted tokens / rounds (includes the correction / bonus); its spread, the
  standard deviation of the tokens each round emitted
- per-position acceptance[i] = rounds whose draft i was accepted / rounds that drafted i
  (a tree round counts by depth: it "drafted i" when a node reached depth i)
- histogram[j] = rounds that accepted exactly j drafts
- target forwards = the passes whose logits gave tokens' distributions: every round's, and the
  prompt's own pass where its last row gave the first token (an autoregressive run, as in every
  plain loop: N tokens, N passes)
- target calls saved = 1 − target forwards / tokens emitted
Otherwise none of these counts the prefill (the target reading the prompt before round 1,
`Prefill`): a speculative run's prefill drafts nothing and emits nothing; its time is `prefill_ms`,
which a wall-clock tokens/s of the whole run includes.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Sequence

from specdec.trace.rounds import Prefill, Round
from specdec.trace.theory import expected_speedup, expected_tokens


@dataclass(frozen=True)
class Metrics:
    rounds: int
    tokens: int                      # emitted
    drafted: int
    accepted: int
    acceptance_rate: float | None    # None when nothing was drafted
    mean_acceptance_length: float | None
    acceptance_length_sd: float | None   # over rounds (None under two rounds)
    per_position: tuple[float, ...]
    histogram: tuple[int, ...]
    target_forwards: int
    draft_forwards: int
    target_forwards_per_token: float | None
    target_calls_saved: float | None
    mean_beta: float | None          # α̂: mean of β over drafted positions that were examined
    draft_ms: float
    verify_ms: float
    draft_per_verify: float | None   # ms per draft forward / ms per verification pass (= c / v_k;
                                     # c itself is measure.c_paid, against a 1-token step)
    expected_tokens_per_round: float | None   # Eq. (1) with α̂ and the mean k
    expected_speedup: float | None            # Theorem 3.8 with α̂, mean k and draft_per_verify
                                              # as its c (a pass priced at one target step)
    prefill_ms: float = 0.0          # the target (and a draft with a cache) reading the prompt

    @property
    def wall_ms(self) -> float:
        """The whole run's time: the prefill, then every round's drafting and verification."""
        return self.prefill_ms + self.draft_ms + self.verify_ms


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None


def _per_position(rounds: Sequence[Round]) -> tuple[float, ...]:
    depth = max((r.reach for r in rounds), default=0)
    out = []
    for i in range(depth):
        drafted = [r for r in rounds if r.reach > i]
        out.append(sum(r.n_accepted > i for r in drafted) / len(drafted))
    return tuple(out)


def _histogram(rounds: Sequence[Round]) -> tuple[int, ...]:
    hist = [0] * (max((r.reach for r in rounds), default=0) + 1)
    for r in rounds:
        hist[r.n_accepted] += 1
    return tuple(hist)


def _theory(alpha, rounds: Sequence[Round], c) -> tuple[float | None, float | None]:
    drafting = [r.drafted for r in rounds if r.drafted]
    if alpha is None or not drafting or any(r.tree for r in rounds):    # a chain's formulas
        return None, None
    k = round(sum(drafting) / len(drafting))
    return expected_tokens(alpha, k), (None if c is None else expected_speedup(alpha, k, c))


def summarize(rounds: Sequence[Round], prefill: Prefill | None = None) -> Metrics:
    drafted = sum(r.drafted for r in rounds)
    accepted = sum(r.n_accepted for r in rounds)
    emitted = [len(r.emitted) for r in rounds]
    tokens = sum(emitted)
    betas = [p.beta for r in rounds for p in r.positions if p.verdict != "discarded"]
    passes = sum(r.target_forwards for r in rounds)                 # the rounds' own, timed in verify_ms
    t_fw = passes + int(prefill is not None and prefill.first_token)
    d_fw = sum(r.draft_forwards for r in rounds)
    draft_ms, verify_ms = sum(r.draft_ms for r in rounds), sum(r.verify_ms for r in rounds)
    per_draft, per_target = _ratio(draft_ms, d_fw), _ratio(verify_ms, passes)
    cost = None if per_draft is None or not per_target else per_draft / per_target
    alpha = sum(betas) / len(betas) if betas else None
    exp_tokens, exp_speed = _theory(alpha, rounds, cost)
    return Metrics(
        rounds=len(rounds), tokens=tokens, drafted=drafted, accepted=accepted,
        acceptance_rate=_ratio(accepted, drafted), mean_acceptance_length=_ratio(tokens, len(rounds)),
        acceptance_length_sd=statistics.stdev(emitted) if len(emitted) > 1 else None,
        per_position=_per_position(rounds), histogram=_histogram(rounds),
        target_forwards=t_fw, draft_forwards=d_fw,
        target_forwards_per_token=_ratio(t_fw, tokens),
        target_calls_saved=None if not tokens else 1 - t_fw / tokens,
        mean_beta=alpha, draft_ms=draft_ms, verify_ms=verify_ms, draft_per_verify=cost,
        expected_tokens_per_round=exp_tokens, expected_speedup=exp_speed,
        prefill_ms=0.0 if prefill is None else prefill.target_ms + prefill.draft_ms)
