"""The target's passes on ONNX Runtime, with the KV cache kept as the engine's own tensors.

Each layer's keys and values live in one torch buffer (1, kv_heads, capacity, head_dim) that
ONNX Runtime reads and writes in place: the buffer is bound as both the layer's past and its
present (GroupQueryAttention's shared-buffer mode), and the attention mask's width tells it
how many positions are valid. So a rollback is a shorter length (`crop`), nothing is copied
per pass, and the cache lesson sees the same rows the runtime attends to.

Exactness rests on one property, checked by tests/test_onnx_backend.py on the installed build:
a row's logits must not depend on how many rows its pass has. ONNX Runtime's int4 product
takes another kernel for a single row (measured: logits up to 0.9 apart), while all passes of
two or more rows agree bit for bit. So every pass here feeds at least MIN_ROWS rows: a
one-token step feeds a placeholder after its token, whose row is dropped and whose cache
position is never counted (the causal mask keeps it out of the real row); at the context's last
position, where no placeholder fits, it feeds the cached token before it again instead. Measured on a 2-core
Intel Xeon (1 thread, 100 cached positions): one row 17.2 ms, two rows 17.4 ms.
"""
from __future__ import annotations

import json

import numpy as np
import torch

MIN_ROWS = 2             # the narrowest pass whose rows equal those of every wider pass
FIRST_CAPACITY = 256     # cache rows allocated at first; doubled when a pass needs more


class OrtTarget:
    """One ONNX Runtime session of the target, shared read-only by every run (and thread)."""

    def __init__(self, folder, threads: int):
        import onnxruntime as ort
        options = ort.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = max(1, threads), 1
        self.session = ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
        self.folder, self.threads = folder, threads
        config = json.loads((folder / "genai_config.json").read_text())["model"]
        decoder = config["decoder"]
        self.layers, self.kv_heads = int(decoder["num_hidden_layers"]), int(decoder["num_key_value_heads"])
        self.head_dim, self.vocab = int(decoder["head_size"]), int(config["vocab_size"])
        self.context = int(config["context_length"])          # rotary tables' rows: positions it takes

    def new_cache(self) -> "OrtCache":
        return OrtCache(self)

    def rows_agree(self, width: int = 9, prefix: int = 7) -> bool:
        """The property exactness rests on, on this build and CPU: the rows of one pass of
        `width` tokens equal the same tokens fed MIN_ROWS at a time, bit for bit."""
        tokens = [(31 * i + 7) % self.vocab for i in range(prefix + width)]
        wide, narrow = self.new_cache(), self.new_cache()
        self.forward(tokens[:prefix], wide), self.forward(tokens[:prefix], narrow)
        together = self.forward(tokens[prefix:], wide)[0]                          # (width, V)
        apart = [self.forward(tokens[at:at + MIN_ROWS], narrow)[0]
                 for at in range(prefix, prefix + width, MIN_ROWS)]
        return torch.equal(together, torch.cat(apart))

    def forward(self, ids: list[int], cache: "OrtCache", keep: int = 0,
                features: bool = False) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Feed `ids` after what `cache` holds: (keep or all rows, V) float32 logits, and the
        final hidden states (len(ids), H) when `features`."""
        rows, before = len(ids), 0
        if rows >= MIN_ROWS:
            feed = ids
        elif cache.length + MIN_ROWS <= self.context:
            feed = ids + [ids[-1]] * (MIN_ROWS - rows)           # a placeholder row after: never kept
        else:                                                    # the context's last position: the
            before = MIN_ROWS - rows                             # cached token before is fed again
            cache.length -= before                               # (same position, same bits)
            feed = cache.ids[cache.length:cache.length + before] + ids
        logits, states = cache.run(feed)                         # (len(feed), V), (len(feed), H)
        cache.ids[cache.length:] = feed[:before + rows]
        cache.length += before + rows                            # a placeholder's position is not kept
        logits, states = logits[before:before + rows], states[before:before + rows]
        logits = logits if not keep else logits[rows - keep:]
        return torch.from_numpy(logits), (torch.from_numpy(states) if features else None)


class OrtCache:
    """The KV cache of one sequence: buffers bound to a session's inputs and outputs."""

    def __init__(self, target: OrtTarget, capacity: int = FIRST_CAPACITY):
        self.target, self.length, self.buffers = target, 0, []
        self.ids: list[int] = []          # the token at each cached position (valid up to length)
        self.binding = target.session.io_binding()
        self._allocate(capacity)

    def _allocate(self, capacity: int) -> None:
        """Buffers of `capacity` positions (the valid ones copied over), bound as past and present."""
        import onnxruntime as ort
        t, old = self.target, self.buffers
        shape = (1, t.kv_heads, capacity, t.head_dim)                                  # (1, kv, cap, d)
        self.buffers = [torch.zeros(shape) for _ in range(2 * t.layers)]
        for new, was in zip(self.buffers, old):
            new[:, :, :self.length] = was[:, :, :self.length]
        values = [ort.OrtValue.ortvalue_from_numpy(b.numpy()) for b in self.buffers]     # the same memory
        b = self.binding
        b.clear_binding_outputs()
        b.bind_output("logits")                     # first: get_outputs() lists outputs as bound
        b.bind_output("hidden_states")
        for i in range(t.layers):
            for j, kind in enumerate(("key", "value")):
                b.bind_ortvalue_input(f"past_key_values.{i}.{kind}", values[2 * i + j])
                b.bind_ortvalue_output(f"present.{i}.{kind}", values[2 * i + j])
        self._values = values                       # keep the OrtValues alive with their buffers

    @property
    def capacity(self) -> int:
        return self.buffers[0].shape[2]

    def run(self, feed: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """One pass of `feed` after `length` positions (writes their keys and values in place)."""
        if self.length + len(feed) > self.capacity:
            self._allocate(max(2 * self.capacity, self.length + len(feed)))
        b = self.binding
        b.bind_output("logits")                                                                  # (1, M, V)
        b.bind_output("hidden_states")                                                           # (1, M, H)
        b.bind_cpu_input("input_ids", np.array([feed], dtype=np.int64))                         # (1, M)
        b.bind_cpu_input("attention_mask", np.ones((1, self.length + len(feed)), dtype=np.int64))
        self.target.session.run_with_iobinding(b)
        logits, states = b.get_outputs()[:2]
        return logits.numpy()[0], states.numpy()[0]

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
