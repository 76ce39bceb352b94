"""This machine, measured once: what a speed figure here is made of.

The target's one-token step and its price for a pass of M = 1…17 tokens (v(M), in steps) on the
backend the pair runs on, reading a prompt per token, each embedded draft's cost ratio c as a run pays it
beside this target (on its kernels), the memory read rate and the
compute rate of one core for the arithmetic the target runs (16-bit integer multiply-adds for an
intdot target, float32 ones otherwise: the roof of its roofline), and the target's bytes and
FLOPs per token; with where and how: CPU, backend, kernels, threads, load, library versions, date.
`make run` measures it in the background after the server is up (ui/server/serve.py, ~30 s); the pages
read it, the "priced" draft-length policy weighs it (`prices`), to say why
speculation pays or not *here*, and every figure they show is labelled with the CPU it came
from. Kept in build/machine.json under (CPU model, backend, threads).
"""
from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import torch
import transformers

from specdec.bench import roofline
from specdec.bench.measure import draft_cost_in_run, machine_load, step_ms
from specdec.chat import has_template, user_turn
from specdec.drafters.base import no_model
from specdec.drafters.registry import DRAFTERS
from specdec.engine.decoder import generate
from specdec.files import jsonstore
from specdec.models import kernels, precision
from specdec.models.backend import Backend
from specdec.models.kernels import bandwidth_gbs, cpu_model
from specdec.models.pair import beside
from specdec.models.prices import Prices
from specdec.settings import Settings
from specdec.trace.theory import speedup_with_verify

STORE = Path(__file__).resolve().parents[2] / "build" / "machine.json"
WIDTHS = tuple(range(1, 18))
REVISION = 8                       # bumped when what is measured changes: older entries are measured again
                                   # (6: c as a run pays it, engine_c; 7: the integer kernel in the key;
                                   # 8: the rates timed again until the roofline bounds the passes)


@dataclass(frozen=True)
class Profile:
    cpu: str
    backend: str
    threads: int
    step_ms: float                             # the target's one-token step
    v: dict[int, float]                        # M -> a pass of M tokens / a one-token step
    c: dict[str, float] = field(default_factory=dict)    # draft name -> draft step / target step
    bandwidth_gbs: float = 0.0                 # streaming read rate, one thread
    gflops: float = 0.0                        # the target's arithmetic (see `arithmetic`), one thread
    weight_mb: float = 0.0                     # what a step reads: the target's weights as it runs
    params_m: float = 0.0                      # parameters a token passes through (millions)
    measured_at: str = ""
    arithmetic: str = ""                       # what `gflops` timed: the multiply-adds the target runs
    prefill_ms: float = 0.0                    # reading a prompt, per token (a 64-token pass / 64)
    load: float = 0.0                          # the 1-minute load per core while it was measured (~1: all busy)
    kernels: str = ""                          # what multiplied the target's layers (models/kernels.describe)
    versions: str = ""                         # torch and transformers
    target: str = ""                           # the target model measured (its name)

    def key(self) -> str:
        return key(self.cpu, self.backend, self.threads, self.target)


PREFILL = 64                       # tokens of the pass that prices reading a prompt


def key(cpu: str, backend: str, threads: int, target: str = "") -> str:
    """A profile's key: measured again when the CPU, the backend, the threads, the target model,
    what is measured or the integer kernels (their source, compiler and instruction set) change."""
    from specdec.models import intdot
    model = f" | {target}" if target else ""
    return f"{cpu} | {backend} | threads {threads}{model} | r{REVISION} | {intdot.build_id()} | {intdot.kernel()}"


def matmul_gflops(n: int = 768, repeats: int = 5) -> float:
    """Float32 GFLOP/s of an n × n matrix product (the fastest of `repeats`)."""
    a, b = torch.randn(n, n), torch.randn(n, n)
    a @ b
    best = min(_timed(lambda: a @ b) for _ in range(repeats))
    return round(2 * n ** 3 / best / 1e9, 1)


def intdot_gflops(rows: int = 16, repeats: int = 5) -> float:
    """GFLOP/s (2 per multiply-add) of the integer kernel on a SmolLM2-sized Q4_1 layer (1536 × 576)
    of `rows` rows, its weights in the caches: the compute roof of a target that runs it."""
    from specdec.models.intdot.linear import product, q4_1_of, q4_1_records
    records, x = q4_1_records(q4_1_of(torch.randn(1536, 576))), torch.randn(rows, 576)
    product("q4_1", records, x)
    best = min(_timed(lambda: product("q4_1", records, x)) for _ in range(repeats))
    return round(2 * 1536 * 576 * rows / best / 1e9, 1)


def compute_rate(target) -> tuple[float, str]:
    """(GFLOP/s, what was timed) for the arithmetic the target's layers run: the integer kernel
    where they multiply through it (intdot), else torch's float32 matrix multiply."""
    from specdec.models import intdot
    if precision.of(target) == precision.Precision.INTDOT and intdot.available():
        return intdot_gflops(), f"16-bit integer multiply-adds ({intdot.kernel()} kernel)"
    return matmul_gflops(), "float32 multiply-adds (torch's matrix multiply)"


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def weight_mb(pair) -> float:
    """The bytes one step of the pair's target reads: the ONNX build's weights file, or the
    torch target's linear weights in their precision."""
    backend = pair.passes
    if backend.name == Backend.ONNX:
        return round(sum(p.stat().st_size for p in backend.target.folder.glob("*.onnx*")) / 1e6, 4)
    return round(precision.weight_bytes(pair.target) / 1e6, 4)


def params_m(model) -> float:
    """Parameters of the linear layers (the LM head included): what a token multiplies through."""
    linears = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    return round(sum(m.in_features * m.out_features for m in linears) / 1e6, 4)


def measure(pair, drafts: dict, progress=lambda *_: None) -> Profile:
    """Profile this machine with `pair` (its target on its backend) and `drafts` (name -> model)."""
    steps = 3 + ROUNDS
    progress(0, steps, "memory read and compute rates")
    bandwidth, (gflops, arithmetic) = bandwidth_gbs(), compute_rate(pair.target)
    progress(1, steps, "the draft models beside the target")
    for model in drafts.values():
        if model is not pair.draft:
            beside(pair.target, model)          # priced as it runs in a pair with this target
    ms = _interleaved(pair, drafts, lambda r: progress(2 + r, steps, f"passes of 1 to {WIDTHS[-1]} tokens, "
                                                                     f"round {r + 1} of {ROUNDS}"))
    one = statistics.median(ms[1])
    widths = {m: 1.0 if m == 1 else round(ratio(ms[m], ms[1]), 3) for m in WIDTHS}
    costs = {name: round(ratio(ms[name], ms[1]), 4) for name in drafts} | engine_c(pair, drafts)
    progress(steps - 1, steps, "reading a prompt")
    prefill = step_ms(pair.passes, pair.vocab_size, reps=5, tokens=PREFILL) / PREFILL
    profile = Profile(cpu_model(), pair.passes.name, torch.get_num_threads(), round(one, 2), widths, costs,
                      bandwidth, gflops, weight_mb(pair), params_m(pair.target), time.strftime("%Y-%m-%d %H:%M"),
                      arithmetic, round(prefill, 3), round(machine_load(), 2), kernels.describe(pair.target),
                      f"torch {torch.__version__}, transformers {transformers.__version__}", pair.target_name)
    profile = retimed(profile, pair.target)
    progress(steps, steps, "done")
    return profile


RETIMES = 3                        # the rates timed again, at most, until the roofline bounds the passes


def retimed(profile: Profile, target) -> Profile:
    """`profile` with its memory and compute rates timed again after its passes, each the faster of its
    timings (a rate is only ever timed too low: other work, or a thread holding the interpreter as the
    server starts, had timed 2 GFLOP/s where the kernel runs 100 and put the bound 44 steps above a
    measured step), again while the roofline they give lies above a measured pass (a bound cannot)."""
    for _ in range(RETIMES):
        profile = replace(profile, bandwidth_gbs=max(profile.bandwidth_gbs, bandwidth_gbs()),
                          gflops=max(profile.gflops, compute_rate(target)[0]))
        if bounded(profile):
            break
    return profile


def bounded(profile: Profile) -> bool:
    """Whether the roofline of the profile's rates lies at or under every pass it measured (False: a
    rate was timed too low, or the weights' bytes or parameters are wrong)."""
    return all(bound_ms(profile, m) <= x * profile.step_ms for m, x in profile.v.items())


def bound_ms(profile: Profile, tokens: int) -> float:
    """The roofline's least time for a pass of `tokens` tokens at the profile's rates, in ms (inf without rates)."""
    if profile.bandwidth_gbs <= 0 or profile.gflops <= 0 or profile.params_m <= 0:
        return float("inf")
    target = roofline.Model("target", profile.params_m / 1e3, profile.weight_mb / profile.params_m)
    return roofline.pass_seconds(roofline.here(profile.bandwidth_gbs, profile.gflops), target, tokens) * 1e3


ROUNDS = 5                         # interleaved rounds behind every price of a profile
PROBE = "def mean(values):\n    return"
PROBE_CHAT = "Write a Python function mean(values) that returns the average of a list of numbers."
PROBE_TOKENS = 40                  # new tokens, or half the pair's context where that is less
PROBE_REPEATS = 3                  # interleaved probes a draft, their median kept


def probe(pair):
    """The probe as the lessons prompt this pair: a chat where its tokenizer has a template (the lessons'
    default; a template's longer context costs a draft step more), else raw text."""
    return user_turn(PROBE_CHAT) if has_template(pair.tokenizer) else PROBE


def engine_c(pair, drafts: dict) -> dict[str, float]:
    """Each draft's c as a run pays it: a draft forward inside speculative rounds, with the
    sampling and bookkeeping around it, over a target pass of autoregressive rounds timed beside
    them (measure.draft_cost_in_run, the k sweep's own c), on a short prompt at the lab's default
    settings (k = 4, T = 0.7: sampling is part of the price), the median of PROBE_REPEATS probes
    interleaved with the plain runs.
    The bare forward (`_interleaved`) leaves that work out: priced with it, predictions ran ahead
    of every measurement (Intel Xeon, family 6 model 167: c 0.089 bare, 0.146-0.149 in the runs).
    One raw-text probe had priced c at 0.106 where the lessons' chat runs paid 0.123-0.147 (same CPU).
    A draft whose runs give no c keeps its bare one."""
    settings, prompt = Settings(max_new_tokens=min(PROBE_TOKENS, pair.context // 2)), probe(pair)
    found: dict[str, list[float]] = {}
    for seed in range(PROBE_REPEATS):
        base = generate(pair, prompt, replace(settings, mode="autoregressive", seed=seed), lean=True)
        for name, model in drafts.items():
            drafted = pair if model is pair.draft else replace(pair, draft=model, draft_name=name)
            spec = generate(drafted, prompt, replace(settings, seed=seed), lean=True)
            if (c := draft_cost_in_run(spec.rounds, base.rounds)) is not None:
                found.setdefault(name, []).append(c)
    return {name: round(statistics.median(cs), 4) for name, cs in found.items()}


def ratio(times: list[float], steps: list[float]) -> float:
    """The median over rounds of a price over the one-token step timed in the same round: a machine
    that runs faster or slower from one round to the next (its clock, other work) moves both alike,
    so the ratio holds where a ratio of two medians taken at different moments would not (a profile
    here had priced v(5) at 2.22 where its runs paid 2.00, and an hour later measured 1.78–1.99)."""
    return statistics.median(t / s for t, s in zip(times, steps))


def _interleaved(pair, drafts: dict, progress) -> dict[object, list[float]]:
    """The ms of every pass width M (key M) and every draft's step (key: its name) in each of ROUNDS
    rounds that each time them all in turn (a list, one a round): a burst of load then touches every
    price a little, never one width's whole measurement (which had made v(3) dearer than v(4) here)."""
    times: dict = {}
    for r in range(ROUNDS):
        progress(r)
        for m in WIDTHS:
            times.setdefault(m, []).append(step_ms(pair.passes, pair.vocab_size, reps=5, tokens=m))
        for name, model in drafts.items():
            times.setdefault(name, []).append(step_ms(model, pair.vocab_size, reps=5))
    return times


def best_k(profile: Profile, draft: str, alpha: float) -> tuple[int, float] | None:
    """The chain length this machine's prices favour for a draft whose drafts are accepted with
    probability α: (k, predicted speedup) maximising tokens a round / (k·c + v(k + 1)) over the k
    whose pass was measured (Theorem 3.8 with the measured pass); None without the draft's c."""
    c = profile.c.get(draft)
    if c is None:
        return None
    options = [(m - 1, speedup_with_verify(alpha, m - 1, c, profile.v[m])) for m in sorted(profile.v) if m > 1]
    return max(options, key=lambda option: option[1]) if options else None


def prices(profile: Profile | None, pair, drafter: str) -> Prices | None:
    """The prices a draft-length policy weighs for `drafter` on `pair` (models/prices.py): c of the
    pair's draft model, or 0 for a drafter that runs none (n-gram, suffix lookups); None without a
    profile or without a measured c for the model the drafter runs (early exit, a draft not
    profiled)."""
    c = draft_c(profile, drafter, pair.draft_name)
    return None if c is None else Prices(c, dict(profile.v), profile.key())


def draft_c(profile: Profile | None, drafter: str, draft: str | None) -> float | None:
    """c of `drafter` drafting with the model `draft` on this profile's target: the draft's
    measured c, 0 for a drafter that runs no model, None where the profile has none."""
    kind = DRAFTERS.get(drafter)
    if profile is None or kind is None:
        return None
    return profile.c.get(draft) if kind.needs_draft_model else 0.0 if kind.step_model is no_model else None


def priced(pair, drafter: str):
    """`pair` with this machine's prices for `drafter` where they were measured (else unchanged):
    what the "priced" draft-length policy reads."""
    found = prices(of(pair), pair, drafter)
    return pair if found is None else replace(pair, prices=found)


def load(cpu: str, backend: str, threads: int, target: str = "") -> Profile | None:
    entry = jsonstore.entry(STORE, key(cpu, backend, threads, target), _valid)
    return None if entry is None else _profile(entry)


def of(pair) -> Profile | None:
    """This machine's profile measured with `pair`'s target on its backend (None: not yet)."""
    return load(cpu_model(), pair.passes.name, torch.get_num_threads(), pair.target_name)


def _profile(entry: dict) -> Profile:
    return Profile(**{**entry, "v": {int(m): float(x) for m, x in entry["v"].items()}})


def _valid(entry) -> bool:
    """Every field of a Profile with its type: numbers finite, v and c maps of numbers."""
    num = jsonstore.number
    maps = isinstance(entry.get("v"), dict) and isinstance(entry.get("c", {}), dict)
    return (maps and set(entry) <= set(Profile.__dataclass_fields__) and isinstance(entry.get("cpu"), str)
            and isinstance(entry.get("backend"), str) and isinstance(entry.get("threads"), int)
            and num(entry.get("step_ms"), 1e-9) and all(str(m).isdigit() and num(x) for m, x in entry["v"].items())
            and all(num(x) for x in entry.get("c", {}).values()) and isinstance(entry.get("measured_at", ""), str)
            and all(isinstance(entry.get(f, ""), str) for f in ("arithmetic", "kernels", "versions", "target"))
            and all(num(entry.get(f, 0.0)) for f in ("bandwidth_gbs", "gflops", "weight_mb", "params_m", "prefill_ms",
                                                     "load"))
            and bool(_profile(entry)))


def save(profile: Profile) -> None:
    jsonstore.put(STORE, profile.key(), asdict(profile))
