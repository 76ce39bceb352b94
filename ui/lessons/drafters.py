"""Drafters compared: every embedded draft, n-gram lookup and the draft-length policies,
on the same prompts against the same target; overall and per kind of text."""
from __future__ import annotations

import statistics
from dataclasses import dataclass, replace

from specdec.bench.measure import drafter_cost, machine_load, timed
from specdec.defaults import REPEATS
from specdec.prompts import Prompt, as_input
from specdec.records.provenance import Clock, clock_for
from specdec.settings import Settings
from specdec.trace.metrics import summarize
from ui.lessons import store


@dataclass(frozen=True)
class Variant:
    label: str
    draft: str | None        # None: no draft model (n-gram)
    drafter: str = "model"
    policy: str = "constant"


def variants(drafts: list[str], policy_draft: str, exit_layer: int) -> list[Variant]:
    out = [Variant(d.split("/", 1)[-1], d) for d in drafts]
    out.append(Variant("n-gram lookup", None, drafter="ngram"))
    out.append(Variant(f"early exit @ {exit_layer}", None, drafter="early-exit"))
    out += [Variant(f"{policy_draft.split('/', 1)[-1]} · {p}", policy_draft, policy=p)
            for p in ("heuristic", "confidence")]
    return out


def _tps(pooled: dict, clock: Clock = Clock.WALL) -> float:
    seconds = pooled.get("cpu_seconds", 0.0) if clock == Clock.CPU else pooled["seconds"]
    return pooled["tokens"] / seconds if seconds else 0.0


def _ups(spec: list[dict], base: list[dict], kind: str, clock: Clock) -> list[float]:
    return [_tps(s[kind], clock) / _tps(b[kind], clock) for s, b in zip(spec, base)
            if _tps(b[kind], clock)] or [0.0]


def _rows(label: str, spec: list[dict], base: list[dict], c: float, load: float) -> list[dict]:
    """spec, base: per repeat, the pooled runs by kind. Speedup: median and range over repeats,
    on CPU time when the machine was busy (measure.clock_for), with the wall-clock median."""
    rows, clock = [], clock_for(load)
    for kind in ["all"] + sorted(k for k in spec[0] if k != "all"):
        m = summarize(spec[0][kind]["rounds"])          # counts: the first repeat
        ups = _ups(spec, base, kind, clock)
        rows.append({"drafter": label, "kind": kind, "acceptance_rate": m.acceptance_rate,
                     "mean_acceptance_length": m.mean_acceptance_length, "c": c,
                     "speedup": statistics.median(ups), "speedup_min": min(ups),
                     "speedup_max": max(ups), "clock": clock,
                     "speedup_wall": statistics.median(_ups(spec, base, kind, Clock.WALL)), "load": load})
    return rows


def _by_kind(pair, prompts: list[Prompt], settings: Settings, chat: bool) -> dict:
    """Pooled tokens, seconds and rounds per kind (and 'all')."""
    out: dict = {}
    for p in prompts:
        t = timed(pair, [as_input(p, chat)], settings)
        for kind in (p.kind, "all"):
            acc = out.setdefault(kind, {"tokens": 0, "seconds": 0.0, "cpu_seconds": 0.0, "rounds": []})
            acc["tokens"] += t.tokens
            acc["seconds"] += t.seconds
            acc["cpu_seconds"] += t.cpu_seconds
            acc["rounds"] += list(t.rounds)
    return out


def compare(load, target: str, all_variants: list[Variant], prompts: list[Prompt],
            settings: Settings, progress, repeats: int = REPEATS, chat: bool = False) -> list[dict]:
    """Every variant against the target alone; repeats interleaved (repeat r of every run
    before repeat r + 1 of any), so a slow spell of the machine hits all alike. chat: send
    each prompt as a one-message chat (an instruct target)."""
    runs = [("target alone", load(target, None), replace(settings, mode="autoregressive"))] + \
        [(v.label, load(target, v.draft), replace(settings, drafter=v.drafter, policy=v.policy))
         for v in all_variants]
    pooled: list[list[dict]] = [[] for _ in runs]
    busiest = machine_load()
    for r in range(repeats):
        for i, (label, pair, s) in enumerate(runs):
            progress(r * len(runs) + i, repeats * len(runs), f"{label} (repeat {r + 1})")
            pooled[i].append(_by_kind(pair, prompts, s, chat))
            busiest = max(busiest, machine_load())
    progress(repeats * len(runs), repeats * len(runs), "done")
    rows = []
    for (label, pair, s), spec in zip(runs[1:], pooled[1:]):
        rows += _rows(label, spec, pooled[0], drafter_cost(pair, s)[0], busiest)
    return rows


def figure_key(target: str, settings: Settings, all_variants: list[Variant], prompts: list[Prompt], chat: bool,
               ran: store.Ran = store.DEFAULT_RAN):
    """The store key (ui/lessons/store.py) of a row: its variant's draft, drafter and policy, on
    the prompts of the row's kind ("all": every prompt)."""
    by_label = {v.label: v for v in all_variants}

    def key_of(row: dict):
        v = by_label.get(row["drafter"])
        if v is None:
            return None
        texts = [p.prompt for p in prompts if row["kind"] in ("all", p.kind)]
        s = replace(settings, drafter=v.drafter, policy=v.policy)
        return store.key(target, v.draft, s, s.k, store.PromptSet.of(texts, chat, settings.max_new_tokens,
                                                                  f"drafters/{row['kind']}"),
                         row.get("clock", Clock.WALL), ran)
    return key_of
