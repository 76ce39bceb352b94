"""A server's loop over time: continuous batching and prefix caching (issue 30).

Requests arrive over time (`arrivals`: a seeded Poisson process). At every round boundary the
server admits the requests that have arrived, while the batch has room (`max_batch`): each
reads its prompt alone (its prefill), then joins the batch (engine/batch.py); a request that
stops leaves at once and frees its cache row, so the batch refills from the queue.

Time is the machine's own: every prefill and every round advances the server's clock by what
it took (perf_counter), and an idle server jumps to the next arrival instead of sleeping. So a
request's time to first token (arrival → the end of its first round: queueing + prefill + one
round) and its time per output token are what this machine would give it.

A prefix cache keeps the target's KV cache of prompt beginnings already read, in whole blocks
of `block` tokens (as vLLM's automatic prefix caching does): a request whose prompt starts with
a kept block reads only the rest. Chats of one app share the template's system prompt.
"""
from __future__ import annotations

import math
import random
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, replace
from typing import Callable

import torch

from specdec.engine.batch import Batch
from specdec.engine.decoder import Decoder, check_pair, checked
from specdec.engine.prompt import Prompt
from specdec.errors import InputError
from specdec.models.pair import Pair
from specdec.models.runtime import new_cache
from specdec.settings import Settings
from specdec.trace.run import Run
from specdec.wording import N_

MAX_ARRIVALS = 100_000       # arrival times per call: far more requests than one server run serves


def _whole(value, name: str, low: int | None = None) -> int:
    """`value` if it is a whole number (>= low); a bool is not one here, as in Settings."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(N_("{name} must be a whole number, got {value}"), name=name, value=repr(value)[:40])
    if low is not None and value < low:
        raise InputError(N_("{name} must be a whole number >= {low}, got {value}"), name=name, low=low, value=value)
    return value


def _finite(value, name: str) -> float:
    """`value` if it is a finite number >= 0 (a time or a rate; NaN would sort anywhere)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise InputError(N_("{name} must be a finite number >= 0, got {value}"), name=name, value=repr(value)[:40])
    return value


@dataclass(frozen=True)
class Request:
    prompt: Prompt
    arrival: float = 0.0        # seconds after the server starts
    seed: int = 0               # its own generator's seed

    def __post_init__(self):
        _finite(self.arrival, "a request's arrival")
        _whole(self.seed, "a request's seed")


@dataclass(frozen=True)
class Served:
    """One request's life in the server (seconds on the server's clock)."""
    run: Run
    arrival: float
    admitted: float             # its prefill began
    first_token: float          # its first round ended
    finished: float
    reused: int                 # prompt tokens read from the prefix cache instead of computed

    @property
    def ttft(self) -> float:
        """Time to first token: queueing, the prefill and one round."""
        return self.first_token - self.arrival

    @property
    def latency(self) -> float:
        """Arrival to last token (queueing, the prefill and every round): the same origin as ttft,
        so ttft <= latency always."""
        return self.finished - self.arrival

    @property
    def tpot(self) -> float:
        """Time per output token after the first."""
        return (self.finished - self.first_token) / max(1, len(self.run.token_ids) - 1)


@dataclass(frozen=True)
class Tick:
    """One round of the server: which requests were in the batch and what each emitted."""
    start: float
    end: float
    requests: tuple[int, ...]   # request indices (the order of `requests`)
    emitted: tuple[int, ...]    # tokens each emitted this round
    width: int                  # the widest row of the pass (pending + drafts)
    verify_ms: float            # the target's pass over the whole batch
    draft_ms: float             # every request's drafting, together


@dataclass(frozen=True)
class ServeLog:
    served: tuple[Served, ...]  # in request order
    ticks: tuple[Tick, ...]
    seconds: float              # the server's clock at the end
    prefill_seconds: float      # of it, spent on prefills

    @property
    def tokens(self) -> int:
        return sum(len(s.run.token_ids) for s in self.served)

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.seconds if self.seconds else 0.0


def arrivals(n: int, rate: float, seed: int = 0) -> list[float]:
    """n arrival times of a Poisson process with `rate` requests per second (0: all at once)."""
    _whole(n, "the number of arrivals", 0)
    if n > MAX_ARRIVALS:
        raise InputError(N_("at most {limit} arrivals per call, got {n}"), limit=MAX_ARRIVALS, n=n)
    _finite(rate, "the arrival rate (requests per second)")
    _whole(seed, "the arrivals' seed")
    if rate == 0:
        return [0.0] * n
    rng, t, out = random.Random(seed), 0.0, []
    for _ in range(n):
        t += rng.expovariate(rate)
        out.append(t)
    if out and not math.isfinite(out[-1]):          # a rate so small the gaps overflow a float
        raise InputError(N_("the arrival rate {rate} is too small: the arrival times would pass the "
                            "largest number a float holds"), rate=rate)
    return out


class PrefixCache:
    """The target's cache of prompt beginnings, by whole blocks: every block boundary of a kept
    prompt can be found (a later prompt may share only its first blocks); least recently used
    prompts dropped."""

    def __init__(self, pair: Pair, block: int = 16, capacity: int = 64):
        check_pair(pair)
        self.pair = pair
        self.block = _whole(block, "the prefix cache's block (tokens)", 1)
        self.capacity = _whole(capacity, "the prefix cache's capacity (prompts)", 1)
        self.prompts: OrderedDict[tuple[int, ...], tuple[list, torch.Tensor | None]] = OrderedDict()
        self.blocks: dict[tuple[int, ...], tuple[int, ...]] = {}     # a block boundary -> its kept prompt
        self.hits = self.reused = 0

    def prefill(self, decoder: Decoder) -> int:
        """Run the decoder's prefill, from the longest kept prefix of its prompt; keep its own
        blocks for later requests. Returns the prompt tokens reused."""
        ids = decoder.prompt_ids[:-1]
        length, entry = self._longest(ids)
        if entry is not None:
            decoder.target_cache = _cache_of(self.pair.target, entry[0], length)
            self.hits, self.reused = self.hits + 1, self.reused + length
        decoder.read_prompt(length, entry[1] if entry else None)
        self._keep(ids, decoder)
        return length

    def _longest(self, ids: list[int]):
        for length in range(len(ids) // self.block * self.block, 0, -self.block):
            owner = self.blocks.get(tuple(ids[:length]))
            if owner is not None and owner in self.prompts:
                self.prompts.move_to_end(owner)
                return length, self.prompts[owner]
        return 0, None

    def _keep(self, ids: list[int], decoder: Decoder) -> None:
        length = len(ids) // self.block * self.block
        if not length or tuple(ids[:length]) in self.prompts:
            return
        layers = [(layer.keys[..., :length, :].clone(), layer.values[..., :length, :].clone())
                  for layer in decoder.target_cache.layers]
        feats = decoder.prompt_feats[:length].clone() if decoder.prompt_feats is not None else None
        owner = tuple(ids[:length])
        self.prompts[owner] = (layers, feats)
        for m in range(self.block, length + 1, self.block):
            self.blocks[tuple(ids[:m])] = owner
        while len(self.prompts) > self.capacity:
            self.prompts.popitem(last=False)


def _cache_of(model, layers: list, length: int) -> object:
    """A new DynamicCache holding copies of the first `length` positions of kept (keys, values)."""
    cache = new_cache(model)
    for layer, (keys, values) in zip(cache.layers, layers):
        layer.lazy_initialization(keys, values)
        layer.keys, layer.values = keys[..., :length, :].clone(), values[..., :length, :].clone()
    return cache


def serve(pair: Pair, requests: list[Request], settings: Settings | None, max_batch: int = 8,
          prefix: PrefixCache | None = None, on_round: Callable[[int, int, int], None] | None = None) -> ServeLog:
    """Run every request through one server loop; see the module's docstring. `on_round(rounds,
    finished, requests)` is called after every round (a page's progress bar)."""
    server = _Server(pair, requests, _check_serve(pair, requests, settings, max_batch, prefix), max_batch,
                     prefix)
    while server.queue or server.batch.active:
        server.admit()
        server.tick()
        if on_round is not None:
            on_round(len(server.ticks), sum(j.finished is not None for j in server.jobs.values()), len(requests))
    served = tuple(Served(job.decoder.result(), requests[job.index].arrival, job.admitted, job.first_token,
                          job.finished, job.reused) for job in sorted(server.jobs.values(), key=lambda j: j.index))
    return ServeLog(served, tuple(server.ticks), server.clock, server.prefill_s)


@dataclass
class _Job:
    """One admitted request: its decoder and its times on the server's clock."""
    index: int                  # in `requests`
    decoder: Decoder
    admitted: float
    reused: int
    first_token: float | None = None
    finished: float | None = None


class _Server:
    """serve's state: the queue of requests not yet admitted (by arrival), the batch, every
    admitted request's job (found by its decoder), the rounds so far and the server's clock."""

    def __init__(self, pair: Pair, requests: list[Request], settings: Settings, max_batch: int,
                 prefix: PrefixCache | None):
        self.pair, self.requests, self.settings = pair, requests, settings
        self.max_batch, self.prefix = max_batch, prefix
        self.queue = deque(sorted(range(len(requests)), key=lambda i: requests[i].arrival))
        self.batch, self.clock, self.prefill_s = Batch(pair, settings), 0.0, 0.0
        self.jobs: dict[Decoder, _Job] = {}
        self.ticks: list[Tick] = []

    def admit(self) -> None:
        """Idle until the next arrival when nothing runs; then admit what has arrived, up to max_batch."""
        if not self.batch.active and self.requests[self.queue[0]].arrival > self.clock:
            self.clock = self.requests[self.queue[0]].arrival
        while self.queue and self.requests[self.queue[0]].arrival <= self.clock and \
                len(self.batch.active) < self.max_batch:
            self._start(self.queue.popleft())

    def _start(self, i: int) -> None:
        """Request i's decoder reads its prompt (from the prefix cache where it can) and joins the batch."""
        decoder = Decoder(self.pair, self.requests[i].prompt, replace(self.settings, seed=self.requests[i].seed),
                          batched=True)
        t0 = time.perf_counter()
        if self.prefix is not None:
            reused = self.prefix.prefill(decoder)
        else:
            decoder.read_prompt()
            reused = 0
        self.batch.join(decoder)
        took = time.perf_counter() - t0
        self.jobs[decoder] = _Job(i, decoder, self.clock, reused)
        self.clock, self.prefill_s = self.clock + took, self.prefill_s + took

    def tick(self) -> None:
        """One round of the batch; its requests' first and last tokens are stamped with its end."""
        t0 = time.perf_counter()
        done, step = self.batch.step()
        start, self.clock = self.clock, self.clock + time.perf_counter() - t0
        jobs = [self.jobs[d] for d, _r in done]
        self.ticks.append(Tick(start, self.clock, tuple(j.index for j in jobs), tuple(len(r.emitted) for _d, r in done),
                               step.width, step.ms, step.draft_ms))
        for job in jobs:
            job.first_token = self.clock if job.first_token is None else job.first_token
            if job.decoder.stop is not None:
                job.finished = self.clock


def _check_serve(pair: Pair, requests, settings: Settings | None, max_batch, prefix) -> Settings:
    """serve's arguments, each with its own message (a server fed a bad one would fail rounds in);
    the settings (None: the defaults, as for generate)."""
    settings = checked(pair, settings, {})
    if not isinstance(requests, (list, tuple)) or not all(isinstance(r, Request) for r in requests):
        raise InputError(N_("requests must be a list of Request(prompt, arrival, seed), got {value}"),
                         value=repr(requests)[:60])
    _whole(max_batch, "max_batch (requests in the batch at once)", 1)
    if prefix is not None and (not isinstance(prefix, PrefixCache) or prefix.pair is not pair):
        raise InputError(N_("prefix must be a PrefixCache of this pair (PrefixCache(pair)) or None"))
    return settings
