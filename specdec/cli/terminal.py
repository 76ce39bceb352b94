"""Everything the CLI prints: a run marked up (plain or ANSI), its metrics, the benchmark
table and a progress bar on stderr."""
from __future__ import annotations

import sys

from specdec.bench.record import BatchSweep, Bench, Row, RowKind, Setting
from specdec.models.backend import Backend
from specdec.records.provenance import Clock, Provenance
from specdec.trace.run import Run

ANSI = {"prompt": "\033[2m", "accepted": "\033[32m", "rejected": "\033[9;31m",
        "correction": "\033[33m", "bonus": "\033[34m", "target": "", "reset": "\033[0m"}
PLAIN = {"prompt": ("", ""), "accepted": ("", ""), "rejected": ("[-", "-]"),
         "correction": ("{", "}"), "bonus": ("<", ">"), "target": ("", "")}
LEGEND_COLOUR = ("legend: \033[32maccepted draft\033[0m  \033[9;31mrejected draft\033[0m  "
                 "\033[33mcorrection (residual)\033[0m  \033[34mbonus (p_k+1)\033[0m")
LEGEND_PLAIN = "legend: accepted draft as is, [-rejected draft-], {correction}, <bonus>"


BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def visible(text: str) -> str:
    """Control and bidirectional-override characters shown as escapes (\\x1b, \\u202e), so
    text from a prompt or a model cannot move the cursor, recolour or reorder the terminal.
    Newlines and tabs stay as they are."""
    return "".join(ch if ch in "\n\t" or (ch.isprintable() and ch not in BIDI)
                   else ch.encode("unicode_escape").decode("ascii") for ch in text)


def _paint(text: str, kind: str, colour: bool) -> str:
    text = visible(text)
    if colour:
        return f"{ANSI[kind]}{text}{ANSI['reset']}" if ANSI[kind] else text
    left, right = PLAIN[kind]
    return f"{left}{text}{right}"


def marked_text(run: Run, colour: bool) -> str:
    """The prompt, then every round's accepted drafts, rejected draft and final token."""
    parts = [_paint(run.prompt, "prompt", colour)]
    for rnd in run.rounds:
        emitted = list(rnd.emitted)
        for pos in rnd.positions[:rnd.n_accepted]:
            if emitted:
                parts.append(_paint(pos.text, "accepted", colour))
                emitted.pop(0)
        if rnd.n_accepted < len(rnd.positions):          # a chain's rejected draft
            parts.append(_paint(rnd.positions[rnd.n_accepted].text, "rejected", colour))
        if emitted:
            parts.append(_paint(rnd.final.text, rnd.final.kind, colour))
    return "".join(parts)


def _fmt(value, spec: str = ".3f") -> str:
    return "n/a" if value is None else format(value, spec)


def metrics_table(run: Run, seconds: float | None = None) -> str:
    m = run.metrics
    rows = [("target backend", run.settings.get("backend", "torch")),
            ("rounds", m.rounds), ("tokens emitted", m.tokens), ("stop", run.stop_reason),
            ("acceptance rate", _fmt(m.acceptance_rate)),
            ("tokens a round (L, mean acceptance length)", _fmt(m.mean_acceptance_length)),
            ("per-position acceptance", " ".join(_fmt(x, ".2f") for x in m.per_position) or "n/a"),
            ("acceptance histogram (0..k)", " ".join(map(str, m.histogram))),
            ("target forwards / token", _fmt(m.target_forwards_per_token)),
            ("alpha-hat (mean beta)", _fmt(m.mean_beta)),
            ("draft ms / verify-pass ms (c / v_k)", _fmt(m.draft_per_verify)),
            ("expected tokens / round (Eq. 1)", _fmt(m.expected_tokens_per_round)),
            ("expected speedup (Thm 3.8)", _fmt(m.expected_speedup)),
            ("draft / verify ms", f"{m.draft_ms:.1f} / {m.verify_ms:.1f}")]
    if seconds:
        rows.append(("tokens / s", f"{m.tokens / seconds:.1f}"))
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def stderr_progress(done: int, total: int, label: str) -> None:
    width = 30
    filled = int(width * done / max(1, total))
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {label[:60]:<60}")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _cell(value, spec: str) -> str:
    return "—" if value is None else format(value, spec)


COLUMNS = (("tok/s", "tokens_per_s", ".1f", 8), ("fwd/tok", "target_forwards_per_token", ".3f", 9),
           ("acc", "acceptance_rate", ".2f", 7), ("len", "mean_acceptance_length", ".2f", 6),
           ("speedup", "speedup", ".2f", 9), ("wall", "speedup_wall", ".2f", 6), ("cpu", "speedup_cpu", ".2f", 6),
           ("bound", "bound", ".2f", 7),
           ("meas/bound", "measured_over_bound", ".2f", 11), ("bound(v)", "bound_with_verify", ".2f", 10),
           ("meas/bound(v)", "measured_over_bound_with_verify", ".2f", 14),
           ("run", "predicted_run", ".2f", 6), ("meas/run", "measured_over_predicted_run", ".2f", 9))


CLOCK_NOTE = {   # which clock the headline speedup used (specdec/bench/clock.py)
    "wall": "on wall-clock (the machine was idle: at most {load:.2f} load per core); wall and cpu "
            "give both clocks",
    "cpu": "on CPU time, since the machine was busy (load {load:.2f} per core: another job competed "
           "for the cores); wall and cpu give both clocks",
}


def _line(row: Row) -> str:
    return f"{row.row:<44}" + "".join(f"{_cell(getattr(row, key), spec):>{w}}" for _, key, spec, w in COLUMNS)


def table(result: Bench) -> str:
    """The whole bench: its head, one table per setting, then any batch sweeps."""
    lines = _head(result)
    for s in result.settings:
        lines += [""] + _setting(s, result.provenance.load or 0.0)
    for b in result.batch:
        lines += [""] + batch_table(b)
    return "\n".join(lines)


def _head(result: Bench) -> list[str]:
    """What was benched, on what, and what the columns mean."""
    lines = [f"target {result.target}  draft {result.draft}  prompts {result.prompts}  "
             f"max_new_tokens {result.max_new_tokens}  repeats {result.repeats}  "
             f"c = {result.c:.3f} ({_cell(result.draft_step_ms, '.2f')} / {_cell(result.target_step_ms, '.2f')} ms)",
             "bound = Theorem 3.8 from measured alpha and c (a verification pass priced at one target "
             "step); bound(v) = the same with the measured price v of a (k+1)-token pass; run = the "
             "whole runs predicted from what they paid (each round's tokens, c and v as paid, plus "
             "reading the prompt and the bookkeeping, in both modes)"]
    if RowKind.SPEC_DEFAULTS not in result.skipped_rows:
        lines.append("library defaults = up to 20 drafts a round, stop drafting after a draft with "
                     "q(d) < 0.4 (transformers also adapts that threshold during a run); the same in "
                     "every k table")
    lines += _machine_lines(result.provenance)
    exit_layer = f" after layer {result.exit_layer}" if result.exit_layer else ""
    lines.append(f"drafter: {result.drafter}{exit_layer}; transformers assisted = "
                 f"{result.library_drafting or 'none'}")
    if result.skipped_rows:
        lines.append(f"not run: {', '.join(result.skipped_rows)} ({result.skipped_why})")
    return lines


def _machine_lines(m: Provenance) -> list[str]:
    lines = [f"target backend (engine rows): {m.backend_note}"] if m.backend_note else []
    if m.kernels:
        label = "target's linear layers" + (" (torch rows)" if m.backend not in (None, Backend.TORCH) else "")
        lines.append(f"{label}: {m.kernels}")
    if m.bandwidth:
        lines.append(f"target's memory traffic: {m.bandwidth}")
    return lines


HEAD = f"{'row':<44}" + "".join(f"{name:>{w}}" for name, _, _, w in COLUMNS)


def _setting(s: Setting, load: float) -> list[str]:
    """One (T, k) table: the pass price, the rows, the baseline and the greedy check."""
    v, alone = _cell(s.verify_cost, ".2f"), _cell(s.verify_cost_alone, ".2f")
    lines = [f"T = {s.temperature}, k = {s.k}, v = {v} (in these runs one {s.k + 1}-token target pass cost "
             f"{v} steps, {alone} timed alone; that alone scales the bound by {_cell(s.ceiling, '.2f')})",
             HEAD, "-" * len(HEAD)]
    lines += [_line(r) for r in s.rows]
    if s.baseline:
        lines.append(f"speedup = tokens/s over the faster baseline: {s.baseline}; "
                     + CLOCK_NOTE[s.clock].format(load=load))
    if s.engine_slower_than_user_load:
        lines.append("the engine's autoregressive row is more than 5% slower than transformers as a "
                     "user loads the model: this machine has a faster plain way to run it")
    return lines + _greedy_lines(s)


def _greedy_lines(s: Setting) -> list[str]:
    if s.identical is None:
        return []
    compared = [r.row for r in s.rows if r.row not in s.not_compared]
    return [f"greedy outputs of {len(compared)} rows identical on every prompt: " + ("yes" if s.identical else "NO"),
            *(f"  not compared: {name} ({why})" for name, why in s.not_compared.items()),
            *(f"  prompt {m.prompt}: {m.row} differs from {m.reference} at token {m.position}: {m.why}"
              for m in s.mismatches)]


BATCH_HEAD = (f"{'batch':>6}{'mode':>16}{'tokens/s':>10}{'range':>14}{'latency s':>11}{'TTFT s':>9}"
              f"{'passes/tok':>12}{'pass ms':>9}{'rows/pass':>11}{'draft ms':>10}{'speedup':>9}")


def batch_table(b: BatchSweep) -> list[str]:
    """One batch sweep: B requests at once, autoregressive vs speculative at the same B."""
    lines = [f"batch sweep: k = {b.k}, T = {b.temperature}, drafter {b.drafter}, {b.prompts} prompts "
             f"cycled to {b.requests} requests x {b.max_new_tokens} tokens, served at most B at "
             f"once, {b.repeats} repeats; tokens/s of all requests on "
             f"{'CPU time (the machine was busy)' if b.clock == Clock.CPU else 'the wall-clock'}; latency = "
             "arrival to last token, TTFT arrival to first (waiting included in both)",
             "pass ms = one target pass over the batch (rows/pass tokens); draft ms = every request's "
             "drafting in a round (each drafts on its own, not batched)", BATCH_HEAD, "-" * len(BATCH_HEAD)]
    for r in b.rows:
        speedup = f"{r.speedup:.2f}x" if r.speedup is not None else ""
        lines.append(f"{r.batch:>6}{r.mode:>16}{r.tokens_per_s:>10.1f}"
                     f"{r.tokens_per_s_min:>7.1f}-{r.tokens_per_s_max:<6.1f}{r.latency_s:>11.2f}"
                     f"{r.ttft_s:>9.3f}{r.forwards_per_token:>12.3f}{r.pass_ms:>9.1f}"
                     f"{r.pass_rows:>11.1f}{r.draft_ms:>10.1f}{speedup:>9}")
    sizes = [r.batch for r in b.rows]
    lines.append("speculation was faster at every batch size measured" if b.crossover is None else
                 "speculation was not faster at any batch size measured" if b.crossover == min(sizes) else
                 f"speculation stopped paying at batch size {b.crossover} (the smallest measured size where "
                 "it was no faster)")
    return lines
