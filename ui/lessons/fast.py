"""When speculation is fast: what the measured sweeps say next to Leviathan's theory, in
sentences computed from them (specdec/bench/sweeps.py measures), and the bench file the page
reads."""
from __future__ import annotations

import functools
import re
from dataclasses import replace
from pathlib import Path

from specdec.bench.record import Bench, BenchFileError
from specdec.drafters.base import DRAFTERS
from specdec.records.provenance import Clock
from specdec.settings import Settings
from specdec.trace.theory import expected_tokens
from specdec.wording import _
from ui.lessons import badges, shipped, store
from ui.lessons.bench_words import drafter_name

ROOT = Path(__file__).resolve().parent.parent.parent
BENCH_FILE = ROOT / "build" / "bench.json"
# written by `python -m specdec bench --out build/bench.json`; without one the page shows the
# shipped measurement of the default pair against the fastest plain baselines (README): the one
# shipped from this machine's CPU model where there is one (best-baseline-*.json), else the first.
SHIPPED_BENCH = ROOT / "assets" / "bench" / "best-baseline.json"


def shipped_bench(first: Path | None = None) -> Path:
    """The shipped bench measured on a CPU of this machine's model, else `first` (SHIPPED_BENCH): a
    machine like this one's reads as measured; another's stays "for comparison" (issue 51)."""
    first = first or SHIPPED_BENCH
    for path in sorted(first.parent.glob(first.stem + "*.json")):
        if shipped.alike(_bench_cpu(path)):
            return path
    return first


def _bench_cpu(path: Path) -> str | None:
    """The CPU a bench file was measured on (None where it cannot be read)."""
    try:
        return _cpu_of(str(path), path.stat().st_mtime_ns)
    except OSError:
        return None


@functools.lru_cache(maxsize=16)
def _cpu_of(path: str, _mtime: int) -> str | None:                 # read once a version of a file
    try:
        return Bench.from_json(Path(path).read_bytes()).provenance.cpu
    except (OSError, BenchFileError):
        return None


def read_bench(uploaded: bytes | None, default: Path | None = None) -> tuple[Bench | None, str | None]:
    """(benchmark result, error message): an uploaded file, else the local one, else the shipped one."""
    if default is None:
        default = BENCH_FILE if BENCH_FILE.exists() else shipped_bench()
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




def ksweep_figure(names, settings: Settings, prompts: store.PromptSet, ran: store.Ran = store.DEFAULT_RAN):
    """The store key of a k-sweep point: the active pair and drafter at the point's k."""
    return lambda point: store.key(names[0], names[1], settings, point.k, prompts, point.clock, ran)


def tradeoff_figure(target: str, settings: Settings, prompts: store.PromptSet, ran: store.Ran = store.DEFAULT_RAN):
    """The store key of a draft-size point: its drafter, with its draft model where it runs one
    (and an early-exit draft's layers)."""
    def key_of(point):
        if point.drafter not in DRAFTERS:
            return None
        kind = DRAFTERS[point.drafter]
        s = replace(settings, drafter=point.drafter, exit_layer=point.exit_layer or settings.exit_layer)
        return store.key(target, point.draft if kind.needs_draft_model else None, s, settings.k, prompts,
                         point.clock, ran)
    return key_of


def spread_warning(points, name=lambda p: f"k = {p.k}") -> str | None:
    """A warning when repeated speedups disagree (else None), naming the point (`name`) whose
    repeats disagree most. A busy machine alone is not one: its points carry CPU-time speedups
    (clock_note says so)."""
    from specdec.bench.measure import WIDE_SPREAD
    wide = [p for p in points if p.speedup_min and p.speedup_max / p.speedup_min > WIDE_SPREAD]
    if not wide:
        return None
    worst = max(wide, key=lambda p: p.speedup_max / p.speedup_min)
    return _("Timing is unreliable here: at {which} the repeats disagree by up to {ratio:.2f}× "
             "({lo:.2f}–{hi:.2f}×). Acceptance and tokens a round do not depend on timing; re-measure "
             "the speedups with more repeats.").format(which=name(worst), ratio=worst.speedup_max / worst.speedup_min,
                                                       lo=worst.speedup_min, hi=worst.speedup_max)


def clock_note(points, shipped_from: str | None = None) -> str | None:
    """When the machine was busy: the speedups shown are on CPU time, with the wall-clock ones
    (`shipped_from`: the CPU of a shipped result, the machine that was busy)."""
    busy = [p for p in points if p.clock == Clock.CPU]
    if not busy:
        return None
    return busy_note(max(p.load or 0.0 for p in busy), [p.speedup for p in busy],
                     [p.speedup_wall for p in busy if p.speedup_wall is not None], shipped_from)


def _figures(xs: list[float]) -> str:
    """'0.72–0.77×', or one figure where they round alike (review 38: "0.72–0.72×")."""
    lo, hi = f"{min(xs):.2f}", f"{max(xs):.2f}"
    return f"{lo}×" if lo == hi else f"{lo}–{hi}×"


def busy_note(load: float, cpus: list[float], walls: list[float], shipped_from: str | None = None) -> str:
    """The speedups on CPU time (`cpus`) of a busy machine, and the same on the wall-clock."""
    text = _("The machine was busy (load {load:.1f} per core: other work competed for the cores), so "
             "these speedups use the CPU time the runs themselves needed ({cpu}); on the "
             "wall-clock they read {wall}.").format(load=load, cpu=_figures(cpus), wall=_figures(walls or [0.0]))
    if shipped_from is None:
        return text
    return badges.shipped(shipped_from) + " " + text


def tradeoff_caption(points, shipped_from: str | None = None) -> str:
    """What the draft sizes show, computed: does acceptance rise with size, which one is fastest
    (`shipped_from`: the CPU of a shipped result, named as where it was measured)."""
    models = sorted((p for p in points if p.params > 0), key=lambda p: p.params)
    if not models:
        return _("No draft models were measured.")
    acc = [p.acceptance_rate for p in models]
    rising = all(b >= a - 0.01 for a, b in zip(acc, acc[1:]))
    trend = (_("acceptance rises with draft size") if rising and acc[-1] > acc[0] + 0.01 else
             _("acceptance does not simply rise with draft size here ({values})").format(
                 values=", ".join(f"{drafter_name(p.draft)} {p.acceptance_rate:.2f}" for p in models)))
    best = max(points, key=lambda p: p.speedup)
    verdict = (_("the fastest measured is {draft} at {speedup:.2f}×") if best.speedup > 1 else
               _("none beats the target alone (the best: {draft}, {speedup:.2f}×)")).format(
        draft=drafter_name(best.draft), speedup=best.speedup)
    text = _("{trend}; {verdict}. A draft pays when it is accepted often *and* cheap (c).").format(
        trend=trend, verdict=verdict)
    return badges.of(shipped_from) + " " + text[:1].upper() + text[1:]


def size_note(points) -> str | None:
    """Where a smaller draft model is accepted more often than a bigger one (by more than a point), the
    pair with the largest size ratio, and what that says; None where acceptance follows size."""
    models = sorted((p for p in points if p.params > 0), key=lambda p: p.params)
    pairs = [(small, big) for i, small in enumerate(models) for big in models[i + 1:]
             if big.params > small.params and small.acceptance_rate > big.acceptance_rate + 0.01]
    if not pairs:
        return None
    small, big = max(pairs, key=lambda sb: sb[1].params / sb[0].params)
    said = _("{small} ({small_m:.1f}M parameters) is accepted more often than {big} ({big_m:.1f}M, "
             "{ratio:.0f}× its size): what a draft learned to imitate counts for more than its size.").format(
        small=drafter_name(small.draft), small_m=small.params / 1e6, big=drafter_name(big.draft),
        big_m=big.params / 1e6, ratio=big.params / small.params)
    above = [p for p in models if p.params > small.params and p.acceptance_rate > small.acceptance_rate]
    if not above:
        return said
    top = max(above, key=lambda p: p.acceptance_rate)          # the figure that says otherwise, said too (review 29)
    return said + " " + _("Only {big} ({big_m:.1f}M) is accepted more often still ({rate:.0%} against "
                          "{small_rate:.0%}).").format(big=drafter_name(top.draft), big_m=top.params / 1e6,
                                                       rate=top.acceptance_rate, small_rate=small.acceptance_rate)


def temperature_caption(points, on: str) -> str:
    """What the temperature sweep shows, computed from its α̂ values; `on`: its prompts, in words (α̂
    moves with the text: another section's α̂ compares only on the same prompts)."""
    ordered = sorted(points, key=lambda p: p.temperature)
    lo, hi = ordered[0], ordered[-1]
    change = lo.alpha - hi.alpha
    head = _("On {on}, from T = {lo:g} to T = {hi:g}, α̂ went from {a_lo:.2f} to {a_hi:.2f}").format(
        on=on, lo=lo.temperature, hi=hi.temperature, a_lo=lo.alpha, a_hi=hi.alpha)
    if change > 0.02:
        return head + _(": sharper distributions agree more often, as expected.")
    if change < -0.02:
        return head + _(": here the draft agrees *more* at high temperature — flatter distributions "
                        "overlap more when both models are unsure.")
    return head + _(": no clear effect on these prompts.")


def profile_caption(points) -> str | None:
    """How far the measured speedups sit from the prediction built on the acceptance profile
    and the prices the runs paid (None: a sweep without a profile)."""
    if not points or not all(p.profile_speedup for p in points):
        return None
    worst, within = _largest_gap(points, "profile_speedup")
    longest = max(points, key=lambda p: p.k)
    alpha = sum(p.alpha for p in points) / len(points)           # the tokens chart's line: one α̂ for every k
    text = _("Predicted with the tokens a round kept read off the acceptance profile of k = {K} (not one "
             "independent α) and the prices v(k + 1) these runs paid: within {within:.0%} of the measured "
             "speedup at every k (largest gap at k = {k}: measured {m:.2f}×, predicted {p:.2f}×). At k = {K} "
             "eq. (1) at the mean α̂ = {a:.2f} expects {iid:.2f} tokens a round and the runs kept {kept:.2f}: "
             "acceptances come in runs, not independently.").format(
        K=longest.k, within=within, k=worst.k, m=worst.speedup, p=worst.profile_speedup, a=alpha,
        iid=expected_tokens(alpha, longest.k), kept=longest.mean_acceptance_length)
    return text + ("\n\n" + _paid_caption(points) if all(p.predicted_run is not None for p in points) else "")


def _largest_gap(points, predicted: str) -> tuple[object, float]:
    """The point whose measured speedup is furthest from `predicted` (a field), and that distance (a share)."""
    gap = {p.k: abs(p.speedup / getattr(p, predicted) - 1) for p in points}
    worst = max(points, key=lambda p: gap[p.k])
    return worst, gap[worst.k]


def _paid_caption(points) -> str:
    """What the whole-run prediction counts besides the theorem's rounds, and how close it lands."""
    worst, within = _largest_gap(points, "predicted_run")
    first = min(points, key=lambda p: p.k)
    return _("The solid line counts what the theorem leaves out, with each k's own tokens a round: reading "
             "the prompt costs {p:.2f} steps per generated token in the target alone's runs ({ps:.2f} with the "
             "draft's own reading) and the engine's bookkeeping {o:.2f} steps per round, paid whatever k is, so "
             "they pull every speedup toward 1. It lands within {within:.0%} of the measured speedup at every "
             "k (largest gap at k = {k}).").format(p=first.base_prefill_steps, ps=first.prefill_steps,
                                                    o=first.round_overhead, within=within, k=worst.k)
