"""When speculation is fast: measured sweeps to put next to Leviathan's theory.

Each sweep calls `progress(done, total, label)` so the page can draw a bar and the
user can stop it; results are plain dicts (JSON-ready) and cached on disk per machine.
"""
from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Callable

from specdec.measure import cost_ratio, timed, verify_cost, verify_cost_in_run
from specdec.settings import Settings
from specdec.theory import expected_speedup, expected_tokens, speedup_with_verify

BENCH_FILE = Path(__file__).resolve().parent.parent.parent / "build" / "bench.json"
# written by `python -m specdec bench --out build/bench.json`
Progress = Callable[[int, int, str], None]


def read_bench(uploaded: bytes | None, default: Path | None = None) -> tuple[dict | None, str | None]:
    """(benchmark result, error message): an uploaded file, else the local one if any."""
    default = BENCH_FILE if default is None else default
    if uploaded is None and not default.exists():
        return None, None
    raw = uploaded if uploaded is not None else default.read_bytes()
    try:
        result = json.loads(raw[:MAX_BENCH_BYTES + 1], parse_constant=float)
        if len(raw) > MAX_BENCH_BYTES or not _bench_shape_ok(result):
            raise ValueError
        return result, None
    except (ValueError, KeyError, TypeError, RecursionError, UnicodeDecodeError):
        return None, ("this file is not the JSON of `python -m specdec bench --json` "
                      "(no settings with rows): rerun the bench with --json and upload its output")


MAX_BENCH_BYTES = 8 * 2**20


def _number(x, optional: bool = True) -> bool:
    if x is None:
        return optional
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _bench_shape_ok(result) -> bool:
    """Every field the page reads has the type it expects (an uploaded file is untrusted)."""
    head = isinstance(result, dict) and isinstance(result.get("settings"), list) and \
        result["settings"] and all(isinstance(result.get(k), str) for k in ("target", "draft")) and \
        all(_number(result.get(k), False) for k in ("prompts", "max_new_tokens", "repeats", "c"))
    return head and all(
        isinstance(s, dict) and _number(s.get("k"), False) and _number(s.get("temperature"), False)
        and _number(s.get("verify_cost")) and isinstance(s.get("rows"), list)
        and all(isinstance(r, dict) and isinstance(r.get("row"), str)
                and all(_number(v) for key, v in r.items() if key not in ("row", "seconds"))
                for r in s["rows"])
        for s in result["settings"])


def _row(spec, base, c: float, k: int, v: float = 1.0) -> dict:
    """v: measured cost of the (k+1)-token verification pass in target steps."""
    m = spec.metrics
    alpha = m.mean_beta or 0.0
    return {"k": k, "alpha": alpha, "acceptance_rate": m.acceptance_rate or 0.0,
            "tokens_per_round": m.mean_acceptance_length or 0.0, "c": c,
            "speedup": spec.tokens_per_s / base.tokens_per_s if base.tokens_per_s else 0.0,
            "theory_tokens": expected_tokens(alpha, k), "theory_speedup": expected_speedup(alpha, k, c),
            "verify_cost": v, "theory_speedup_v": speedup_with_verify(alpha, k, c, v),
            "tokens_per_s": spec.tokens_per_s, "baseline_tokens_per_s": base.tokens_per_s}


def k_sweep(pair, prompts: list[str], ks: list[int], settings: Settings,
            progress: Progress) -> list[dict]:
    """Measured tokens/round and wall-clock speedup for each k, with theory at measured α̂, c
    (and at the cost v_k of each (k+1)-token verification pass as these runs paid it)."""
    c, _, target_ms = cost_ratio(pair)
    progress(0, len(ks) + 1, "autoregressive baseline")
    base = timed(pair, prompts, replace(settings, mode="autoregressive"))
    rows = []
    for i, k in enumerate(ks):
        progress(i + 1, len(ks) + 1, f"k = {k}")
        spec = timed(pair, prompts, replace(settings, k=k))
        v = (verify_cost_in_run(spec.rounds, base.rounds, k)
             or verify_cost(pair.target, pair.vocab_size, k, target_ms))
        rows.append(_row(spec, base, c, k, v))
    return rows


def draft_tradeoff(load, target: str, drafts: list[str], prompts: list[str], settings: Settings,
                   progress: Progress) -> list[dict]:
    """For each draft (and the n-gram drafter): acceptance, c, measured speedup at one k.

    `load(target, draft)` returns a Pair (the page passes its cached loader).
    """
    rows, total, k = [], len(drafts) + 2, settings.k
    progress(0, total, "autoregressive baseline")
    target_only = load(target, None)
    base = timed(target_only, prompts, replace(settings, mode="autoregressive"))
    for i, draft in enumerate(drafts):
        progress(i + 1, total, draft)
        pair = load(target, draft)
        spec = timed(pair, prompts, replace(settings, drafter="model"))
        params = sum(p.numel() for p in pair.draft.parameters())
        rows.append({"draft": draft, "params": params, **_row(spec, base, cost_ratio(pair)[0], k)})
    progress(total - 1, total, "n-gram lookup")
    spec = timed(target_only, prompts, replace(settings, drafter="ngram"))
    rows.append({"draft": "n-gram lookup", "params": 0, **_row(spec, base, 0.0, k)})
    progress(total, total, "done")
    return rows


def temperature_sweep(pair, prompts: list[str], temps: list[float], settings: Settings,
                      progress: Progress) -> list[dict]:
    """α̂ (mean β) and acceptance rate against temperature."""
    rows = []
    for i, t in enumerate(temps):
        progress(i, len(temps), f"T = {t}")
        m = timed(pair, prompts, replace(settings, temperature=t)).metrics
        rows.append({"temperature": t, "alpha": m.mean_beta or 0.0,
                     "acceptance_rate": m.acceptance_rate or 0.0,
                     "tokens_per_round": m.mean_acceptance_length or 0.0})
    progress(len(temps), len(temps), "done")
    return rows
