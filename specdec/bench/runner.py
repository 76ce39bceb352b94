"""`python -m specdec bench`: speculative vs autoregressive vs transformers, side by side.

For every temperature and k, on the same prompts, seeds and sampling:
  1 engine autoregressive (target only, KV cache)   2 engine speculative
  3 transformers generate() on the target            4 generate(assistant_model, k, constant)
  5 generate(assistant_model) with the library's defaults (labelled as such)
  6 this engine with the same drafting defaults (up to 20 drafts, stop when q(d) < 0.4)
  7 transformers generate() on the target loaded as a user would (from_pretrained, float32,
    nothing of this engine's: row 3 runs the engine's own modules, in their precision)
  8, 9 llama.cpp on the same GGUF: autoregressive, and its prompt-lookup speculation (peers.py;
    when llama-cpp-python is installed, `make peers`)
When the target runs on another backend than torch (models/backend.py), rows 1, 2 and 6 run on
it, and three rows join: 10, 11 the engine's autoregressive and speculative rows on torch (the
target's own modules, which rows 3-5 are compared with), and 12 onnxruntime-genai's own loop on
the same ONNX build (ort_genai.py). Greedy outputs are compared within each backend's rows.
Speedups are against the faster baseline of rows 1 and 7 (the setting's "baseline" says which):
speculation has to beat the fastest plain way to run the model here, not only this engine's.
"Assisted" is the library's counterpart of the drafter benched (hf_baseline.library_drafting):
the draft model as assistant_model, prompt lookup for n-gram, assistant_early_exit for early exit.
Tokens/s are medians over repeats; the Theorem 3.8 bound uses the measured α̂ and c.
Theorem 3.8 prices a (k+1)-token verification pass at one target step; the price v_k
paid in the runs is reported too, with the bound it implies, so a gap can be attributed.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import replace

import torch

from specdec.bench import agreement, greedy, ort_genai, peers
from specdec.bench.clock import Lap, stopwatch
from specdec.bench.hf_baseline import hf_generate, library_drafting, user_load_why, user_loaded
from specdec.bench.measure import (
    Timed,
    c_paid,
    drafter_cost,
    machine_load,
    rate,
    v_paid,
    verify_cost,
    whole_run,
)
from specdec.bench.record import PER_K, Bench, Row, RowKind, Setting
from specdec.drafters.registry import DRAFTERS, tree_for
from specdec.engine.decoder import generate
from specdec.engine.prompt import encode_prompt
from specdec.errors import LoadError
from specdec.models.backend import Backend
from specdec.models.backend import describe as describe_backend
from specdec.models.names import source_gguf
from specdec.records.provenance import Clock, Provenance, clock_for, here
from specdec.settings import Mode, Settings
from specdec.trace.metrics import summarize
from specdec.trace.theory import expected_speedup, speedup_with_verify, verify_ceiling

K = RowKind
ROWS = (K.AR, K.SPEC, K.HF, K.ASSISTED_K, K.ASSISTED_DEFAULTS, K.SPEC_DEFAULTS, K.USER_LOADED, K.LLAMA,
        K.LLAMA_LOOKUP)                              # in the table's order (rows 1-9 above)
# rows only for a target on another backend than torch: the engine on torch, the runtime's own loop
ON_TORCH = K.AR_TORCH, K.SPEC_TORCH
GENAI = K.GENAI
BACKEND_ROWS = (*ON_TORCH, GENAI)
# transformers' assistant defaults (num_assistant_tokens=20, constant schedule,
# assistant_confidence_threshold=0.4) as this engine's confidence policy; the library
# also adapts its threshold during a run, this engine keeps it fixed.
LIBRARY_DRAFTING = {"k": 20, "policy": "confidence", "confidence": 0.4}


def _one(row: str, pair, prompt: str, settings: Settings, seed: int, length: int | None = None):
    """(ids, Lap, target forwards, rounds, prompt reading ms) for one prompt; `length`: the tokens
    the engine's autoregressive row made for it, which onnxruntime-genai's loop is told to make
    (ort_genai.py). Rows other than the engine's have no rounds (their prompt reading: 0)."""
    if row.startswith("engine"):
        mode = Mode.AUTOREGRESSIVE if row in (K.AR, K.AR_TORCH) else Mode.SPECULATIVE
        on = replace(pair, backend=None) if row in ON_TORCH else pair          # None: torch
        with stopwatch() as lap:
            run = generate(on, prompt, settings, seed=seed, lean=True, mode=mode.value)
        return list(run.token_ids), lap, run.metrics.target_forwards, list(run.rounds), run.metrics.prefill_ms
    if row == GENAI:
        ids, lap = ort_genai.generate(pair, encode_prompt(pair, prompt)[1], settings, seed,
                                      torch.get_num_threads(), length)
        return ids, lap, len(ids), [], 0.0
    if row in PEERS:
        lookup = settings.k if row == PEERS[1] else None
        n, lap = peers.generate(source_gguf(pair.target_name), prompt, settings, seed,
                                torch.get_num_threads(), lookup)
        return [-1] * n, lap, None, [], 0.0                 # text out: counted, not compared
    if row == USER_LOADED:
        ids, lap, forwards = hf_generate(pair, prompt, settings, seed, model=user_loaded(pair.target_name))
        return ids, lap, forwards, [], 0.0
    assistant = None if row == K.HF else "constant" if row == K.ASSISTED_K else "defaults"
    ids, lap, forwards = hf_generate(pair, prompt, settings, seed, assistant, settings.k)
    return ids, lap, forwards, [], 0.0


def measure_once(row: str, pair, prompts: list[str], settings: Settings,
                 lengths: list[int] | None = None) -> Timed:
    """One repeat of `row`: every prompt, seed = its index; `lengths`: new tokens to make per
    prompt, for a runtime's own loop (_one)."""
    total, outputs, rounds, forwards, prefill = Lap(), [], [], 0, 0.0
    for i, prompt in enumerate(prompts):
        ids, lap, n, rnds, prefill_ms = _one(row, pair, prompt, settings, seed=i,
                                             length=lengths[i] if lengths else None)
        total.wall, total.cpu = total.wall + lap.wall, total.cpu + lap.cpu
        outputs.append(ids)
        rounds += rnds
        prefill += prefill_ms
        forwards = None if n is None or forwards is None else forwards + n     # llama.cpp: not counted
    return Timed(sum(map(len, outputs)), total.wall, tuple(rounds), (), total.cpu, prefill, tuple(outputs), forwards)


ASSISTED = K.ASSISTED_K, K.ASSISTED_DEFAULTS
DEFAULTS = K.ASSISTED_DEFAULTS, K.SPEC_DEFAULTS    # the library's drafting defaults, and this engine's copy
USER_LOADED = K.USER_LOADED
PEERS = greedy.PEERS                    # llama.cpp: text out, counted, not compared
BASELINES = K.AR, K.USER_LOADED          # the speedups' reference: the faster of the two
STRICT_MARGIN = 1.05                     # --strict: the user's load may not beat the engine by more


def rows_for(method, user_why: str | None = None, peers_why: str | None = None) -> tuple[tuple[str, ...], str | None]:
    """(rows to run, why any are left out) for a library_drafting() answer: no assisted rows
    when the library has no counterpart, no "library defaults" rows when it has no default
    draft length (prompt lookup); no user-loaded row when the target has no name to load; no
    llama.cpp rows without llama.cpp or a GGUF."""
    names, why = ROWS, []
    if isinstance(method, str):
        names, why = tuple(r for r in names if r not in ASSISTED), [method]
    elif not method.has_defaults:
        names = tuple(r for r in names if r not in DEFAULTS)
        why = [f"transformers' {method.label.split(' (')[0]} has no default draft length"]
    if user_why:
        names, why = tuple(r for r in names if r != USER_LOADED), why + [user_why]
    if peers_why:
        names, why = tuple(r for r in names if r not in PEERS), why + [peers_why]
    return names, "; ".join(why) or None


def backend_rows(names: tuple[str, ...], why: str | None, pair) -> tuple[tuple[str, ...], str | None]:
    """Add the rows of a target that runs elsewhere than torch: the engine on torch, and the
    runtime's own loop where it can run (else why not)."""
    if pair.passes.name == Backend.TORCH:
        return names, why
    genai_why = ort_genai.why_not(pair)
    extra = ON_TORCH if genai_why else BACKEND_ROWS
    return names + extra, "; ".join(w for w in (why, genai_why) if w) or None


def applicable(pair) -> tuple[str, ...]:
    return ROWS if pair.passes.name == Backend.TORCH else ROWS + BACKEND_ROWS


def _peers_why(pair) -> str | None:
    try:
        gguf = source_gguf(pair.target_name)
    except LoadError as err:
        gguf, _ = None, err
    return peers.why_not(gguf)


def tree_row(budget: int) -> str:
    return f"{K.TREE.value} ({budget} nodes, width {TREE_WIDTH})"


TREE_WIDTH = 2


def tree_settings(pair, settings: Settings, budget: int) -> Settings:
    """A tree over the pair's draft model (or n-gram matches when it has none, or one of another
    vocabulary: no tree drafts across vocabularies) of depth <= k."""
    drafter = tree_for(pair.draft is not None and not pair.across_vocab).name
    return replace(settings, drafter=drafter, tree_budget=budget, tree_width=TREE_WIDTH)


def jobs(t: float, ks: list[int], max_new: int, rows: tuple[str, ...] = ROWS, pair=None,
         trees: tuple[int, ...] = (), drafting: Settings = Settings()) -> list[tuple]:
    """(key, row, settings) for one temperature: the k-free rows once, the others per k
    (tree rows: one per budget, depth <= k). `drafting` gives the drafter (and exit layer)."""
    drafter = {"drafter": drafting.drafter, "exit_layer": drafting.exit_layer}
    plain = Settings(k=1, temperature=t, max_new_tokens=max_new, **drafter)
    library = Settings(temperature=t, max_new_tokens=max_new, **drafter, **LIBRARY_DRAFTING)
    out = [((name, None), name, settings) for name, settings in
           ((K.AR, plain), (K.HF, plain), (K.ASSISTED_DEFAULTS, library), (K.SPEC_DEFAULTS, library),
            (K.USER_LOADED, plain), (K.LLAMA, plain), (K.AR_TORCH, plain), (K.GENAI, plain))
           if name in rows]
    for k in ks:
        settings = Settings(k=k, temperature=t, max_new_tokens=max_new, **drafter)
        out += [((name, k), name, settings) for name in PER_K if name in rows]
        out += [((tree_row(b), k), tree_row(b), tree_settings(pair, settings, b)) for b in trees]
    return out


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None


def summarize_row(name: str, m: list[Timed], base: list[Timed], k: int, c: float, v: float,
                  engine: list[Timed] | None = None, clock: Clock = Clock.WALL) -> Row:
    """One row from its repeats; speedup against `base` (the faster baseline), the bounds against
    `engine` (the engine's own autoregressive row, which Theorem 3.8's ratio is about). `speedup`
    is on `clock`; speedup_wall and speedup_cpu give both."""
    engine, first = engine or base, m[0]
    row = Row(str(name), rate(m), tokens=first.tokens, seconds=tuple(t.seconds for t in m),
              cpu_seconds=tuple(t.cpu_seconds for t in m), tokens_per_cpu_s=rate(m, Clock.CPU),
              target_forwards_per_token=first.target_forwards / first.tokens
              if first.tokens and first.target_forwards is not None else None,
              speedup=_ratio(rate(m, clock), rate(base, clock)), clock=Clock(clock),
              speedup_wall=_ratio(rate(m), rate(base)), speedup_cpu=_ratio(rate(m, Clock.CPU), rate(base, Clock.CPU)),
              speedup_vs_engine_ar=_ratio(rate(m, clock), rate(engine, clock)))
    if not first.rounds or name in (K.AR, K.AR_TORCH):
        return row
    s = summarize(first.rounds)
    row = replace(row, acceptance_rate=s.acceptance_rate, mean_acceptance_length=s.mean_acceptance_length,
                  alpha=s.mean_beta)
    if name != K.SPEC:                                                   # one fixed k
        return row
    predicted = whole_run(first, engine[0], k, c) if engine else None
    own = row.speedup_vs_engine_ar
    return replace(_with_bounds(row, s.mean_beta or 0.0, k, c, v), predicted_run=predicted,
                   measured_over_predicted_run=own / predicted if own is not None and predicted else None)


def _with_bounds(row: Row, alpha: float, k: int, c: float, v: float) -> Row:
    """Theorem 3.8's bound at α̂, k and c, and the same at the measured pass price v."""
    own, bound, bound_v = row.speedup_vs_engine_ar, expected_speedup(alpha, k, c), speedup_with_verify(alpha, k, c, v)
    return replace(row, bound=bound, measured_over_bound=own / bound, bound_with_verify=bound_v,
                   measured_over_bound_with_verify=own / bound_v)


def bench(pair, prompts: list, ks: list[int], temps: list[float], max_new: int,
          repeats: int, progress=None, trees: tuple[int, ...] = (),
          drafting: Settings = Settings()) -> Bench:
    """Every row, k and temperature on the same prompts, drafting with `drafting.drafter`.
    Repeats are interleaved (repeat r of every row before repeat r + 1 of any), so a slow
    spell of the machine hits all rows alike."""
    progress, started = progress or (lambda *_: None), time.perf_counter()
    c, draft_ms, target_ms = drafter_cost(pair, drafting)
    method = library_drafting(pair, drafting)
    names, why = backend_rows(*rows_for(method, user_load_why(pair.target_name), _peers_why(pair)), pair)
    alone = {str(k): verify_cost(pair.passes, pair.vocab_size, k, target_ms) for k in ks}
    todo_by_t = {t: jobs(t, ks, max_new, names, pair, tuple(trees), drafting) for t in temps}
    steps, done, load, settings, paid_cs = repeats * sum(map(len, todo_by_t.values())), 0, machine_load(), [], []
    for t, todo in todo_by_t.items():
        measured: dict[tuple, list[Timed]] = {key: [] for key, _, _ in todo}
        for r in range(repeats):
            for key, name, run_settings in todo:
                progress(done, steps, f"T={t} k={key[1] or '-'} {name} (repeat {r + 1})")
                same = measured.get((K.AR, None)) if name == GENAI else None   # the engine's lengths
                measured[key].append(measure_once(name, pair, prompts, run_settings,
                                                  [len(ids) for ids in same[0].outputs] if same else None))
                done, load = done + 1, max(load, machine_load())
        clock = clock_for(load)                                        # the headline's clock: clock.py
        for k in ks:
            rows = {name: measured.get((name, None)) or measured[(name, k)]
                    for name in names + tuple(tree_row(b) for b in trees)}
            paid = c_paid(rows[K.SPEC], rows[K.AR]) if K.SPEC in rows and K.AR in rows else None
            paid_cs += [] if paid is None else [paid]
            settings.append(_setting(pair, prompts, rows, k, t, c if paid is None else paid, alone[str(k)], clock))
    progress(steps, steps, "done")
    c = statistics.median(paid_cs) if paid_cs else c       # the lab's one c (measure.c_paid), else the probe's
    return Bench(pair.target_name, pair.draft_name, len(prompts), max_new, repeats, c, tuple(settings),
                 drafter=drafting.drafter,
                 exit_layer=drafting.exit_layer if DRAFTERS[drafting.drafter].uses_exit_layer else None,
                 library_drafting=None if isinstance(method, str) else method.label,
                 draft_step_ms=draft_ms, target_step_ms=target_ms, verify_cost_alone=alone,
                 skipped_rows=tuple(str(r) for r in applicable(pair) if r not in names), skipped_why=why,
                 provenance=_provenance(pair, load, started))


def _provenance(pair, load: float, started: float) -> Provenance:
    """Where the bench ran (records/provenance.py), with its backend in one line."""
    found = agreement.shipped()
    return replace(here(pair, load, started),
                   backend_note=describe_backend(pair.passes, found.quoted() if found else None))


def _setting(pair, prompts, measured: dict, k: int, t: float, c: float, v_alone: float,
             clock: Clock = Clock.WALL) -> Setting:
    """One (T, k) table; bound(v) uses v as paid in the runs (v_alone: the same pass timed alone);
    speedups and the baseline on `clock` ("wall", or "cpu" when the machine was busy)."""
    v = v_paid(measured[K.SPEC], measured[K.AR], k) or v_alone
    baseline = max((name for name in BASELINES if name in measured), key=lambda n: rate(measured[n], clock))
    rows = tuple(summarize_row(name, measured[name], measured[baseline], k, c, v, measured[K.AR], clock)
                 for name in measured)
    user = measured.get(USER_LOADED)
    slower = bool(user and rate(user, clock) > STRICT_MARGIN * rate(measured[K.AR], clock))
    entry = Setting(k, t, rows, verify_cost=v, verify_cost_alone=v_alone, ceiling=verify_ceiling(k, c, v),
                    baseline=str(baseline), clock=Clock(clock), engine_slower_than_user_load=slower)
    return greedy.check(pair, prompts, measured, entry) if t == 0 else entry
