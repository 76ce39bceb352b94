"""The target's passes on ONNX Runtime, with the KV cache kept as the engine's own tensors.

Each layer's keys and values live in one torch buffer (1, kv_heads, capacity, head_dim) that
ONNX Runtime reads and writes in place: the buffer is bound as both the layer's past and its
present (GroupQueryAttention's shared-buffer mode), and the attention mask's width tells it
how many positions are valid. So a rollback is a shorter length (`crop`), nothing is copied
per pass, and the cache lesson sees the same rows the runtime attends to.

Exactness rests on one property, checked on the installed build when it loads
(`rows_agree`) and by tests/test_onnx_backend.py: a row's logits must not depend on how many
rows its pass has. ONNX Runtime's attention takes another path for a single query row, so
the build's attention nodes see one row more than the pass (onnx_graph.py): a pass of S tokens
after L cached positions is fed an attention mask of L + S + 1, and its rows then equal, bit
for bit, the same tokens fed one at a time. That costs one attention row a pass, not a whole
second row through the network.
"""
from __future__ import annotations

import json

import numpy as np
import torch

from specdec.models.onnx_graph import FILE, KEEP, PADDED

FIRST_CAPACITY = 256     # cache rows allocated at first; doubled when a pass needs more


class OrtTarget:
    """One ONNX Runtime session of the target, shared read-only by every run (and thread)."""

    def __init__(self, folder, threads: int):
        import onnxruntime as ort
        options = ort.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = max(1, threads), 1
        self.session = ort.InferenceSession(str(folder / FILE), options, providers=["CPUExecutionProvider"])
        self.folder, self.threads = folder, threads
        config = json.loads((folder / "genai_config.json").read_text())["model"]
        decoder = config["decoder"]
        self.layers, self.kv_heads = int(decoder["num_hidden_layers"]), int(decoder["num_key_value_heads"])
        self.head_dim, self.vocab = int(decoder["head_size"]), int(config["vocab_size"])
        self.hidden = int(decoder["hidden_size"])
        self.context = int(config["context_length"]) - PADDED   # rotary tables' rows, less the padded one

    def new_cache(self) -> "OrtCache":
        return OrtCache(self)

    def rows_agree(self, width: int = 9, prefix: int = 7, long: int = 256) -> bool:
        """The property exactness rests on, on this build and CPU: the rows of one pass of
        `width` tokens equal the same tokens fed one at a time, bit for bit; and the last row of
        a long pass (a prompt's) equals that token fed alone after the others (on an AVX2-only
        AMD EPYC the first held and the second did not)."""
        tokens = [(31 * i + 7) % self.vocab for i in range(max(prefix + width, min(long, self.context)))]
        wide, narrow = self.new_cache(), self.new_cache()
        self.forward(tokens[:prefix], wide), self.forward(tokens[:prefix], narrow)
        together = self.forward(tokens[prefix:prefix + width], wide)[0]                      # (width, V)
        apart = [self.forward([token], narrow)[0] for token in tokens[prefix:prefix + width]]  # width x (1, V)
        if not torch.equal(together, torch.cat(apart)):
            return False
        n = min(long, self.context)
        whole, steps = self.new_cache(), self.new_cache()
        last_row = self.forward(tokens[:n], whole, keep=1)[0]                                # (1, V)
        self.forward(tokens[:n - 1], steps, keep=1)
        return torch.equal(last_row, self.forward(tokens[n - 1:n], steps)[0])

    def forward(self, ids: list[int], cache: "OrtCache", keep: int = 0,
                features: bool = False) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Feed `ids` after what `cache` holds: (keep or all rows, V) float32 logits (the LM head
        runs on those rows only), and the final hidden states (len(ids), H) when `features`."""
        logits, states = cache.run(ids, min(keep, len(ids)) or len(ids))   # (keep, V), (len(ids), H)
        cache.length += len(ids)
        return logits, (states if features else None)


class OrtCache:
    """The KV cache of one sequence: buffers bound to a session's inputs and outputs."""

    def __init__(self, target: OrtTarget, capacity: int = FIRST_CAPACITY):
        self.target, self.length, self.buffers = target, 0, []
        self.keep = torch.zeros(1, dtype=torch.int64)            # KEEP: logits of the last rows
        self.binding = target.session.io_binding()
        self._allocate(capacity)

    def _allocate(self, capacity: int) -> None:
        """Buffers of `capacity` positions (the valid ones copied over), bound as past and present."""
        import onnxruntime as ort
        t, old = self.target, self.buffers
        shape = (1, t.kv_heads, capacity, t.head_dim)                                  # (1, kv, cap, d)
        self.buffers = [torch.zeros(shape, dtype=torch.float32) for _ in range(2 * t.layers)]
        for new, was in zip(self.buffers, old):
            new[:, :, :self.length] = was[:, :, :self.length]
        values = [ort.OrtValue.ortvalue_from_numpy(b.numpy()) for b in self.buffers]     # the same memory
        self.mask = torch.ones((1, capacity), dtype=torch.int64)   # attention masks are its prefixes
        b, self._shape = self.binding, None                        # outputs to bind again
        b.clear_binding_outputs()
        for i in range(t.layers):
            for j, kind in enumerate(("key", "value")):
                b.bind_ortvalue_input(f"past_key_values.{i}.{kind}", values[2 * i + j])
                b.bind_ortvalue_output(f"present.{i}.{kind}", values[2 * i + j])
        self._values = values                       # keep the OrtValues alive with their buffers

    @property
    def capacity(self) -> int:
        return self.buffers[0].shape[2]

    def run(self, feed: list[int], keep: int) -> tuple[torch.Tensor, torch.Tensor]:
        """One pass of `feed` after `length` positions (writes their keys and values in place,
        and the padded attention row's after them): the last `keep` rows' (keep, V) logits, and
        (M, H) final hidden states."""
        width = self.length + len(feed) + PADDED                   # the padded attention's total length
        if width > self.capacity:
            self._allocate(max(2 * self.capacity, width))
        if (len(feed), keep) != self._shape:
            self._bind_rows(len(feed), keep)
        self.ids.numpy()[0] = feed
        self.binding.bind_input("attention_mask", "cpu", 0, np.int64, [1, width], self.mask.data_ptr())
        self.target.session.run_with_iobinding(self.binding)
        return self.logits[0].clone(), self.states[0].clone()     # the buffers serve the next pass

    def _bind_rows(self, rows: int, keep: int) -> None:
        """Input ids and outputs of a pass of `rows` tokens keeping `keep` rows' logits, bound
        once while passes keep that shape."""
        t, b = self.target, self.binding
        self.ids = torch.empty((1, rows), dtype=torch.int64)                                   # (1, M)
        self.logits = torch.empty((1, keep, t.vocab), dtype=torch.float32)                      # bound as float32
        self.states = torch.empty((1, rows, t.hidden), dtype=torch.float32)
        self.keep[0] = keep
        b.bind_input("input_ids", "cpu", 0, np.int64, [1, rows], self.ids.data_ptr())
        b.bind_input(KEEP, "cpu", 0, np.int64, [1], self.keep.data_ptr())
        for name, out in (("logits", self.logits), ("hidden_states", self.states)):
            b.bind_output(name, "cpu", 0, np.float32, list(out.shape), out.data_ptr())
        self._shape = (rows, keep)

    # the cache API the engine uses on transformers' DynamicCache
    def get_seq_length(self) -> int:
        return self.length

    def crop(self, max_length: int) -> None:
        """As DynamicCache.crop: a negative argument drops that many positions from the end."""
        self.length = max(0, self.length + max_length if max_length < 0 else min(self.length, max_length))

    @property
    def layers(self) -> list:
        """Per layer, the valid keys and values as (1, kv, length, d) views (what DynamicCache shows)."""
        return [_Layer(self.buffers[2 * i][:, :, :self.length], self.buffers[2 * i + 1][:, :, :self.length])
                for i in range(self.target.layers)]


class _Layer:
    def __init__(self, keys: torch.Tensor, values: torch.Tensor):
        self.keys, self.values = keys, values
