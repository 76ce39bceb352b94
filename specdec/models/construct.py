"""Models are built one at a time, in float32, whatever other threads compute meanwhile.

Why. transformers builds a model under process-wide switches, not per-thread ones:
`torch.set_default_dtype` to the dtype asked for, or to the config's own where none is (float16 in
the embedded drafts' configs), and `PreTrainedModel.tie_weights` replaced by a no-op while
`from_pretrained` reads the weights (transformers 5.24.0: modeling_utils.local_torch_dtype,
initialization.no_tie_weights). Another thread saw both while it ran:
- a tensor it made without a dtype came out float16, and the integer kernels wrote float32 into
  it: the server died with "malloc_consolidate(): invalid chunk size" when a page loaded a draft
  beside the machine measurement's passes (reproduced with a fault handler: the measurement's
  product aborted while Home built a draft from its float16 config);
- a draft loaded beside another load lost its tied head ("lm_head.weight MISSING").
So every build holds LOCK (two sessions choosing two pairs load one after the other), asks for
float32 (the default dtype then never changes), and `building` checks it did not change; and the
buffers handed to C or ONNX Runtime name their dtype, so no global can size them.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager

import torch

LOCK = threading.RLock()             # re-entrant: a load builds a draft, which may build its net
DTYPE = torch.float32                # what every build asks transformers for


@contextmanager
def building():
    """Hold the build lock; raise if the default dtype was left changed (a build that asked for
    none, whose switch other threads would have seen)."""
    with LOCK:
        before = torch.get_default_dtype()
        yield
        after = torch.get_default_dtype()
        if after != before:
            torch.set_default_dtype(before)
            raise RuntimeError(f"a model build left torch's default dtype at {after} (was {before})")
