"""When speculation is fast: measured sweeps to put next to Leviathan's theory.

Each sweep calls `progress(done, total, label)` so the page can draw a bar and the
user can stop it; results are plain dicts (JSON-ready) and cached on disk per machine.
"""
from __future__ import annotations

import re
import statistics
from dataclasses import replace
from pathlib import Path
from typing import Callable

from specdec.bench.measure import (
    cost_ratio,
    draft_cost_in_run,
    drafter_cost,
    interleaved,
    paid_in,
    speedups,
    timed,
    verify_cost,
)
from specdec.bench.record import Bench, BenchFileError, Row, RowKind, Setting
from specdec.defaults import REPEATS
from specdec.records.provenance import Clock, clock_for
from specdec.settings import Settings
from specdec.trace.theory import (
    expected_speedup,
    expected_tokens,
    profile_speedup,
    run_speedup,
    speedup_with_verify,
    tokens_from_profile,
)
from specdec.wording import _
from ui.lessons import store
from ui.lessons.bench_words import bench_row

ROOT = Path(__file__).resolve().parent.parent.parent
BENCH_FILE = ROOT / "build" / "bench.json"
# written by `python -m specdec bench --out build/bench.json`; without one the page shows the
# shipped measurement of the default pair against the fastest plain baselines (README).
SHIPPED_BENCH = ROOT / "assets" / "bench" / "best-baseline.json"
Progress = Callable[[int, int, str], None]


def read_bench(uploaded: bytes | None, default: Path | None = None) -> tuple[Bench | None, str | None]:
    """(benchmark result, error message): an uploaded file, else the local one, else the shipped one."""
    if default is None:
        default = BENCH_FILE if BENCH_FILE.exists() else SHIPPED_BENCH
    if uploaded is None and not default.exists():
        return None, None
    try:
        return Bench.from_json(uploaded if uploaded is not None else default.read_bytes()), None
    except BenchFileError as err:
        return None, (f"this file is not the JSON of `python -m specdec bench --json` ({_literal(str(err))}): "
                      "rerun the bench with --json and upload its output")


def _literal(text: str) -> str:
    """The file's words in the message as text, not Markdown (ui/safe.md's escapes; that module
    reaches Streamlit, which lesson computations may not)."""
    return re.sub(r"([\\`*_{}\[\]<>()#+\-.!|~:$&])", r"\\\1", text.encode("unicode_escape").decode("ascii"))




def _row(spec: list, base: list, c: float, k: int, load: float, v: float = 1.0,
         profile: list[int] | None = None, paid: list | None = None) -> dict:
    """spec, base: the repeats (Timed) of one setting and of the baseline; v: measured cost of
    the (k+1)-token verification pass in target steps; profile: drafts kept in each full round
    of the sweep's longest k (theory.tokens_from_profile); paid: each repeat's own prices
    (measure.Paid). Speedup: median and range over repeats."""
    m = spec[0].metrics                      # counts do not depend on timing: the first repeat
    alpha, clock = m.mean_beta or 0.0, clock_for(load)
    ups = speedups(spec, base, clock) or [0.0]
    other_clock = Clock.WALL if clock == Clock.CPU else Clock.CPU
    other = speedups(spec, base, other_clock) or [0.0]
    return {"k": k, "alpha": alpha, "acceptance_rate": m.acceptance_rate or 0.0,
            "tokens_per_round": m.mean_acceptance_length or 0.0, "c": c,
            "speedup": statistics.median(ups), "speedup_min": min(ups), "speedup_max": max(ups),
            "clock": clock, f"speedup_{clock}": statistics.median(ups),
            f"speedup_{other_clock}": statistics.median(other),
            "repeats": len(ups), "load": load,
            "theory_tokens": expected_tokens(alpha, k), "theory_speedup": expected_speedup(alpha, k, c),
            "verify_cost": v, "theory_speedup_v": speedup_with_verify(alpha, k, c, v),
            **({"profile_tokens": tokens_from_profile(profile, k),
                "profile_speedup": profile_speedup(profile, k, c, v)} if profile else {}),
            **(_paid(m.mean_acceptance_length or 1.0, k, paid) if paid else {}),
            "tokens_per_s": statistics.median(s.tokens_per_s for s in spec),
            "baseline_tokens_per_s": statistics.median(b.tokens_per_s for b in base)}


def _paid(tokens: float, k: int, paid: list) -> dict:
    """The whole runs' speedup predicted from what they paid: `tokens` kept a round, and each
    repeat's own prices (a slow spell raises both its time and its prices) with the prompt's
    reading and the bookkeeping (theory.run_speedup); the median over repeats."""
    def median(f) -> float:
        return statistics.median(f(p) for p in paid)
    return {"paid_speedup": median(lambda p: run_speedup(tokens, k, p.c, p.v, p.spec, p.base)),
            "prefill_steps": median(lambda p: p.spec.prefill), "base_prefill_steps": median(lambda p: p.base.prefill),
            "round_overhead": median(lambda p: p.spec.per_round), "base_overhead": median(lambda p: p.base.per_round)}


def k_sweep(pair, prompts: list[str], ks: list[int], settings: Settings,
            progress: Progress, repeats: int = REPEATS) -> list[dict]:
    """Measured tokens/round and wall-clock speedup for each k (repeats interleaved), with
    theory at measured α̂, c (as the runs paid it: a draft forward over a step of the
    autoregressive runs) and at the cost v_k of each (k+1)-token pass as the runs paid it."""
    c, _, target_ms = cost_ratio(pair)
    runs = [("base", pair, replace(settings, mode="autoregressive"))] + \
        [(f"k = {k}", pair, replace(settings, k=k)) for k in ks]
    timings, load = interleaved(runs, prompts, repeats, progress)
    base, rows, longest = timings["base"], [], max(ks)
    profile = [r.n_accepted for r in timings[f"k = {longest}"][0].rounds if r.drafted == longest]
    cs = [draft_cost_in_run([r for k in ks for r in timings[f"k = {k}"][i].rounds], base[i].rounds)
          for i in range(repeats)] if pair.draft is not None else []
    c = statistics.median(cs) if cs and None not in cs else c
    for k in ks:
        spec = timings[f"k = {k}"]
        paid = [paid_in(s, b, k, cs[i] if cs and cs[i] is not None else c)
                for i, (s, b) in enumerate(zip(spec, base))]
        paid = [p for p in paid if p is not None]
        v = statistics.median(p.v for p in paid) if paid else verify_cost(pair.target, pair.vocab_size, k, target_ms)
        rows.append(_row(spec, base, c, k, load, v, profile, paid))
    return rows


def draft_tradeoff(load, target: str, drafts: list[str], prompts: list[str], settings: Settings,
                   progress: Progress, repeats: int = REPEATS, exits: tuple[int, ...] = ()) -> list[dict]:
    """For each draft (and the n-gram drafter): acceptance, c, measured speedup at one k.
    `exits`: exit layers of early-exit drafts (the target's own first L layers and head) to
    measure beside them — a family's "too big" draft where it ships none.

    `load(target, draft)` returns a Pair (the page passes its cached loader).
    """
    target_only, k = load(target, None), settings.k
    pairs = {draft: load(target, draft) for draft in drafts}
    early = {early_exit_label(n): replace(settings, drafter="early-exit", exit_layer=n) for n in exits}
    runs = [("base", target_only, replace(settings, mode="autoregressive"))] + \
        [(d, pairs[d], replace(settings, drafter="model")) for d in drafts] + \
        [("n-gram lookup", target_only, replace(settings, drafter="ngram"))] + \
        [(label, target_only, s) for label, s in early.items()]
    timings, busy = interleaved(runs, prompts, repeats, progress)
    rows = [{"draft": d, "params": sum(p.numel() for p in pairs[d].draft.parameters()),
             **_row(timings[d], timings["base"], cost_ratio(pairs[d])[0], k, busy)} for d in drafts]
    rows.append({"draft": "n-gram lookup", "params": 0,
                 **_row(timings["n-gram lookup"], timings["base"], 0.0, k, busy)})
    return rows + [_early_row(label, target_only, s, timings, busy) for label, s in early.items()]


def early_exit_label(layers: int) -> str:
    return f"early exit @ {layers}"        # as Drafters compared names it (bench_words.drafter_name)


def _early_row(label: str, pair, settings: Settings, timings: dict, busy: float) -> dict:
    from specdec.drafters.early_exit import early_exit_model
    view = early_exit_model(pair.target, settings.exit_layer)
    return {"draft": label, "exit_layer": settings.exit_layer, "params": sum(p.numel() for p in view.parameters()),
            **_row(timings[label], timings["base"], drafter_cost(pair, settings)[0], settings.k, busy)}


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


def ksweep_figure(names, settings: Settings, prompts: store.PromptSet, ran: store.Ran = store.DEFAULT_RAN):
    """The store key of a k-sweep row: the active pair and drafter at the row's k."""
    return lambda row: store.key(names[0], names[1], settings, row["k"], prompts, row.get("clock", Clock.WALL), ran)


def tradeoff_figure(target: str, settings: Settings, prompts: store.PromptSet, ran: store.Ran = store.DEFAULT_RAN):
    """The store key of a draft-size row: a draft model with the model drafter, or n-gram lookup."""
    def key_of(row: dict):
        if "exit_layer" in row:                    # an early-exit draft: no draft model
            s = replace(settings, drafter="early-exit", exit_layer=row["exit_layer"])
            return store.key(target, None, s, settings.k, prompts, row.get("clock", Clock.WALL), ran)
        ngram = row["draft"] == "n-gram lookup"
        s = replace(settings, drafter="ngram" if ngram else "model")
        return store.key(target, None if ngram else row["draft"], s, settings.k, prompts,
                         row.get("clock", Clock.WALL), ran)
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
    busy = [r for r in rows if r.get("clock") == Clock.CPU]
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


BASELINES = (RowKind.AR, RowKind.USER_LOADED)      # runner.BASELINES: the speedups' reference


def _rate(row: Row | None) -> str | None:
    """'22.7 tokens/s (22.3–23.2)': the median over repeats and their range (a file's row
    without times or tokens gives None)."""
    if not (row and row.seconds and all(x > 0 for x in row.seconds) and row.tokens > 0):
        return None
    rates = sorted(row.tokens / s for s in row.seconds)
    spread = f" ({rates[0]:.1f}–{rates[-1]:.1f})" if len(rates) > 1 else ""
    return _("{rate:.1f} tokens/s{spread}").format(rate=row.tokens_per_s, spread=spread)


def baseline_caption(setting: Setting) -> str:
    """One bench setting against the fastest plain ways to run the same target, from its rows."""
    name = setting.baseline if setting.baseline in BASELINES else BASELINES[0]
    spec, base = setting.row(RowKind.SPEC), setting.row(RowKind.of(name))
    ok = _rate(spec) and _rate(base) and spec.speedup is not None
    text = _("T = {t:g}, k = {k}: speculative {spec}, {speedup:.2f}× the faster plain baseline, “{base}” "
             "at {rate}.").format(t=setting.temperature, k=setting.k, spec=_rate(spec),
                                  speedup=spec.speedup, base=bench_row(name), rate=_rate(base)) if ok else ""
    user = _rate(setting.row(RowKind.USER_LOADED))
    if user:
        text += " " + _("transformers as a user loads the model: {rate}.").format(rate=user)
    llama, lookup = _rate(setting.row(RowKind.LLAMA)), _rate(setting.row(RowKind.LLAMA_LOOKUP))
    if llama:
        text += " " + _("llama.cpp on the same GGUF: {rate}").format(rate=llama) + \
            (_(", with its prompt lookup {rate}").format(rate=lookup) if lookup else "") + "."
    genai, torch_ar = _rate(setting.row(RowKind.GENAI)), _rate(setting.row(RowKind.AR_TORCH))
    if genai:
        text += " " + _("ONNX Runtime's own generation loop (onnxruntime-genai) on the same build: "
                        "{rate}.").format(rate=genai)
    if torch_ar:
        text += " " + _("This engine with the target on torch: {rate}.").format(rate=torch_ar)
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


def profile_caption(rows: list[dict]) -> str | None:
    """How far the measured speedups sit from the prediction built on the acceptance profile
    and the prices the runs paid (None: a sweep without a profile)."""
    if not rows or not all(r.get("profile_speedup") for r in rows):
        return None
    worst, within = _largest_gap(rows, "profile_speedup")
    longest = max(rows, key=lambda r: r["k"])
    text = _("Predicted with the tokens a round kept read off the acceptance profile of k = {K} (not one "
             "independent α) and the prices v_k these runs paid: within {within:.0%} of the measured "
             "speedup at every k (largest gap at k = {k}: measured {m:.2f}×, predicted {p:.2f}×). At k = {K} "
             "eq. (1) at the mean α̂ expects {iid:.2f} tokens a round and the runs kept {kept:.2f}: "
             "acceptances come in runs, not independently.").format(
        K=longest["k"], within=within, k=worst["k"], m=worst["speedup"],
        p=worst["profile_speedup"], iid=longest["theory_tokens"], kept=longest["tokens_per_round"])
    return text + (" " + _paid_caption(rows) if all("paid_speedup" in r for r in rows) else "")


def _largest_gap(rows: list[dict], predicted: str) -> tuple[dict, float]:
    """The row whose measured speedup is furthest from `predicted`, and that distance (a share)."""
    gap = {r["k"]: abs(r["speedup"] / r[predicted] - 1) for r in rows}
    worst = max(rows, key=lambda r: gap[r["k"]])
    return worst, gap[worst["k"]]


def bench_run_caption(rows: list[dict], temperature: float) -> str | None:
    """How close a bench's whole-run predictions (the purple line) land to its measured
    speculative rows at one temperature (None: a file from before the column)."""
    spec = [r for r in rows if r["row"] == RowKind.SPEC and r["temperature"] == temperature]
    if not spec or not all(r.get("predicted_run") and r.get("speedup_vs_engine_ar") for r in spec):
        return None
    gaps = {r["k"]: r["speedup_vs_engine_ar"] / r["predicted_run"] - 1 for r in spec}
    worst = max(spec, key=lambda r: abs(gaps[r["k"]]))
    return _("Purple: the whole runs predicted from what they paid (each round's tokens, the draft step and "
             "the pass as these runs paid them, plus reading the prompt and the engine's bookkeeping in both "
             "modes). At T = {t:g} the measured speedup lies within {within:.0%} of it at every k (largest gap "
             "at k = {k}: measured {m:.2f}×, predicted {p:.2f}×).").format(
        t=temperature, within=abs(gaps[worst["k"]]), k=worst["k"], m=worst["speedup_vs_engine_ar"],
        p=worst["predicted_run"])


def _paid_caption(rows: list[dict]) -> str:
    """What the whole-run prediction counts besides the theorem's rounds, and how close it lands."""
    worst, within = _largest_gap(rows, "paid_speedup")
    first = min(rows, key=lambda r: r["k"])
    return _("The solid line counts what the theorem leaves out, with each k's own tokens per round: reading "
             "the prompt costs {p:.2f} steps per generated token in the autoregressive runs ({ps:.2f} with the "
             "draft's own reading) and the engine's bookkeeping {o:.2f} steps per round, paid whatever k is, so "
             "they pull every speedup toward 1. It lands within {within:.0%} of the measured speedup at every "
             "k (largest gap at k = {k}).").format(p=first["base_prefill_steps"], ps=first["prefill_steps"],
                                                    o=first["round_overhead"], within=within, k=worst["k"])
