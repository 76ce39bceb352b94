"""Many requests in one loop: batched verification (issue 30).

Each round, every active request drafts on its own — its drafter, its draft cache, its
`torch.Generator`, its draft-length policy, exactly as it would alone — and then the target
verifies all of them in one forward: row b of the batch feeds request b's pending token and its
drafts, right-padded to the widest row, at its own positions, under a mask that shows it its own
cache slots only (models/batch_cache.py), on the engine's lean pass (models/lean.py); a request
alone in the batch needs no mask and runs the very pass it runs alone. Each request then
accepts, resamples and rolls back with its own generator and records its Round as alone
(Decoder.conclude), so a request's output does not depend on its neighbours. A request that
stops leaves the batch and frees its row.

Prefills run one request at a time (each builds its own cache, then joins the batch), as the
prefill of a request that arrives mid-run does in continuous batching (engine/serving.py).
Autoregressive batching is the same loop with k = 0. Chain drafters only: a tree round keeps
scattered cache rows.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable

import torch

from specdec.drafters.base import FeatureReader, Shape
from specdec.drafters.registry import DRAFTERS
from specdec.engine import checks
from specdec.engine.decoder import Decoder, Plan, checked
from specdec.engine.outcome import Verified
from specdec.engine.prompt import Prompt
from specdec.errors import InputError
from specdec.models.batch_cache import BatchCache
from specdec.models.pair import Pair
from specdec.models.runtime import final_hidden_states, forward_batch
from specdec.rules.sampling import probs_from_logits
from specdec.settings import Settings
from specdec.trace.run import Round, Run
from specdec.wording import N_


@dataclass(frozen=True)
class Pass:
    """One batched target pass: how many requests, the tokens each fed, and its time."""
    requests: int
    fed: tuple[int, ...]       # per request: pending token + drafts
    width: int                 # R: the widest row (every row is padded to it)
    ms: float                  # the target's pass
    draft_ms: float            # every request's drafting this round, together


class Batch:
    """The active requests and their shared target cache."""

    def __init__(self, pair: Pair, settings: Settings):
        check_batchable(settings)
        self.pair, self.settings = pair, settings
        self.cache = BatchCache()
        self.active: list[Decoder] = []

    def join(self, decoder: Decoder) -> None:
        """A request reads its prompt alone (its own cache, batch 1), then takes a row."""
        decoder.read_prompt()
        decoder.target_cache = self.cache.join(decoder.target_cache)
        self.active.append(decoder)

    def step(self) -> tuple[list[tuple[Decoder, Round]], Pass]:
        """One round for every active request; stopped requests leave the batch."""
        plans = [d.propose() for d in self.active]
        t0 = time.perf_counter()
        verified = self._verify(plans)
        ms = (time.perf_counter() - t0) * 1e3
        done = [(d, d.conclude(p, v, ms)) for d, p, v in zip(self.active, plans, verified)]
        fed = tuple(len(p.pending) + len(p.prop.tokens) for p in plans)
        for d, _rnd in done:
            if d.stop is not None:
                self.leave(d)
        if self.active:
            self.cache.compact()
        return done, Pass(len(plans), fed, max(fed), ms, sum(p.draft_ms for p in plans))

    def leave(self, decoder: Decoder) -> None:
        self.cache.leave(decoder.target_cache)
        self.active.remove(decoder)

    @torch.no_grad()
    def _verify(self, plans: list[Plan]) -> list[Verified]:
        """One target forward over every request's [pending, drafts]; p (m + 1, V) per request."""
        pair, feeds = self.pair, [p.pending + p.prop.tokens for p in plans]
        lengths, width = [len(f) for f in feeds], max(len(f) for f in feeds)
        ids = torch.zeros(len(feeds), width, dtype=torch.long)                     # (B, R)
        pos = torch.zeros(len(feeds), width, dtype=torch.long)                     # (B, R)
        for b, (row, feed) in enumerate(zip(self.cache.rows, feeds)):
            start = row.get_seq_length()
            ids[b, :len(feed)] = torch.tensor(feed)
            pos[b] = torch.arange(start, start + width)
        mask = None if self.cache.causal() else self.cache.mask(lengths, width)     # (B, 1, R, T + R)
        with final_hidden_states(pair.target, batched=True) as seen:
            logits = forward_batch(pair.target, ids.to(pair.device), self.cache.cache, pos.to(pair.device),
                                   None if mask is None else mask.to(pair.device))
        self.cache.appended(lengths)
        logits = logits[..., :pair.vocab_size].float().cpu()                      # (B, R, V)
        result = []
        for b, (d, plan, n) in enumerate(zip(self.active, plans, lengths)):
            keep = len(plan.prop.tokens) + 1
            feats = seen[-1][b, :n] if isinstance(d.drafter, FeatureReader) else None
            result.append(Verified(probs_from_logits(checks.logits(logits[b, n - keep:n]), d.settings.sampling), feats))
        return result


def check_batchable(settings: Settings) -> None:
    if DRAFTERS[settings.drafter].shape != Shape.CHAIN:
        raise InputError(N_("batched decoding runs chain drafters (a tree round keeps scattered cache "
                            "rows); got drafter {value}"), value=settings.drafter)


MAX_PROMPTS = 256      # prompts per call: each holds its own caches (a server takes more, in turn)
Progress = Callable[[int, int, str], None]     # (requests done, requests, what now): as the bench's


def generate_batch(pair: Pair, prompts: list[Prompt], settings: Settings | None = None,
                   seeds: list[int] | None = None, progress: Progress | None = None, **overrides) -> list[Run]:
    """B requests together, one Run per prompt (in order). Request i samples with its own
    generator, seeded `seeds[i]` (default: the settings' seed for every request, so each run
    equals `specdec.generate` of that prompt alone with the same settings). `progress`, if
    given, hears (requests finished, requests, what now) while the batch reads and runs."""
    settings = checked(pair, settings, overrides)
    check_prompts(prompts)
    seeds = seeds if seeds is not None else [settings.seed] * len(prompts)
    if not isinstance(seeds, (list, tuple)):
        raise InputError(N_("seeds must be a list of whole numbers, one per prompt, got {kind}"),
                         kind=type(seeds).__name__)
    if len(seeds) != len(prompts):
        raise InputError(N_("one seed per prompt: {n} prompts, {m} seeds"), n=len(prompts), m=len(seeds))
    if progress is not None and not callable(progress):
        raise InputError(N_("progress must be a function of (done, total, text), got {kind}"),
                         kind=type(progress).__name__)
    return _run_batch(pair, prompts, settings, seeds, progress or (lambda *_: None))


def check_prompts(prompts) -> None:
    """A list of 1 to MAX_PROMPTS prompts. A string or a chat is one prompt, not a list: iterating
    it would run each character (or each message) as a request of its own."""
    if isinstance(prompts, (str, dict)) or _one_chat(prompts):
        raise InputError(N_("generate_batch takes a list of prompts, got one prompt: pass [prompt]"))
    if not isinstance(prompts, (list, tuple)):
        raise InputError(N_("generate_batch takes a list of prompts, got {kind}"), kind=type(prompts).__name__)
    if not prompts:
        raise InputError(N_("generate_batch needs at least one prompt"))
    if len(prompts) > MAX_PROMPTS:
        raise InputError(N_("generate_batch takes at most {limit} prompts per call, got {n}: split them "
                            "into calls (or serve them: specdec.engine.serving.serve)"),
                         limit=MAX_PROMPTS, n=len(prompts))


def _one_chat(prompts) -> bool:
    """A list of messages ({"role", "content"}) is one chat, not a batch of prompts."""
    return isinstance(prompts, (list, tuple)) and bool(prompts) and \
        all(isinstance(m, dict) and "role" in m for m in prompts)


def _run_batch(pair: Pair, prompts: list, settings: Settings, seeds: list, progress: Progress) -> list[Run]:
    """Every prompt read (alone, then joined), then rounds until every request stops."""
    total, batch = len(prompts), Batch(pair, settings)
    decoders = [Decoder(pair, p, replace(settings, seed=s), batched=True) for p, s in zip(prompts, seeds)]
    for i, d in enumerate(decoders):
        progress(0, total, f"reading prompt {i + 1} of {total}")
        batch.join(d)
    rounds = 0
    while batch.active:
        progress(total - len(batch.active), total, f"round {rounds + 1}, {len(batch.active)} running")
        batch.step()
        rounds += 1
    progress(total, total, "done")
    return [d.result() for d in decoders]
