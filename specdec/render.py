"""Plain-text and ANSI rendering of a run for the terminal (the CLI)."""
from __future__ import annotations

from specdec.trace import Run

ANSI = {"prompt": "\033[2m", "accepted": "\033[32m", "rejected": "\033[9;31m",
        "correction": "\033[33m", "bonus": "\033[34m", "target": "", "reset": "\033[0m"}
PLAIN = {"prompt": ("", ""), "accepted": ("", ""), "rejected": ("[-", "-]"),
         "correction": ("{", "}"), "bonus": ("<", ">"), "target": ("", "")}
LEGEND_COLOUR = ("legend: \033[32maccepted draft\033[0m  \033[9;31mrejected draft\033[0m  "
                 "\033[33mcorrection (residual)\033[0m  \033[34mbonus (p_k+1)\033[0m")
LEGEND_PLAIN = "legend: accepted draft as is, [-rejected draft-], {correction}, <bonus>"


def _paint(text: str, kind: str, colour: bool) -> str:
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
        if rnd.n_accepted < rnd.drafted:
            parts.append(_paint(rnd.positions[rnd.n_accepted].text, "rejected", colour))
        if emitted:
            parts.append(_paint(rnd.final.text, rnd.final.kind, colour))
    return "".join(parts)


def _fmt(value, spec: str = ".3f") -> str:
    return "n/a" if value is None else format(value, spec)


def metrics_table(run: Run, seconds: float | None = None) -> str:
    m = run.metrics
    rows = [("rounds", m.rounds), ("tokens emitted", m.tokens), ("stop", run.stop_reason),
            ("acceptance rate", _fmt(m.acceptance_rate)),
            ("mean acceptance length", _fmt(m.mean_acceptance_length)),
            ("per-position acceptance", " ".join(_fmt(x, ".2f") for x in m.per_position) or "n/a"),
            ("acceptance histogram (0..k)", " ".join(map(str, m.histogram))),
            ("target forwards / token", _fmt(m.target_forwards_per_token)),
            ("mean beta (alpha-hat)", _fmt(m.mean_beta)),
            ("cost ratio c (measured)", _fmt(m.cost_ratio)),
            ("expected tokens / round (Eq. 1)", _fmt(m.expected_tokens_per_round)),
            ("expected speedup (Thm 3.8)", _fmt(m.expected_speedup)),
            ("draft / verify ms", f"{m.draft_ms:.1f} / {m.verify_ms:.1f}")]
    if seconds:
        rows.append(("tokens / s", f"{m.tokens / seconds:.1f}"))
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)
