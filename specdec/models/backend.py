"""Target backends: what runs the target's single-sequence passes (the prefill, an
autoregressive step, a verification of k + 1 rows).

- `torch`: the target's own modules (runtime.forward: the lean pass, every kernel choice,
  features, hooks). It also runs every pass the other backends do not serve: a tree's masked
  pass, a batch of requests, transformers' generate().
- `onnx`: ONNX Runtime on an int4 build of the target (onnx_build.py, onnx_target.py). It
  serves chain drafters; a run with a tree drafter, or a batch, verifies on torch.

`auto` is torch. ONNX Runtime's build is a different model (onnxruntime-genai's builder
re-quantises the weights: on an AMD EPYC, Zen 4, its greedy text matched none of 8 chats of
SmolLM2's own), so it runs only when asked (`backend="onnx"`, `--backend onnx`), for a
comparison; its build takes a while, and the builder does not take every architecture or
shape: one message says so. The torch backend's speed comes from the kernel choice at load
(kernels.py, intdot/). A run records which backend verified it (Run.settings["backend"]).
"""
from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import torch

from specdec.errors import LoadError
from specdec.models import onnx_build
from specdec.models.runtime import forward as torch_forward
from specdec.models.runtime import forward_with_features, new_cache
from specdec.wording import N_


class Backend(StrEnum):
    """What runs the target's passes (the values are --backend's and the records' names)."""
    AUTO = "auto"       # torch: the model the name names (ONNX Runtime only when asked)
    TORCH = "torch"
    ONNX = "onnx"


BACKEND_AUTO = Backend.AUTO
BACKENDS = tuple(Backend)


def fed(ids: list[int]) -> None:
    """A pass reads at least one token: an empty one means a round's bookkeeping went wrong
    (once: two threads stepping one run), and the kernels would fail deep inside or, on ONNX
    Runtime, write outside the buffers. Refused here, where it says what happened."""
    if len(ids) == 0:
        raise RuntimeError("a target pass was asked to read no tokens: the run's caches and its "
                           "tokens disagree (was it stepped from two threads at once?)")


class TorchBackend:
    name = Backend.TORCH

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
    name = Backend.ONNX

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
    """The backend object for a loaded target (`name` as loaded, `model` its torch modules).
    `auto` is torch: the model the name names, every pass on one path (ONNX Runtime only when asked)."""
    if backend not in BACKENDS:
        raise LoadError(N_("backend must be one of {choices}, not {value}"),
                        choices=", ".join(BACKENDS), value=repr(backend))
    if backend != Backend.ONNX:
        return TorchBackend(model, vocab_size)
    source = onnx_source(name, model) if onnx_build.installed() else None
    if source is None:
        raise LoadError(N_("the onnx backend needs onnxruntime and a local Llama target on the CPU; {name} is not one"),
                        N_("use --backend torch"), name=repr(name))
    return OnnxBackend(_session(name, source), vocab_size)


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


def describe(backend, agreement: dict | None = None) -> str:
    """One line for the bench and the CLI; `agreement`: bench/agreement.py's measurement."""
    if backend.name != Backend.ONNX:
        return "torch (the target's own modules)"
    line = ("ONNX Runtime (int4 re-quantised by onnxruntime-genai's builder: a different model from the "
            "GGUF's own Q4_1 weights")
    if agreement:
        line += (f"; its top token agrees with the GGUF target's at {100 * agreement['agreement']:.0f}% of "
                 f"positions, {agreement['chats']} held-out chats, measured on {agreement['cpu']}")
    return line + ")"
