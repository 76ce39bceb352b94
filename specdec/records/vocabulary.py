"""One name and one definition per measured quantity (issue 50): every field of a measurement
record (the bench's rows, the lesson sweeps, the server's runs) is named here, once, with what it
means; the app's tables give each one header (ui/tables.py). A new quantity is added here first;
a quantity already here keeps its name (tests/test_vocabulary.py checks every record against it).
Definitions follow the serving engines' metrics (docs: DESIGN §1)."""
from __future__ import annotations

QUANTITIES = {
    # what was measured
    "k": "draft length: drafts proposed a round",
    "temperature": "sampling temperature (0: greedy)",
    "draft": "the draft model (or drafter label) a row measured",
    "drafter": "the drafter a row measured, by its label",
    "kind": "the kind of text a row's prompts are ('all': every kind)",
    "params": "parameters of the draft (0: a drafter without a model)",
    "exit_layer": "layers of the target an early-exit draft keeps",
    "row": "what a bench row ran (a RowKind's value)",
    "batch": "requests served at once (at most)",
    "mode": "autoregressive or speculative",
    "prompts": "prompts the rounds were pooled over",
    "group": "a grouping of prompts or rounds (prompt length, output position)",
    # acceptance: counts, independent of timing
    "alpha": "α̂: the mean β = Σ min(p, q) over drafted positions",
    "acceptance_rate": "accepted drafts / drafted tokens",
    "mean_acceptance_length": "emitted tokens / rounds (the bonus or correction token included)",
    "drafted_per_round": "drafted tokens / rounds (below k for a lookup, which drafts only what it finds)",
    "target_forwards_per_token": "target passes / emitted tokens",
    "tokens": "tokens emitted",
    "base_tokens": "tokens the autoregressive run emitted for the same prompt (sampled: may differ)",
    "rounds": "rounds pooled",
    "per_position": "per draft position i: rounds whose draft i was accepted / rounds that drafted i",
    "histogram": "per j = 0..k: rounds that accepted exactly j drafts",
    # prices, in one-token target steps
    "c": "a draft forward as the runs paid it (median ms, first round left out) / a one-token step of the "
         "autoregressive runs timed beside them (measure.c_paid)",
    "verify_cost": "v_k: a (k+1)-token target pass in one-token steps, as the runs paid it",
    "verify_cost_alone": "v_k timed alone",
    "prefill_steps": "reading the prompt, speculative runs, in steps per generated token",
    "base_prefill_steps": "the same for the autoregressive runs",
    "round_overhead": "the engine's bookkeeping per round, speculative runs, in steps",
    "base_overhead": "the same per autoregressive step",
    # speed
    "tokens_per_s": "emitted tokens / second on the wall-clock (median over repeats)",
    "tokens_per_cpu_s": "emitted tokens / CPU second of the runs",
    "baseline_tokens_per_s": "the autoregressive baseline's tokens/s in the same repeats",
    "speedup": "tokens/s over the baseline's, on the measurement's clock (median over repeats)",
    "speedup_min": "the slowest repeat's speedup",
    "speedup_max": "the fastest repeat's speedup",
    "speedup_wall": "the speedup on the wall-clock",
    "speedup_cpu": "the speedup on CPU time",
    "speedup_vs_engine_ar": "the speedup over this engine's own autoregressive decoding",
    "speedup_here": "tokens a round over a round priced at this machine's c and v(k + 1) (bench/repriced.py)",
    "repeats": "interleaved repeats the median is over",
    "seconds": "wall-clock seconds, one total per repeat",
    "cpu_seconds": "CPU seconds, one total per repeat",
    "clock": "the clock the headline speedup is on: wall, or CPU time when the machine was busy",
    "load": "the highest load per core seen while measuring",
    # theory (Leviathan et al. 2023, §3) at the measured α̂, k and c
    "expected_length": "eq. (1): tokens a round if every draft were kept with probability α̂ alone",
    "bound": "Theorem 3.8: the speedup at α̂, k and c, a pass priced at one step",
    "bound_with_verify": "Theorem 3.8 with the pass priced at the measured v_k",
    "measured_over_bound": "measured speedup / bound",
    "measured_over_bound_with_verify": "measured speedup / bound_with_verify",
    "profile_length": "tokens a round read off the acceptance profile of the sweep's longest k",
    "profile_speedup": "the speedup at profile_length and the prices paid",
    "predicted_run": "the whole runs' speedup predicted from what they paid (tokens a round, c, v, "
                     "the prompt's reading and the bookkeeping)",
    "measured_over_predicted_run": "measured speedup / predicted_run",
    # a server
    "tokens_per_s_min": "the slowest repeat's tokens/s",
    "tokens_per_s_max": "the fastest repeat's tokens/s",
    "latency_s": "a request's seconds from its arrival to its last token, waiting included (mean)",
    "ttft_s": "a request's seconds from its arrival to its first token, waiting included (mean)",
    "forwards_per_token": "target passes per emitted token, all requests",
    "passes": "target passes",
    "pass_ms": "ms of one target pass over the batch",
    "pass_rows": "tokens one target pass fed (rows × (pending + drafts))",
    "draft_ms": "ms of every request's drafting in a round",
}
