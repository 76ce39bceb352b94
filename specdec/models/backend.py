"""Target backends: what runs the target's single-sequence passes (the prefill, an
autoregressive step, a verification of k + 1 rows).

- `torch`: the target's own modules (runtime.forward: the lean pass, every kernel choice,
  features, hooks). It also runs every pass the other backends do not serve: a tree's masked
  pass, a batch of requests, transformers' generate().
- `onnx`: ONNX Runtime on an int4 build of the target (onnx_build.py, onnx_target.py). It
  serves chain drafters; a run with a tree drafter, or a batch, verifies on torch.

`auto` considers ONNX Runtime for an embedded target that comes as a GGUF (SmolLM2): the
model a CPU user runs in a compiled runtime. The tiny stdlib models stay on torch, and a
user's own model or GGUF takes `backend="onnx"` when asked (its build takes a while, and the
builder does not take every architecture or shape: one message says so). `auto` times a
one-token step of each on this machine (cached
per CPU, library versions and model in build/backends.json) and keeps the faster; a named
backend is used as asked. A run records which backend verified it (Run.settings["backend"]).
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

from specdec.errors import LoadError
from specdec.files import jsonstore
from specdec.models import onnx_build, onnx_graph
from specdec.models.kernels import cpu_model
from specdec.models.names import CONVERTED
from specdec.models.runtime import crop_cache, forward_with_features, new_cache
from specdec.models.runtime import forward as torch_forward
from specdec.wording import N_

BACKEND_AUTO = "auto"             # the faster of the backends this target has, timed here
BACKENDS = (BACKEND_AUTO, "torch", "onnx")
STORE = Path(__file__).resolve().parents[2] / "build" / "backends.json"
PROBE_REPEATS = 7


def fed(ids: list[int]) -> None:
    """A pass reads at least one token: an empty one means a round's bookkeeping went wrong
    (once: two threads stepping one run), and the kernels would fail deep inside or, on ONNX
    Runtime, write outside the buffers. Refused here, where it says what happened."""
    if len(ids) == 0:
        raise RuntimeError("a target pass was asked to read no tokens: the run's caches and its "
                           "tokens disagree (was it stepped from two threads at once?)")


class TorchBackend:
    name = "torch"

    def __init__(self, model, vocab_size: int):
        self.model, self.vocab_size = model, vocab_size
        self.context = getattr(model.config, "max_position_embeddings", None) or 2048   # positions it takes

    def new_cache(self):
        return new_cache(self.model)

    def forward(self, ids: list[int], cache, keep: int = 0, features: bool = False):
        """(keep or all rows, V) float32 logits, and (len(ids), H) final hidden states if asked."""
        fed(ids)
        if features:
            return forward_with_features(self.model, ids, cache, self.vocab_size, keep)
        return torch_forward(self.model, ids, cache, self.vocab_size, keep), None


class OnnxBackend:
    """The target on ONNX Runtime (a re-quantised int4 build): chain rounds only."""
    name = "onnx"

    def __init__(self, target, vocab_size: int):
        self.target, self.vocab_size, self.context = target, vocab_size, target.context

    def new_cache(self):
        return self.target.new_cache()

    def forward(self, ids: list[int], cache, keep: int = 0, features: bool = False):
        fed(ids)
        logits, feats = self.target.forward(ids, cache, keep, features)
        return logits[:, :self.vocab_size], feats


def onnx_source(name: str, model) -> Path | None:
    """The HF folder an ONNX build of `model` is made from (None: this target has none)."""
    folder = getattr(getattr(model, "config", None), "_name_or_path", "") or ""
    path = Path(folder)
    if not (path / "config.json").is_file() or not any(path.glob("*.safetensors")):
        return None
    if getattr(model.config, "model_type", "") != "llama" or next(model.parameters()).device.type != "cpu":
        return None
    return path


def make(name: str, model, vocab_size: int, backend: str = BACKEND_AUTO):
    """The backend object for a loaded target (`name` as loaded, `model` its torch modules)."""
    if backend not in BACKENDS:
        raise LoadError(N_("backend must be one of {choices}, not {value}"),
                        choices=", ".join(BACKENDS), value=repr(backend))
    torch_backend = TorchBackend(model, vocab_size)
    source = onnx_source(name, model) if onnx_build.installed() else None
    if backend == "torch" or (backend == BACKEND_AUTO and (source is None or name not in CONVERTED)):
        return torch_backend
    if source is None:
        raise LoadError(N_("the onnx backend needs onnxruntime and a local Llama target on the CPU; {name} is not one"),
                        N_("use --backend torch"), name=repr(name))
    if backend == "onnx":
        return OnnxBackend(_session(name, source), vocab_size)
    try:
        onnx = OnnxBackend(_session(name, source), vocab_size)
    except LoadError as err:                    # auto: say why, and keep torch
        print(f"specdec: the onnx backend is not used: {err}", file=sys.stderr, flush=True)
        return torch_backend
    return _faster(name, torch_backend, onnx)


def _session(name: str, source: Path):
    """The target's ONNX Runtime session, refused where a row's logits depend on its pass's width."""
    from specdec.models.onnx_target import OrtTarget
    folder = onnx_build.built(name, source)
    try:
        target = OrtTarget(folder, torch.get_num_threads())
        agree = target.rows_agree()
    except Exception as err:                   # onnxruntime's own errors: a shape its kernels refuse
        raise LoadError(N_("ONNX Runtime cannot run this model: {detail}"), N_("use --backend torch"),
                        detail=str(err).strip().splitlines()[-1][:200]) from None
    if not agree:
        raise LoadError(N_("on this machine ONNX Runtime gives a token different logits in passes of "
                           "different widths, so speculative decoding on it would not be exact"),
                        N_("use --backend torch"))
    return target


def pass_ms(backend, rows: int = 1, prefix: int = 64, repeats: int = PROBE_REPEATS) -> float:
    """Fastest of `repeats` passes of `rows` tokens after `prefix` cached positions."""
    cache, times = backend.new_cache(), []
    backend.forward(list(range(10, 10 + prefix)), cache, keep=1)
    for _ in range(repeats):
        t0 = time.perf_counter()
        backend.forward(list(range(200, 200 + rows)), cache, keep=1)
        times.append((time.perf_counter() - t0) * 1e3)
        crop_cache(cache, prefix)
    return min(times)


def _key(name: str) -> str:
    return (f"{cpu_model()} | {torch.backends.cpu.get_cpu_capability()} | torch {torch.__version__} | "
            f"{json.dumps(onnx_build.versions(), sort_keys=True)} | {onnx_graph.VERSION} | {name} | "
            f"threads {torch.get_num_threads()} | step")


def _faster(name: str, *candidates):
    """The candidate whose one-token step is fastest here (timed once, then kept)."""
    names, key = {c.name for c in candidates}, _key(name)
    timings = jsonstore.entry(STORE, key, lambda t: isinstance(t, dict) and set(t) == names and
                              all(jsonstore.number(v) for v in t.values()))
    if timings is None:
        timings = {c.name: round(pass_ms(c), 2) for c in candidates}
        _write(key, timings)
    best = min(candidates, key=lambda c: timings[c.name])
    best.timings = timings
    return best


def _write(key: str, timings: dict) -> None:
    jsonstore.put(STORE, key, timings)


def describe(backend, agreement: dict | None = None) -> str:
    """One line for the bench and the CLI; `agreement`: bench/agreement.py's measurement."""
    if backend.name != "onnx":
        return "torch (the target's own modules)"
    line = ("ONNX Runtime (int4 re-quantised by onnxruntime-genai's builder: a different model from the "
            "GGUF's own Q4_1 weights")
    if agreement:
        line += (f"; its top token agrees with the GGUF target's at {100 * agreement['agreement']:.0f}% of "
                 f"positions, {agreement['chats']} held-out chats, measured on {agreement['cpu']}")
    return line + ")"
