"""In a server (the page of that name, issue 30): speculation with many requests at once.

Three measurements, each a typed record with its provenance, kept and shipped like the other
pages' (records/codec.py):
- the batch sweep: throughput, latency and the target pass's price against batch size,
  autoregressive vs speculative at the same batch (batching.py: a `BatchSweep`);
- `timeline`: continuous batching — requests arriving over time join and leave the batch
  (engine/serving.py), with each request's time to first token and time per output token;
- `prefixes`: the same requests with and without the prefix cache (prefill time saved).
`kv_per_token` measures what one cached token costs in the target's and the draft's KV cache;
`together` serves a few prompts in one batch and then one by one (the tour's live step).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

from specdec.drafters.base import Shape
from specdec.drafters.registry import DRAFTERS, chain_for
from specdec.engine.batch import generate_batch
from specdec.engine.decoder import Decoder, generate
from specdec.engine.serving import PrefixCache, Request, arrivals, serve
from specdec.records.provenance import Provenance, here
from specdec.settings import LENGTHS, Mode, Settings
from specdec.wording import _


@dataclass(frozen=True)
class ServerTick:
    """One round of the server: which requests were in the batch and what each emitted."""
    start: float
    end: float
    requests: tuple[int, ...]
    emitted: tuple[int, ...]


@dataclass(frozen=True)
class ServedRequest:
    """One request's life (seconds on the server's clock), its tokens, TTFT and TPOT."""
    arrival: float
    admitted: float
    first_token: float
    finished: float
    tokens: int
    ttft: float
    tpot: float


@dataclass(frozen=True)
class Timeline:
    max_batch: int
    rate: float                      # requests arriving per second
    seconds: float
    tokens: int
    ticks: tuple[ServerTick, ...]
    served: tuple[ServedRequest, ...]
    provenance: Provenance


@dataclass(frozen=True)
class PrefixRun:
    requests: int
    block: int
    prompt_tokens: int
    reused: int                      # prompt tokens the prefix cache supplied
    hits: int
    prefill_s: float                 # without the prefix cache
    prefill_cached_s: float          # with it
    identical: bool                  # every request's output the same with and without
    provenance: Provenance


@dataclass(frozen=True)
class KvBytes:
    target: float | None             # bytes one cached position takes (None: no cache)
    draft: float | None
    prompt_tokens: int


@dataclass(frozen=True)
class Together:
    requests: int
    tokens: int
    batch_s: float
    alone_s: float
    identical: bool
    same: int                        # requests whose text came out the same both ways


def timeline(pair, prompts: list, settings: Settings, progress, requests: int = 8,
             max_batch: int = 4, rate: float = 4.0) -> Timeline:
    """`requests` requests (the prompts cycled, request i seeded i) arriving at `rate` per
    second, at most `max_batch` at once: who was in which round, and each one's latency."""
    started = time.perf_counter()
    progress(0, requests, "serving")
    times = arrivals(requests, rate, seed=0)
    log = serve(pair, [Request(prompts[i % len(prompts)], times[i], seed=i) for i in range(requests)],
                settings, max_batch=max_batch, on_round=lambda n, done, total: progress(
                    done, total, _("round {n}: {done} of {total} requests done").format(n=n, done=done, total=total)))
    progress(requests, requests, "done")
    ticks = tuple(ServerTick(t.start, t.end, tuple(t.requests), tuple(t.emitted)) for t in log.ticks)
    served = tuple(ServedRequest(s.arrival, s.admitted, s.first_token, s.finished, len(s.run.token_ids), s.ttft,
                                 s.tpot) for s in log.served)
    return Timeline(max_batch, rate, log.seconds, log.tokens, ticks, served, here(pair, None, started))


def prefixes(pair, prompts: list, settings: Settings, progress, block: int = 16) -> PrefixRun:
    """The requests served one at a time, without and with the prefix cache: prefill seconds,
    and the prompt tokens the cache supplied."""
    started, reqs = time.perf_counter(), [Request(p, seed=i) for i, p in enumerate(prompts)]
    progress(0, 2, "without the prefix cache")
    plain = serve(pair, reqs, settings, max_batch=1)
    progress(1, 2, "with the prefix cache")
    cache = PrefixCache(pair, block=block)
    cached = serve(pair, reqs, settings, max_batch=1, prefix=cache)
    progress(2, 2, "done")
    same = [a.run.token_ids == b.run.token_ids for a, b in zip(plain.served, cached.served)]
    return PrefixRun(len(reqs), block, sum(len(s.run.prompt_ids) for s in plain.served),
                     sum(s.reused for s in cached.served), cache.hits, plain.prefill_seconds,
                     cached.prefill_seconds, all(same), here(pair, None, started))


def kv_per_token(pair, prompt, settings: Settings) -> KvBytes:
    """Bytes one cached position takes in the target's and in the drafter's KV cache, read off
    the caches of a short run (None for a drafter without a cache of its own)."""
    decoder = Decoder(pair, prompt, replace(settings, max_new_tokens=LENGTHS.kv_probe))
    for _round in decoder:
        pass
    own = DRAFTERS[settings.drafter].keeps_cache and settings.mode == Mode.SPECULATIVE
    return KvBytes(_bytes(decoder.target_cache), _bytes(decoder.drafter.cache if own else None),
                   len(decoder.prompt_ids))


def _bytes(cache) -> float | None:
    if cache is None or not cache.get_seq_length():
        return None
    layers = [layer for layer in cache.layers if getattr(layer, "keys", None) is not None]
    return sum(layer.keys.nbytes + layer.values.nbytes for layer in layers) / cache.get_seq_length()


def speculative(settings: Settings, pair) -> Settings:
    """The server's settings: the given ones, speculative, with a chain drafter (a batch cannot
    run a tree round; a pair without a draft model drafts by n-gram lookup)."""
    s = replace(settings, mode="speculative")
    if DRAFTERS[s.drafter].shape != Shape.CHAIN or (DRAFTERS[s.drafter].needs_draft_model and pair.draft is None):
        s = replace(s, drafter=chain_for(pair is not None and pair.draft is not None).name)
    return s


def together(pair, prompts: list, settings: Settings) -> Together:
    """The prompts served in one batch and then one after another: the seconds of each way, the
    tokens, and whether every request's text came out the same."""
    t0 = time.perf_counter()
    batch = generate_batch(pair, prompts, settings)
    t1 = time.perf_counter()
    alone = [generate(pair, p, settings) for p in prompts]
    t2 = time.perf_counter()
    return Together(len(prompts), sum(len(r.token_ids) for r in batch), t1 - t0, t2 - t1,
                    [r.token_ids for r in batch] == [r.token_ids for r in alone],
                    sum(b.token_ids == a.token_ids for b, a in zip(batch, alone)))
