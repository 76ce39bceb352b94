"""When it is fast, section 6: the benchmark's table and the lines under it — which plain way every speedup
divides by, what transformers' and llama.cpp's columns are, how close the whole-run predictions land, and how
transformers' drafting defaults fared against the best constant k (split from fast.py, which reads the bench)."""
from __future__ import annotations

import pandas as pd

from specdec.bench.record import PER_K, Bench, Row, RowKind, Setting
from specdec.wording import N_, _, times
from ui.lessons.bench_words import bench_row
from ui.lessons.payoff_words import EVEN  # within 3 %: what repeats of one run vary by

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
                     "engine's own loop with the target alone {plain:.1f}.").format(
                loaded=loaded.tokens_per_s, t=s.temperature, ours=ours.tokens_per_s, plain=plain.tokens_per_s)
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
    text = _("llama.cpp, on the same GGUF file: {llama:.1f} tokens/s running the target alone").format(
        llama=llama.tokens_per_s)
    if lookup is not None:
        text += _("; {lookup:.1f} with its prompt lookup (drafts of k tokens copied from earlier in the text, no "
                  "draft model)").format(lookup=lookup.tokens_per_s)
    fastest = max((r for r in (plain, llama) if r is not None), key=lambda r: r.tokens_per_s)
    return text + ". " + _("The fastest way to run the target alone in this benchmark is {name} ({rate:.1f} "
                           "tokens/s): every speedup on this tab divides by it.").format(
        name=bench_row(fastest.row), rate=fastest.tokens_per_s)


def baseline_row(setting: Setting) -> dict:
    """One bench setting against the faster plain way to run the same target and its peers (tokens/s,
    the median; speculative and the plain way with their range over repeats), from its rows: a table
    row; peers the file has no row of are left out."""
    name = setting.baseline if setting.baseline in BASELINES else BASELINES[0]
    spec = setting.row(RowKind.SPEC)
    row = {"T": f"{setting.temperature:g}", "k": setting.k, _("speculative"): _short(spec),
           _("speedup"): times(None if spec is None else spec.speedup),
           _("fastest way"): bench_row(name),
           _("the target alone"): _short(setting.row(RowKind.of(name)))}
    return row | {_(label): _short(setting.row(kind), False) for kind, label in PEERS if setting.row(kind) is not None}


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
             "modes). At T = {t:g} the largest gap between measured and predicted is {within:.0%}, at k = {k}: "
             "measured {m:.2f}×, predicted {p:.2f}×.").format(                 # "lies within 42%" read as agreement
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
    if abs(library.speedup - best.speedup) < EVEN:          # a gap within run-to-run noise is no finding (review 36)
        return _("At T = {t:g} transformers' drafting defaults, run in this engine, ran {x}, about as fast as the best "
                 "constant k ({best} at k = {k}): a gap within what repeats vary by.").format(
            t=temperature, x=times(library.speedup), best=times(best.speedup), k=k)
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
    return _("Its runs also wrote {n} tokens against the target alone's {m} (at T > 0 each run samples its own "
             "text), and a longer text reads its prompt fewer times a token: part of that lead is the text "
             "written, not the drafting.").format(n=library.tokens, m=plain.tokens)


def sampled_caption(bench: Bench) -> str | None:
    """Where a T > 0 setting's speculative row beats every T = 0 row, that at T > 0 each run samples its own text
    (review 37: T = 1, k = 1 at 1.08× above T = 0's 0.96× with fewer drafts accepted, unexplained); None else."""
    def spec(s: Setting) -> Row | None:
        r = s.row(RowKind.SPEC)
        return r if r is not None and r.speedup is not None else None
    greedy = [r.speedup for s in bench.settings if s.temperature == 0 and (r := spec(s))]
    sampled = [(s, r) for s in bench.settings if s.temperature > 0 and (r := spec(s))]
    if not greedy or not sampled:
        return None
    s, best = max(sampled, key=lambda sr: sr[1].speedup)
    plain = s.row(RowKind.AR)
    if best.speedup <= max(greedy) or plain is None or not plain.tokens:
        return None
    return _("At T = {t:g}, k = {k} speculation ran {x}, above every k at T = 0 (at best {greedy}): at T > 0 each run "
             "samples its own text (there the speculative runs wrote {n} tokens, the target alone {m}), so such a row "
             "holds the text drawn as well as the drafting; at T = 0 both write the same text.").format(
        t=s.temperature, k=s.k, x=times(best.speedup), greedy=times(max(greedy)), n=best.tokens, m=plain.tokens)


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
    return _("At T = {t:g} transformers' drafting defaults, run in this engine, ran {x}, below the best constant k "
             "({best} at k = {k}): "
             "they drafted about {theirs:.1f} tokens a round and {rate:.0%} were accepted, against {ours:.1f} and "
             "{best_rate:.0%} at k = {k}, so each kept token paid for more drafting.").format(
        t=temperature, x=times(library.speedup), best=times(best.speedup), k=k, theirs=theirs,
        rate=library.acceptance_rate, ours=ours, best_rate=best.acceptance_rate)
