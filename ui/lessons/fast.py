"""When speculation is fast: what the measured sweeps say next to Leviathan's theory, in
sentences computed from them (specdec/bench/sweeps.py measures), and the bench file the page
reads."""
from __future__ import annotations

import functools
import re
from dataclasses import replace
from pathlib import Path

import pandas as pd

from specdec.bench.record import PER_K, Bench, BenchFileError, Row, RowKind, Setting
from specdec.drafters.base import DRAFTERS
from specdec.records.provenance import Clock
from specdec.settings import Settings
from specdec.wording import N_, _, times
from ui.lessons import badges, shipped, store
from ui.lessons.bench_words import bench_row, drafter_name

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




BENCH_COLUMNS = ("tokens_per_s", "target_forwards_per_token", "acceptance_rate", "mean_acceptance_length",
                 "speedup", "speedup_vs_engine_ar", "bound", "measured_over_bound", "bound_with_verify",
                 "measured_over_bound_with_verify", "predicted_run", "measured_over_predicted_run")


USES_K = {*PER_K, RowKind.TREE}


def drafts_k(name: str) -> bool:
    """Whether a bench row's name is one that drafts the setting's k (an unknown name: as if it did)."""
    try:
        return RowKind.of(name) in USES_K
    except ValueError:
        return True


def bench_table(bench: Bench) -> pd.DataFrame:
    """One line per (temperature, k, row) for a row that drafts k, one per (temperature, row) with no k for the
    rest (the plain ways and transformers' drafting defaults ignore k: review 31, "library defaults" at "k = 1"):
    the setting, the row's name as shown, its headline numbers."""
    lines, seen = [], set()
    for s in bench.settings:
        for r in s.rows:
            uses_k = drafts_k(r.row)
            if not uses_k and (s.temperature, r.row) in seen:
                continue
            seen.add((s.temperature, r.row))
            lines.append({"temperature": s.temperature, "k": s.k if uses_k else None,
                          "verify_cost": s.verify_cost if uses_k else None, "row": bench_row(r.row),
                          **{c: getattr(r, c) for c in BENCH_COLUMNS}})
    table = pd.DataFrame(lines)
    if "k" in table:
        table["k"] = table["k"].astype("Int64")      # whole numbers, blank where a row ignores k (review 32: "1.00")
    return table


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


def busy_note(load: float, cpus: list[float], walls: list[float], shipped_from: str | None = None) -> str:
    """The speedups on CPU time (`cpus`) of a busy machine, and the same on the wall-clock."""
    text = _("The machine was busy (load {load:.1f} per core: other work competed for the cores), so "
             "these speedups use the CPU time the runs themselves needed ({lo:.2f}–{hi:.2f}×); on the "
             "wall-clock they read {wlo:.2f}–{whi:.2f}×.").format(
        load=load, lo=min(cpus), hi=max(cpus), wlo=min(walls, default=0.0), whi=max(walls, default=0.0))
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


BASELINES = (RowKind.AR, RowKind.USER_LOADED)      # runner.BASELINES: the speedups' reference


def _short(row: Row | None, spread: bool = True) -> str:
    """'22.7 (22.3–23.2)': tokens/s, the median over repeats and (`spread`) their range ("—" without one)."""
    if not (row and row.seconds and all(x > 0 for x in row.seconds) and row.tokens > 0):
        return "—"
    rates = sorted(row.tokens / s for s in row.seconds)
    return f"{row.tokens_per_s:.1f}" + (f" ({rates[0]:.1f}–{rates[-1]:.1f})" if spread and len(rates) > 1 else "")


PEERS = ((RowKind.USER_LOADED, N_("transformers")), (RowKind.LLAMA, N_("llama.cpp")),
         (RowKind.LLAMA_LOOKUP, N_("llama.cpp lookup")), (RowKind.GENAI, N_("onnxruntime-genai")),
         (RowKind.AR_TORCH, N_("engine on torch")))


def transformers_note(bench: Bench) -> str | None:
    """Which transformers the table's column is, and the other one's rate (review 30: "transformers 15.6" beside
    a 0.58× row of 39 tokens/s): None where the bench ran neither (llama.cpp's columns: `llama_note`)."""
    for s in bench.settings:
        loaded, ours, plain = s.row(RowKind.USER_LOADED), s.row(RowKind.HF), s.row(RowKind.AR)
        if loaded is not None and ours is not None and plain is not None:
            return _("transformers: `generate()` on the GGUF as a user loads it (float32 weights), {loaded:.1f} "
                     "tokens/s at T = {t:g}; on this engine's own modules (the integer kernels) {ours:.1f}; the "
                     "engine's own plain loop {plain:.1f}.").format(loaded=loaded.tokens_per_s, t=s.temperature,
                                                                    ours=ours.tokens_per_s, plain=plain.tokens_per_s)
    return None


def llama_note(bench: Bench) -> str | None:
    """llama.cpp's two columns in words, and the plain way the speedups divide by (review 31: "the llama.cpp
    columns are never explained"): None where it did not run."""
    return next((text for s in bench.settings if (text := _llama_words(s))), None)


def _llama_words(s: Setting) -> str:
    """One setting's llama.cpp rows in words ('' where it has none, or no plain row of the engine)."""
    llama, lookup, plain = s.row(RowKind.LLAMA), s.row(RowKind.LLAMA_LOOKUP), s.row(RowKind.AR)
    if llama is None or plain is None:
        return ""
    text = _("llama.cpp, on the same GGUF file: {llama:.1f} tokens/s decoding plainly").format(
        llama=llama.tokens_per_s)
    if lookup is not None:
        text += _("; {lookup:.1f} with its prompt lookup (drafts of k tokens copied from earlier in the text, no "
                  "draft model)").format(lookup=lookup.tokens_per_s)
    fastest = max((r for r in (plain, llama) if r is not None), key=lambda r: r.tokens_per_s)
    return text + ". " + _("The fastest plain way in this benchmark is {name} ({rate:.1f} tokens/s): every speedup "
                           "on this tab divides by it.").format(name=bench_row(fastest.row), rate=fastest.tokens_per_s)


def baseline_row(setting: Setting) -> dict:
    """One bench setting against the faster plain way to run the same target and its peers (tokens/s,
    the median; speculative and the plain way with their range over repeats), from its rows: a table
    row; peers the file has no row of are left out."""
    name = setting.baseline if setting.baseline in BASELINES else BASELINES[0]
    spec = setting.row(RowKind.SPEC)
    row = {"T": f"{setting.temperature:g}", "k": setting.k, _("speculative"): _short(spec),
           _("× plain"): times(None if spec is None else spec.speedup),
           _("plain way"): bench_row(name), _("plain"): _short(setting.row(RowKind.of(name)))}
    return row | {_(label): _short(setting.row(kind), False) for kind, label in PEERS if setting.row(kind) is not None}


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
    text = _("Predicted with the tokens a round kept read off the acceptance profile of k = {K} (not one "
             "independent α) and the prices v(k + 1) these runs paid: within {within:.0%} of the measured "
             "speedup at every k (largest gap at k = {k}: measured {m:.2f}×, predicted {p:.2f}×). At k = {K} "
             "eq. (1) at the mean α̂ expects {iid:.2f} tokens a round and the runs kept {kept:.2f}: "
             "acceptances come in runs, not independently.").format(
        K=longest.k, within=within, k=worst.k, m=worst.speedup, p=worst.profile_speedup,
        iid=longest.expected_length, kept=longest.mean_acceptance_length)
    return text + ("\n\n" + _paid_caption(points) if all(p.predicted_run is not None for p in points) else "")


def _largest_gap(points, predicted: str) -> tuple[object, float]:
    """The point whose measured speedup is furthest from `predicted` (a field), and that distance (a share)."""
    gap = {p.k: abs(p.speedup / getattr(p, predicted) - 1) for p in points}
    worst = max(points, key=lambda p: gap[p.k])
    return worst, gap[worst.k]


def bench_run_caption(bench: Bench, temperature: float) -> str | None:
    """How close a bench's whole-run predictions (the purple line) land to its measured
    speculative rows at one temperature (None: a file without the column)."""
    spec = [(s.k, s.row(RowKind.SPEC)) for s in bench.settings if s.temperature == temperature]
    if not spec or not all(r.predicted_run and r.speedup_vs_engine_ar for _k, r in spec):
        return None
    gaps = {k: r.speedup_vs_engine_ar / r.predicted_run - 1 for k, r in spec}
    k, worst = max(spec, key=lambda kr: abs(gaps[kr[0]]))
    return _("Purple: the whole runs predicted from what they paid (each round's tokens, the draft step and "
             "the pass as these runs paid them, plus reading the prompt and the engine's bookkeeping in both "
             "modes). At T = {t:g} the measured speedup lies within {within:.0%} of it at every k (largest gap "
             "at k = {k}: measured {m:.2f}×, predicted {p:.2f}×).").format(
        t=temperature, within=abs(gaps[k]), k=k, m=worst.speedup_vs_engine_ar, p=worst.predicted_run)


def fastest_caption(bench: Bench, temperature: float) -> str | None:
    """At one temperature, transformers' drafting defaults in the engine against the best constant k the bench
    ran: where they lead, what they do (review 29: 1.15× at T = 1 above every k, unsaid; `longer_caption` adds
    where their runs wrote another length); where they trail, why from their rounds (review 31: 0.95× at T = 0
    unexplained). None where a row is missing."""
    at = [s for s in bench.settings if s.temperature == temperature]
    ks = [(s.k, r) for s in at if (r := s.row(RowKind.SPEC)) is not None and r.speedup is not None]
    library = next((r for s in at if (r := s.row(RowKind.SPEC_DEFAULTS)) is not None and r.speedup is not None), None)
    if not ks or library is None:
        return None
    k, best = max(ks, key=lambda kr: kr[1].speedup)
    if library.speedup <= best.speedup:
        return _trailing(temperature, library, k, best)
    return _("At T = {t:g} the fastest is the engine with transformers' drafting defaults, {x} (the best constant k: "
             "{best} at k = {k}): it drafts while the draft is sure (probability at least 0.4, up to 20 tokens) and "
             "stops where it is not, so its rounds are long on easy text and short on hard ({tokens:.2f} tokens a "
             "round).").format(
        t=temperature, x=times(library.speedup), best=times(best.speedup), k=k,
        tokens=library.mean_acceptance_length or 0.0)


def longer_caption(bench: Bench, temperature: float) -> str | None:
    """Where transformers' drafting defaults led and their runs wrote a longer text than the plain runs (review
    31: 280 tokens against 203 at T = 1), that part of the lead is the text; None otherwise."""
    at = [s for s in bench.settings if s.temperature == temperature]
    best = max((r.speedup for s in at if (r := s.row(RowKind.SPEC)) is not None and r.speedup is not None),
               default=None)
    library = next((r for s in at if (r := s.row(RowKind.SPEC_DEFAULTS)) is not None and r.speedup is not None), None)
    plain = next((r for s in at if (r := s.row(RowKind.AR)) is not None), None)
    if best is None or library is None or plain is None or not plain.tokens or library.speedup <= best or \
            library.tokens <= LONGER_TEXT * plain.tokens:
        return None
    return _("Its runs also wrote {n} tokens against the plain runs' {m} (at T > 0 each run samples its own text), and "
             "a longer text reads its prompt fewer times a token: part of that lead is the text written, not the "
             "drafting.").format(n=library.tokens, m=plain.tokens)


LONGER_TEXT = 1.1      # runs that wrote 10 % more tokens than the plain runs: the text is part of the figure


def _drafts_a_round(row: Row) -> float | None:
    """Drafts a round from a row's tokens a round (the accepted drafts plus one) and acceptance rate."""
    if not row.mean_acceptance_length or not row.acceptance_rate:
        return None
    return (row.mean_acceptance_length - 1) / row.acceptance_rate


def _trailing(temperature: float, library: Row, k: int, best: Row) -> str | None:
    """Why transformers' drafting defaults ran slower than the best constant k: more drafts a round, fewer kept."""
    theirs, ours = _drafts_a_round(library), _drafts_a_round(best)
    if theirs is None or ours is None:
        return None
    return _("At T = {t:g} transformers' drafting defaults ran {x}, below the best constant k ({best} at k = {k}): "
             "they drafted about {theirs:.1f} tokens a round and {rate:.0%} were accepted, against {ours:.1f} and "
             "{best_rate:.0%} at k = {k}, so each kept token paid for more drafting.").format(
        t=temperature, x=times(library.speedup), best=times(best.speedup), k=k, theirs=theirs,
        rate=library.acceptance_rate, ours=ours, best_rate=best.acceptance_rate)


def _paid_caption(points) -> str:
    """What the whole-run prediction counts besides the theorem's rounds, and how close it lands."""
    worst, within = _largest_gap(points, "predicted_run")
    first = min(points, key=lambda p: p.k)
    return _("The solid line counts what the theorem leaves out, with each k's own tokens a round: reading "
             "the prompt costs {p:.2f} steps per generated token in the autoregressive runs ({ps:.2f} with the "
             "draft's own reading) and the engine's bookkeeping {o:.2f} steps per round, paid whatever k is, so "
             "they pull every speedup toward 1. It lands within {within:.0%} of the measured speedup at every "
             "k (largest gap at k = {k}).").format(p=first.base_prefill_steps, ps=first.prefill_steps,
                                                    o=first.round_overhead, within=within, k=worst.k)
