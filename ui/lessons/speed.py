"""When speculation is fast: measured sweeps to put next to Leviathan's theory.

Each sweep calls `progress(done, total, label)` so the page can draw a bar and the
user can stop it; results are plain dicts (JSON-ready) and cached on disk per machine.
"""
from __future__ import annotations

import json
import math
import statistics
from dataclasses import replace
from pathlib import Path
from typing import Callable

from specdec.bench.measure import clock_for, cost_ratio, interleaved, speedups, timed, verify_cost, verify_cost_in_run
from specdec.settings import Settings
from specdec.trace.theory import expected_speedup, expected_tokens, speedup_with_verify
from specdec.wording import _
from ui.lessons import store

ROOT = Path(__file__).resolve().parent.parent.parent
BENCH_FILE = ROOT / "build" / "bench.json"
# written by `python -m specdec bench --out build/bench.json`; without one the page shows the
# shipped measurement of the default pair against the fastest plain baselines (README).
SHIPPED_BENCH = ROOT / "assets" / "bench" / "best-baseline.json"
Progress = Callable[[int, int, str], None]


def read_bench(uploaded: bytes | None, default: Path | None = None) -> tuple[dict | None, str | None]:
    """(benchmark result, error message): an uploaded file, else the local one, else the shipped one."""
    if default is None:
        default = BENCH_FILE if BENCH_FILE.exists() else SHIPPED_BENCH
    if uploaded is None and not default.exists():
        return None, None
    raw = uploaded if uploaded is not None else default.read_bytes()
    try:
        result = json.loads(raw[:MAX_BENCH_BYTES + 1], parse_constant=float)
        if len(raw) > MAX_BENCH_BYTES or not _bench_shape_ok(result):
            raise ValueError
        return result, None
    except (ValueError, KeyError, TypeError, RecursionError, UnicodeDecodeError):
        return None, ("this file is not the JSON of `python -m specdec bench --json` (a field of "
                      "the wrong type, an unknown drafter, or a setting without the engine's rows): "
                      "rerun the bench with --json and upload its output")


MAX_BENCH_BYTES = 8 * 2**20


def _number(x, optional: bool = True) -> bool:
    if x is None:
        return optional
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


REQUIRED_ROWS = ("engine autoregressive", "engine speculative")   # every bench has them


def _text(x) -> bool:
    return x is None or isinstance(x, str) and len(x) <= 1000


def _bench_shape_ok(result) -> bool:
    """Every field the page reads has the type it expects (an uploaded file is untrusted): a
    known drafter, an integer exit layer, short texts, both engine rows in every setting; an
    n-gram or early-exit bench loads no draft model (draft: null)."""
    from specdec.drafters.registry import DRAFTERS
    head = isinstance(result, dict) and isinstance(result.get("settings"), list) and \
        result["settings"] and isinstance(result.get("target"), str) and \
        isinstance(result.get("draft"), (str, type(None))) and \
        all(_number(result.get(k), False) for k in ("prompts", "max_new_tokens", "repeats", "c")) and \
        result.get("drafter", "model") in DRAFTERS and \
        (result.get("exit_layer") is None or isinstance(result["exit_layer"], int)) and \
        all(_text(result.get(k)) for k in ("target", "draft", "library_drafting", "cpu", "target_kernels")) and \
        (result.get("threads") is None or isinstance(result["threads"], int))
    return head and all(
        isinstance(s, dict) and isinstance(s.get("rows"), list)
        and set(REQUIRED_ROWS) <= {r.get("row") for r in s["rows"] if isinstance(r, dict)} and
        _number(s.get("k"), False) and _number(s.get("temperature"), False)
        and _number(s.get("verify_cost")) and isinstance(s.get("rows"), list)
        and s.get("clock", "wall") in CLOCKS
        and all(isinstance(r, dict) and isinstance(r.get("row"), str) and r.get("clock", "wall") in CLOCKS
                and all(_number(v) for key, v in r.items() if key not in ("row", "seconds", "cpu_seconds", "clock"))
                and all(isinstance(r.get(key, []), list) and all(map(_number, r.get(key, [])))
                        for key in ("seconds", "cpu_seconds"))
                for r in s["rows"])
        for s in result["settings"])


CLOCKS = ("wall", "cpu")         # which clock a bench's headline speedups used (bench/clock.py)


REPEATS = 3
NEW_TOKENS = 48          # each prompt of When it is fast's measurements


def _row(spec: list, base: list, c: float, k: int, load: float, v: float = 1.0) -> dict:
    """spec, base: the repeats (Timed) of one setting and of the baseline; v: measured cost of
    the (k+1)-token verification pass in target steps. Speedup: median and range over repeats."""
    m = spec[0].metrics                      # counts do not depend on timing: the first repeat
    alpha, clock = m.mean_beta or 0.0, clock_for(load)
    ups = speedups(spec, base, clock) or [0.0]
    other = speedups(spec, base, "wall" if clock == "cpu" else "cpu") or [0.0]
    return {"k": k, "alpha": alpha, "acceptance_rate": m.acceptance_rate or 0.0,
            "tokens_per_round": m.mean_acceptance_length or 0.0, "c": c,
            "speedup": statistics.median(ups), "speedup_min": min(ups), "speedup_max": max(ups),
            "clock": clock, f"speedup_{clock}": statistics.median(ups),
            f"speedup_{'wall' if clock == 'cpu' else 'cpu'}": statistics.median(other),
            "repeats": len(ups), "load": load,
            "theory_tokens": expected_tokens(alpha, k), "theory_speedup": expected_speedup(alpha, k, c),
            "verify_cost": v, "theory_speedup_v": speedup_with_verify(alpha, k, c, v),
            "tokens_per_s": statistics.median(s.tokens_per_s for s in spec),
            "baseline_tokens_per_s": statistics.median(b.tokens_per_s for b in base)}


def k_sweep(pair, prompts: list[str], ks: list[int], settings: Settings,
            progress: Progress, repeats: int = REPEATS) -> list[dict]:
    """Measured tokens/round and wall-clock speedup for each k (repeats interleaved), with
    theory at measured α̂, c (and at the cost v_k of each (k+1)-token pass as the runs paid it)."""
    c, _, target_ms = cost_ratio(pair)
    runs = [("base", pair, replace(settings, mode="autoregressive"))] + \
        [(f"k = {k}", pair, replace(settings, k=k)) for k in ks]
    timings, load = interleaved(runs, prompts, repeats, progress)
    base, rows = timings["base"], []
    for k in ks:
        spec = timings[f"k = {k}"]
        v = (verify_cost_in_run(spec[0].rounds, base[0].rounds, k)
             or verify_cost(pair.target, pair.vocab_size, k, target_ms))
        rows.append(_row(spec, base, c, k, load, v))
    return rows


def draft_tradeoff(load, target: str, drafts: list[str], prompts: list[str], settings: Settings,
                   progress: Progress, repeats: int = REPEATS) -> list[dict]:
    """For each draft (and the n-gram drafter): acceptance, c, measured speedup at one k.

    `load(target, draft)` returns a Pair (the page passes its cached loader).
    """
    target_only, k = load(target, None), settings.k
    pairs = {draft: load(target, draft) for draft in drafts}
    runs = [("base", target_only, replace(settings, mode="autoregressive"))] + \
        [(d, pairs[d], replace(settings, drafter="model")) for d in drafts] + \
        [("n-gram lookup", target_only, replace(settings, drafter="ngram"))]
    timings, busy = interleaved(runs, prompts, repeats, progress)
    rows = [{"draft": d, "params": sum(p.numel() for p in pairs[d].draft.parameters()),
             **_row(timings[d], timings["base"], cost_ratio(pairs[d])[0], k, busy)} for d in drafts]
    rows.append({"draft": "n-gram lookup", "params": 0,
                 **_row(timings["n-gram lookup"], timings["base"], 0.0, k, busy)})
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


def ksweep_figure(names, settings: Settings, prompts: store.PromptSet, precision: str = "auto"):
    """The store key of a k-sweep row: the active pair and drafter at the row's k."""
    return lambda row: store.key(names[0], names[1], settings, row["k"], prompts, row.get("clock", "wall"),
                                 precision)


def tradeoff_figure(target: str, settings: Settings, prompts: store.PromptSet, precision: str = "auto"):
    """The store key of a draft-size row: a draft model with the model drafter, or n-gram lookup."""
    def key_of(row: dict):
        ngram = row["draft"] == "n-gram lookup"
        s = replace(settings, drafter="ngram" if ngram else "model")
        return store.key(target, None if ngram else row["draft"], s, settings.k, prompts,
                         row.get("clock", "wall"), precision)
    return key_of


def spread_warning(rows: list[dict]) -> str | None:
    """A warning when repeated speedups disagree (else None). A busy machine alone is not one:
    its rows carry CPU-time speedups (clock_note says so)."""
    from specdec.bench.measure import WIDE_SPREAD
    wide = [r for r in rows if r.get("speedup_min") and r["speedup_max"] / r["speedup_min"] > WIDE_SPREAD]
    if not wide:
        return None
    worst = max(wide, key=lambda r: r["speedup_max"] / r["speedup_min"])
    return _("Timing is unreliable here: repeats disagree by up to {ratio:.2f}× ({lo:.2f}–{hi:.2f}×). "
             "Acceptance and tokens per round do not depend on timing; re-measure the speedups with "
             "more repeats.").format(ratio=worst["speedup_max"] / worst["speedup_min"],
                                    lo=worst["speedup_min"], hi=worst["speedup_max"])


def clock_note(rows: list[dict]) -> str | None:
    """When the machine was busy: the speedups shown are on CPU time, with the wall-clock ones."""
    busy = [r for r in rows if r.get("clock") == "cpu"]
    if not busy:
        return None
    load = max(r.get("load", 0.0) for r in busy)
    walls = [r["speedup_wall"] for r in busy if r.get("speedup_wall") is not None]
    cpus = [r["speedup"] for r in busy]
    return _("The machine was busy (load {load:.1f} per core: other work competed for the cores), so "
             "these speedups use the CPU time the runs themselves needed ({lo:.2f}–{hi:.2f}×); on the "
             "wall-clock they read {wlo:.2f}–{whi:.2f}×.").format(
        load=load, lo=min(cpus), hi=max(cpus), wlo=min(walls, default=0.0), whi=max(walls, default=0.0))


def tradeoff_caption(rows: list[dict]) -> str:
    """What the draft sizes show, computed: does acceptance rise with size, which one is fastest."""
    models = sorted((r for r in rows if r["params"] > 0), key=lambda r: r["params"])
    if not models:
        return _("No draft models were measured.")
    acc = [r["acceptance_rate"] for r in models]
    rising = all(b >= a - 0.01 for a, b in zip(acc, acc[1:]))
    trend = (_("acceptance rises with draft size") if rising and acc[-1] > acc[0] + 0.01 else
             _("acceptance does not simply rise with draft size here ({values})").format(
                 values=", ".join(f"{r['draft']} {r['acceptance_rate']:.2f}" for r in models)))
    best = max(rows, key=lambda r: r["speedup"])
    verdict = (_("the fastest is {draft} at {speedup:.2f}×") if best["speedup"] > 1 else
               _("none beats the target alone (best: {draft} at {speedup:.2f}×)")).format(
        draft=best["draft"], speedup=best["speedup"])
    return _("Measured: {trend}; {verdict}. A draft pays when it is accepted often *and* cheap "
             "(c).").format(trend=trend, verdict=verdict)


BASELINES = ("engine autoregressive", "transformers generate (as a user loads it)")


def _rate(row: dict | None) -> str | None:
    """'22.7 tokens/s (22.3–23.2)': the median over repeats and their range (a file's row
    without numbers where they belong gives None)."""
    seconds = row.get("seconds") if row else None
    if not (isinstance(seconds, list) and seconds and all(_number(x, False) and x > 0 for x in seconds)
            and _number(row.get("tokens"), False) and _number(row.get("tokens_per_s"), False)):
        return None
    rates = sorted(row["tokens"] / s for s in seconds)
    spread = f" ({rates[0]:.1f}–{rates[-1]:.1f})" if len(rates) > 1 else ""
    return _("{rate:.1f} tokens/s{spread}").format(rate=row["tokens_per_s"], spread=spread)


def baseline_caption(setting: dict) -> str:
    """One bench setting against the fastest plain ways to run the same target, from its rows."""
    rows = {r["row"]: r for r in setting["rows"]}
    name = setting.get("baseline") if setting.get("baseline") in BASELINES else BASELINES[0]
    spec, base = rows.get("engine speculative"), rows.get(name)
    ok = _rate(spec) and _rate(base) and _number(spec.get("speedup"), False)
    text = _("T = {t:g}, k = {k}: speculative {spec}, {speedup:.2f}× the faster plain baseline, “{base}” "
             "at {rate}.").format(t=setting["temperature"], k=setting["k"], spec=_rate(spec),
                                  speedup=spec["speedup"], base=name, rate=_rate(base)) if ok else ""
    user = _rate(rows.get("transformers generate (as a user loads it)"))
    if user:
        text += " " + _("transformers as a user loads the model: {rate}.").format(rate=user)
    llama, lookup = _rate(rows.get("llama.cpp generate")), _rate(rows.get("llama.cpp prompt lookup (k)"))
    if llama:
        text += " " + _("llama.cpp on the same GGUF: {rate}").format(rate=llama) + \
            (_(", with its prompt lookup {rate}").format(rate=lookup) if lookup else "") + "."
    return text.strip()


def temperature_caption(rows: list[dict]) -> str:
    """What the temperature sweep shows, computed from its α̂ values."""
    ordered = sorted(rows, key=lambda r: r["temperature"])
    lo, hi = ordered[0], ordered[-1]
    change = lo["alpha"] - hi["alpha"]
    head = _("From T = {lo:g} to T = {hi:g}, α̂ went from {a_lo:.2f} to {a_hi:.2f}").format(
        lo=lo["temperature"], hi=hi["temperature"], a_lo=lo["alpha"], a_hi=hi["alpha"])
    if change > 0.02:
        return head + _(": sharper distributions agree more often, as expected.")
    if change < -0.02:
        return head + _(": here the draft agrees *more* at high temperature — flatter distributions "
                        "overlap more when both models are unsure.")
    return head + _(": no clear effect on these prompts.")
