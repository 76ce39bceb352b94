"""In a server: speculation with many requests at once (issue 30), measured for the page.

Three measurements, each JSON-ready so it can be kept and shipped like the other pages':
- `sweep`: throughput, latency and the target pass's price against batch size, autoregressive
  vs speculative at the same batch (specdec/bench/batching.py);
- `timeline`: continuous batching — requests arriving over time join and leave the batch
  (engine/serving.py), with each request's time to first token and time per output token;
- `prefixes`: the same requests with and without the prefix cache (prefill time saved).
`kv_per_token` measures what one cached token costs in the target's and the draft's KV cache.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import replace
from typing import Callable

from specdec import defaults
from specdec.bench.batching import batch_bench
from specdec.drafters.base import Shape
from specdec.drafters.registry import DRAFTERS, chain_for
from specdec.engine.batch import generate_batch
from specdec.engine.decoder import Decoder, generate
from specdec.engine.serving import PrefixCache, Request, arrivals, serve
from specdec.settings import LENGTHS, Mode, Settings
from specdec.wording import _

Progress = Callable[[int, int, str], None]


def sweep(pair, prompts: list, settings: Settings, progress: Progress, sizes=None, repeats: int = 2) -> dict:
    return batch_bench(pair, prompts, list(sizes or defaults.SIZES), settings, repeats, progress)


def timeline(pair, prompts: list, settings: Settings, progress: Progress, requests: int = 8,
             max_batch: int = 4, rate: float = 4.0) -> dict:
    """`requests` requests (the prompts cycled, request i seeded i) arriving at `rate` per
    second, at most `max_batch` at once: who was in which round, and each one's latency."""
    progress(0, 1, "serving")
    times = arrivals(requests, rate, seed=0)
    reqs = [Request(prompts[i % len(prompts)], times[i], seed=i) for i in range(requests)]
    log = serve(pair, reqs, settings, max_batch=max_batch)
    progress(1, 1, "done")
    return {"max_batch": max_batch, "rate": rate, "seconds": log.seconds, "tokens": log.tokens,
            "ticks": [{"start": t.start, "end": t.end, "requests": list(t.requests), "emitted": list(t.emitted)}
                      for t in log.ticks],
            "served": [{"arrival": s.arrival, "admitted": s.admitted, "first_token": s.first_token,
                        "finished": s.finished, "tokens": len(s.run.token_ids), "ttft": s.ttft, "tpot": s.tpot}
                       for s in log.served]}


def prefixes(pair, prompts: list, settings: Settings, progress: Progress, block: int = 16) -> dict:
    """The requests served one at a time, without and with the prefix cache: prefill seconds,
    and the prompt tokens the cache supplied."""
    reqs = [Request(p, seed=i) for i, p in enumerate(prompts)]
    progress(0, 2, "without the prefix cache")
    plain = serve(pair, reqs, settings, max_batch=1)
    progress(1, 2, "with the prefix cache")
    cache = PrefixCache(pair, block=block)
    cached = serve(pair, reqs, settings, max_batch=1, prefix=cache)
    progress(2, 2, "done")
    same = [a.run.token_ids == b.run.token_ids for a, b in zip(plain.served, cached.served)]
    return {"requests": len(reqs), "block": block, "prompt_tokens": sum(len(s.run.prompt_ids) for s in plain.served),
            "reused": sum(s.reused for s in cached.served), "hits": cache.hits,
            "prefill_s": plain.prefill_seconds, "prefill_cached_s": cached.prefill_seconds,
            "identical": all(same)}


def kv_per_token(pair, prompt, settings: Settings) -> dict:
    """Bytes one cached position takes in the target's and in the drafter's KV cache, read off
    the caches of a short run (None for a drafter without a cache of its own)."""
    decoder = Decoder(pair, prompt, replace(settings, max_new_tokens=LENGTHS.kv_probe))
    for _round in decoder:
        pass
    own = DRAFTERS[settings.drafter].keeps_cache and settings.mode == Mode.SPECULATIVE
    return {"target": _bytes(decoder.target_cache), "draft": _bytes(decoder.drafter.cache if own else None),
            "prompt_tokens": len(decoder.prompt_ids)}


def _bytes(cache) -> float | None:
    if cache is None or not cache.get_seq_length():
        return None
    layers = [layer for layer in cache.layers if getattr(layer, "keys", None) is not None]
    return sum(layer.keys.nbytes + layer.values.nbytes for layer in layers) / cache.get_seq_length()


def summary(result: dict) -> dict:
    """From a sweep: the largest speedup and where, the crossover, the pass price's growth."""
    spec = [r for r in result["rows"] if r["mode"] == Mode.SPECULATIVE]
    base = {r["batch"]: r for r in result["rows"] if r["mode"] == Mode.AUTOREGRESSIVE}
    best = max(spec, key=lambda r: r["speedup"])
    first, last = spec[0], spec[-1]
    return {"best": best["speedup"], "best_batch": best["batch"], "crossover": result.get("crossover"),
            "first": first["speedup"], "first_batch": first["batch"],
            "last": last["speedup"], "last_batch": last["batch"],
            "pass_ratio_1": _ratio(first["pass_ms"], base[first["batch"]]["pass_ms"]),
            "draft_ms_1": first["draft_ms"], "tokens_per_pass_1": _ratio(1.0, first["forwards_per_token"]),
            "pass_growth": last["pass_ms"] / first["pass_ms"] if first["pass_ms"] else 0.0,
            "rows_growth": last["pass_rows"] / first["pass_rows"] if first["pass_rows"] else 0.0,
            "ar_growth": base[last["batch"]]["tokens_per_s"] / base[first["batch"]]["tokens_per_s"],
            "spreads": [(r["batch"], lo / hi) for r in spec
                        for lo, hi in [(r["tokens_per_s_min"], r["tokens_per_s_max"])] if hi]}


def _ratio(a: float, b: float) -> float:
    return a / b if b else 0.0


def ttft_stats(result: dict) -> dict:
    served = result["served"]
    return {"ttft_median": statistics.median(s["ttft"] for s in served),
            "ttft_max": max(s["ttft"] for s in served),
            "tpot_median": statistics.median(s["tpot"] for s in served),
            "busiest": max(len(t["requests"]) for t in result["ticks"])}


def speculative(settings: Settings, pair) -> Settings:
    """The page's settings: the sidebar's, speculative, with a chain drafter (a batch cannot
    run a tree round; a pair without a draft model drafts by n-gram lookup)."""
    s = replace(settings, mode="speculative")
    if DRAFTERS[s.drafter].shape != Shape.CHAIN or (DRAFTERS[s.drafter].needs_draft_model and pair.draft is None):
        s = replace(s, drafter=chain_for(pair is not None and pair.draft is not None).name)
    return s


def verdict(facts: dict) -> str:
    """What the sweep shows, computed from it."""
    head = _("At batch size 1 speculative decoding ran **{first:.2f}×** as fast as autoregressive "
             "decoding; at batch size {last_b} **{last:.2f}×**.").format(
        first=facts["first"], last=facts["last"], last_b=facts["last_batch"])
    if facts["crossover"] is not None and facts["crossover"] <= facts["first_batch"]:
        return head + " " + _("It did not pay at any batch size measured here, not even for one request "
                              "alone: at batch size 1 a speculative round cost {v:.1f}× an autoregressive "
                              "pass plus {d:.0f} ms of drafting, and brought {t:.2f} tokens.").format(
            v=facts["pass_ratio_1"], d=facts["draft_ms_1"], t=facts["tokens_per_pass_1"])
    if facts["crossover"]:
        return head + " " + _("It stopped paying at batch size **{b}**, the smallest measured size where "
                              "it was no faster.").format(b=facts["crossover"])
    return head + " " + _("It paid at every batch size measured here.")


def together(pair, prompts: list, settings: Settings) -> dict:
    """The prompts served in one batch and then one after another (the tour's live step): the
    seconds of each way, the tokens, and whether every request's text came out the same."""
    t0 = time.perf_counter()
    batch = generate_batch(pair, prompts, settings)
    t1 = time.perf_counter()
    alone = [generate(pair, p, settings) for p in prompts]
    t2 = time.perf_counter()
    return {"requests": len(prompts), "tokens": sum(len(r.token_ids) for r in batch), "batch_s": t1 - t0,
            "alone_s": t2 - t1, "identical": [r.token_ids for r in batch] == [r.token_ids for r in alone],
            "same": sum(b.token_ids == a.token_ids for b, a in zip(batch, alone))}


def together_words(r: dict) -> str:
    """The tour's sentence on a batch against the same requests one by one, from `together`."""
    text = _("{n} requests, {tokens} tokens: together {batch:.1f} s ({fast:.1f} tokens/s), one by one {alone:.1f} s "
             "({slow:.1f} tokens/s). {same} of {n} requests wrote token for token the text they wrote alone.").format(
        n=r["requests"], tokens=r["tokens"], batch=r["batch_s"], fast=r["tokens"] / r["batch_s"],
        alone=r["alone_s"], slow=r["tokens"] / r["alone_s"], same=r["same"])
    if r["same"] < r["requests"]:
        text += " " + _("The others parted at a near-tie: a batched pass can round the last bits of p differently "
                        "from a lone one, and a draw that close to the line then falls the other way. Each text "
                        "still follows the target's distribution.")
    return text
