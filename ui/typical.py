"""A run in context (issue 28): the pair's typical acceptance, α̂, tokens a round and speedup
at the same k and T for a kind of prompt, from the kept or shipped "Where it works" results.

A single run says little about a pair: one code prompt can accept 80 % of its drafts where
the pair's average over eight code chats is 30 %. Home and Step through show each per-run
figure beside this typical value, or say that no result at these settings exists yet.
"""
from __future__ import annotations

import functools
import statistics
from dataclasses import dataclass, fields

from specdec.bench import where
from specdec.bench.where import WhereSet
from specdec.errors import InputError
from specdec.settings import Mode, Settings
from specdec.trace.theory import Overheads
from ui.lessons import result_cache, shipped, store


@dataclass(frozen=True)
class Typical:
    kind: str | None             # None: every kind of the set
    prompts: int
    acceptance_rate: float | None
    alpha: float | None
    mean_acceptance_length: float | None
    speedup: float | None
    measured: str                # "here", or the CPU of a shipped result
    over: tuple | None = None    # (speculative, plain) theory.Overheads its runs paid besides their rounds
                                 # (where.pooled_besides; None: a result that recorded none)


def _candidates():
    """(key, where-set, measured) of the kept results, then the shipped ones."""
    yield from ((key, found, "here") for key, found in result_cache.kept("where", WhereSet))
    yield from ((key, found, found.provenance.cpu or "?") for key, found in shipped.all_of("where", WhereSet))


def _matches(key: dict, pair: tuple, k: int, temperature: float, drafter: str) -> bool:
    s = key.get("settings") or {}
    return (list(key.get("pair") or []) == list(pair) and s.get("k") == k and s.get("mode") == Mode.SPECULATIVE
            and drafter_of(s) == drafter and abs(float(s.get("temperature", -1)) - temperature) < 1e-9)


def drafter_of(values: dict) -> str | None:
    """The drafter of recorded settings as measurements name it (store.drafter_id: with the
    exit layer or the tree's shape it reads); None when they are not settings of this version."""
    names = {f.name for f in fields(Settings)}
    try:
        return store.drafter_id(Settings(**{name: v for name, v in values.items() if name in names}))
    except (InputError, KeyError):
        return None


DEFAULT_DRAFTER = store.drafter_id(Settings())


def stamp() -> tuple:
    """Names and modification times of every where-result file (the cache's key)."""
    files = [*result_cache.RESULTS_DIR.glob("where-*.json"), *shipped.SHIPPED_DIR.glob("where-*.json")]
    return tuple(sorted((str(f), f.stat().st_mtime_ns) for f in files if f.is_file()))


@functools.lru_cache(maxsize=4)
def decoded(stamp: tuple = ()) -> list[tuple[dict, WhereSet, str]]:
    """(key, where-set, measured) of every valid result; decoded once per set of files (a
    shipped result takes seconds to decode: ui/server/serve.py warms this at start-up)."""
    return list(_candidates())


def typical(pair: tuple, k: int, temperature: float, kind: str | None,
            drafter: str = DEFAULT_DRAFTER) -> Typical | None:
    """The first kept (else shipped) result at these settings, for `kind` (None or an unknown
    kind: all prompts); `drafter` as drafter_of names it."""
    for key, found, measured in decoded(stamp()):
        if not _matches(key, pair, k, temperature, drafter):
            continue
        results = list(found.results)
        chosen = [r for r in results if r.prompt.kind == kind] or results
        group = where.group_metrics(chosen, key=lambda r: "all")[0].metrics
        ups = where.group_speedup(chosen, key=lambda r: "all", clock=where.clock_of(chosen, found.load))[0].speedups
        return Typical(kind if chosen is not results else None, len(chosen), group.acceptance_rate,
                       group.mean_beta, group.mean_acceptance_length,
                       statistics.median(ups) if ups else None, measured, _over(chosen))
    return None


def _over(results) -> tuple[Overheads, Overheads] | None:
    """What the runs of `results` paid besides their rounds, pooled (where.pooled_besides)."""
    paid = where.pooled_besides(results)
    if not paid:
        return None
    return (Overheads(paid["prefill_steps"], paid["round_overhead"]),
            Overheads(paid["base_prefill_steps"], paid["base_overhead"]))
