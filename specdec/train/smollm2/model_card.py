"""The SmolLM2 drafts' model card (assets/models/smollm2/README.md) from evaluate.py's measurements:
the fixed prose (card.md), the training records, the measured table, per-kind results, and the
merge of repeated runs into medians with their ranges."""
from __future__ import annotations

import json
import statistics
from pathlib import Path

CARD = Path("assets/models/smollm2/README.md")
MEASURED = CARD.parent / "eval.json"     # the measurements the card shows, committed beside it


def _packed(result: dict) -> str:
    n = result.get("packed_linears")
    drafts = any(r.get("bf16_linears") for r in result["rows"])
    if result.get("target_kernels"):
        return f", its linear layers {result['target_kernels']}" + \
            (", the drafts' on bfloat16 copies (specdec/models/packed.py)" if drafts else "")
    return (f", its {n} linear layers on prepacked weights" if n else "") + \
        (", the drafts' on bfloat16 copies" if drafts else "") + \
        (" (specdec/models/packed.py)" if n or drafts else "")


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.1f} %"


def _num(x, spec=".2f") -> str:
    return "—" if x is None else format(x, spec)


PROSE = Path(__file__).with_name("card.md")     # the model card's fixed prose


def card(result: dict, training: dict[str, dict]) -> str:
    """The model card: source, what was trained on what, and the measured table."""
    lines = [PROSE.read_text().rstrip("\n"), ""]   # the prose: card.md beside this file
    lines += training_lines(training) + measured_head(result) + [row_line(r) for r in result["rows"]]
    kinds = len(result["rows"][0]["T0"].get("by_kind") or {}) or 1
    lines += kind_table(result["rows"], result["prompts"] // kinds, _runs(result))
    lines += verdict_lines(result["rows"])
    for line in filter(None, map(position_line, result["rows"])):
        lines += ["", line]
    lines += transfer_lines(result["rows"], training)
    identical = all(r["T0"]["identical_to_target"] for r in result["rows"])
    lines += ["", f"Greedy outputs identical to the target alone on every prompt and row: "
              f"{'yes' if identical else 'NO'}.", ""]
    return "\n".join(lines)


def training_lines(training: dict[str, dict]) -> list[str]:
    """One paragraph per draft: what it was trained on, how long."""
    lines = []
    for name, t in training.items():
        if "layers" in t:
            lines.append(f"`{name}`: layers {t['layers']} of the target, vocabulary {t['vocab']}, "
                         f"{t['steps']} steps, ~{t['answer_tokens_seen']:,} answer tokens seen, "
                         f"{t['train_answers']} training sequences, {t['train_seconds']} s on 2 CPU cores.")
        else:
            lines.append(f"`{name}`: feature draft from target layer {t['init_layer']}, {t['steps']} "
                         f"steps of {t['batch']} sequences (at most {t['positions_seen']:,} positions; "
                         f"{t.get('history', '')}), {t['train_seconds']} s on 2 CPU cores"
                         f"{gpu_line(t.get('gpu_runs', []))}; held-out teacher-forced agreement on the "
                         f"target's own answers {t['held_out_agreement_teacher_forced']:.3f}.")
        lines.append("")
    return lines


def measured_head(result: dict) -> list[str]:
    """The measured section's heading, what its columns mean, and the table's header."""
    return ["", f"## Measured ({result['date']}, {result['machine']}, {result['threads']} thread, "
            f"{result['prompts']} held-out chat prompts × {result['max_new_tokens']} tokens, k = "
            f"{result['k']}; target step {result['target_step_ms']:.1f} ms{_packed(result)})", "",
            "c = draft step ms / target 1-token step ms. Greedy agreement: share of the target's "
            "greedy answer positions where the draft's argmax is the target's. Speedup: tokens/s "
            f"against the target alone on the same prompts, {_runs(result)}.",
            "Vocabulary: the draft's tokens, and the share of the target's greedy answer tokens "
            "among them (a draft can never propose the others).",
            "", "| draft | params | vocabulary | c | greedy agreement | acc. T=0 | len T=0 | speedup T=0 | "
            "acc. T=1 | len T=1 | speedup T=1 |", "|---|---|---|---|---|---|---|---|---|---|---|"]


def row_line(r: dict) -> str:
    """One draft's row of the measured table."""
    t0, t1 = r["T0"], r["T1"]
    vocab = f"{r['vocab']:,} ({_pct(r['vocab_coverage'])})" if r.get("vocab") else "—"
    return (f"| {r['draft']} | {r['params']:,} | {vocab} | {_num(r['c'], '.3f')} | "
            f"{_pct(r['greedy_agreement'])} | {_pct(t0['acceptance_rate'])} | "
            f"{_num(t0['mean_acceptance_length'])} | {_speed(t0)} | "
            f"{_pct(t1['acceptance_rate'])} | {_num(t1['mean_acceptance_length'])} | "
            f"{_speed(t1)} |")


def verdict_lines(rows: list[dict]) -> list[str]:
    """Whether each draft pays for its passes on this machine at T = 0."""
    lines = []
    for r in rows:
        if r["params"] and r["T0"]["speedup"] is not None:
            verdict = "pays for itself" if r["T0"]["speedup"] > 1 else "does not yet pay for its passes"
            lines += ["", f"`{r['draft']}` at {_pct(r['greedy_agreement'])} greedy agreement "
                      f"{verdict} on this machine ({_num(r['T0']['speedup'])}× at T = 0, k = 4)."]
    return lines


def transfer_lines(rows: list[dict], training: dict[str, dict]) -> list[str]:
    """A draft that agrees clearly less on the chat prompts than on its own held-out answers."""
    lines = []
    for r in rows:
        t = training.get(r["draft"], {})
        own = t.get("held_out_agreement_teacher_forced") or t.get("held_out_agreement_self_generated")
        if own and r["greedy_agreement"] is not None and own - r["greedy_agreement"] > 0.03:
            lines += ["", f"`{r['draft']}` agrees with the target on {_pct(own)} of held-out answers to "
                      f"its own kind of training instruction but on {_pct(r['greedy_agreement'])} of "
                      "the chat prompts' answers: the hand-written chat set lies further from what it "
                      "was trained on (answers to generated instructions of both sets, reference docs, "
                      "code) than its own held-out answers do."]
    return lines


TIMED = ("speedup", "tokens_per_s")       # what changes from run to run; the rest must not


def merge(results: list[dict]) -> dict:
    """Several runs of the same evaluation as one: each timing becomes the median over the runs
    with its range (`speedup_range`); every count (acceptance, agreement, outputs) must agree,
    since the runs are the same greedy / seeded computations. Fields only the newest run has
    are taken from it."""
    last = results[-1]
    for other in results[:-1]:
        same = (other["prompts"], other["max_new_tokens"], other["k"], [r["draft"] for r in other["rows"]])
        if same != (last["prompts"], last["max_new_tokens"], last["k"], [r["draft"] for r in last["rows"]]):
            raise ValueError("these runs measured different prompts, lengths, k or drafts")
    merged = {**last, "runs": len(results), "dates": sorted({r["date"] for r in results}),
              "target_step_ms": statistics.median(r["target_step_ms"] for r in results), "rows": []}
    for i, row in enumerate(last["rows"]):
        rows = [r["rows"][i] for r in results]
        out = {**row, "c": statistics.median(r["c"] for r in rows)}
        for t in ("T0", "T1"):
            if any(r[t]["acceptance_rate"] != row[t]["acceptance_rate"] for r in rows):
                raise ValueError(f"{row['draft']} at {t}: the runs accepted differently")
            speeds = [r[t]["speedup"] for r in rows]
            out[t] = {**row[t], **{key: statistics.median(r[t][key] for r in rows) for key in TIMED},
                      "speedup_range": [min(speeds), max(speeds)],
                      "by_kind": {kind: {**m, "speedup": statistics.median(
                          r[t]["by_kind"][kind]["speedup"] for r in rows)} for kind, m in row[t]["by_kind"].items()}}
        merged["rows"].append(out)
    return merged


def _runs(result: dict) -> str:
    n = result.get("runs", 1)
    return "one run" if n == 1 else f"median of {n} runs, their range in brackets"


def _speed(t: dict) -> str:
    """A speedup cell: the median, and over several runs their range."""
    spread = t.get("speedup_range")
    tail = f" ({_num(spread[0])}–{_num(spread[1])})" if spread and spread[0] != spread[1] else ""
    return f"{_num(t['speedup'])}×{tail}"


def position_line(row: dict) -> str:
    """Why a round's first draft is accepted less often than the draft agrees on average."""
    checks = row["T0"].get("per_check") or []
    hit, miss = row.get("agreement_after_hit"), row.get("agreement_after_miss")
    if hit is None or miss is None or len(checks) < 2:
        return ""
    return (f"`{row['draft']}`, teacher-forced, agrees with the target on {_pct(hit)} of the positions "
            f"right after one it got right and on {_pct(miss)} right after one it missed. A round's "
            f"first draft follows a rejection or a bonus token: at T = 0 it was accepted {_pct(checks[0])} "
            f"of the time, a draft after accepted ones {_pct(min(checks[1:]))}–{_pct(max(checks[1:]))}.")


def gpu_line(runs: list[dict]) -> str:
    """What the GPU runs (specdec/train/smollm2/gpu_feature.py) added, in one clause."""
    if not runs:
        return ""
    total = lambda key: sum(r[key] for r in runs)              # noqa: E731
    return (f", then {len(runs)} run{'s' * (len(runs) > 1)} on one {runs[0]['device']} "
            f"({total('seconds')} s in all: {total('answers'):,} answers, "
            f"{total('answer_tokens'):,} answer tokens written there by the target; "
            f"{total('steps'):,} steps over {total('positions'):,} positions; held-out agreement "
            f"{runs[0]['held_out_before']:.3f} before, {runs[-1]['held_out_after']:.3f} after)")


def kind_table(rows: list[dict], per_kind: int, runs: str = "one run") -> list[str]:
    """Per kind of prompt at T = 0: greedy agreement (where measured), mean acceptance length and
    speedup of each learned draft and of n-gram lookup, kinds ranked by the first draft's mean
    acceptance length; then the first draft's agreement range over the kinds."""
    shown = [r for r in rows if r["T0"].get("by_kind") and not r["draft"].startswith("early exit")]
    if not shown:
        return []
    first = shown[0]["T0"]["by_kind"]
    kinds = sorted(first, key=lambda k: -(first[k]["mean_acceptance_length"] or 0))
    out = ["", "By kind of prompt (T = 0, k = 4; greedy agreement · mean acceptance length / speedup; "
           f"ranked by the first column's length; {per_kind} prompt{'s' * (per_kind != 1)} a kind, "
           f"{runs}):", "",
           "| kind | " + " | ".join(r["draft"] for r in shown) + " |", "|---" * (len(shown) + 1) + "|"]
    for kind in kinds:
        out.append(f"| {kind} | " + " | ".join(kind_cell(r, kind) for r in shown) + " |")
    agree = shown[0].get("agreement_by_kind")
    if agree:
        low, high = min(agree, key=agree.get), max(agree, key=agree.get)
        out += ["", f"`{shown[0]['draft']}`'s greedy agreement runs from {_pct(agree[low])} on "
                f"{low} to {_pct(agree[high])} on {high}."]
    return out


def kind_cell(row: dict, kind: str) -> str:
    m = row["T0"]["by_kind"][kind]
    agree = row.get("agreement_by_kind", {}).get(kind)
    lead = "" if agree is None else f"{_pct(agree)} · "
    return f"{lead}{_num(m['mean_acceptance_length'])} / {_num(m['speedup'])}×"


def training_records() -> dict:
    """Each committed draft's training.json, by its name."""
    drafts = sorted(p.parent for p in CARD.parent.glob("*/training.json"))
    return {f"smollm2/{d.name}": json.loads((d / "training.json").read_text()) for d in drafts}
