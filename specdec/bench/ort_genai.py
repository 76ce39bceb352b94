"""onnxruntime-genai's own generation loop on the engine's ONNX build: the bench's yardstick for
the ONNX Runtime backend ("does the engine add anything to the runtime it drives?").

The same build folder, the same prompt ids (the engine encodes each prompt and hands the ids
over), the same new-token budget, threads and sampling (greedy at T = 0, else temperature,
top-k and top-p). Its loop runs the builder's own graph, whose attention takes another path
for a one-row step than the engine's padded graph (onnx_graph.py), so its logits differ in the
last bits and its outputs are counted but not compared token for token.
"""
from __future__ import annotations

import functools
import json

from specdec.bench.clock import Lap, stopwatch
from specdec.models.backend import Backend
from specdec.settings import Settings


def why_not(pair) -> str | None:
    """None when this row can run for `pair`, else why not."""
    if getattr(pair.passes, "name", Backend.TORCH) != Backend.ONNX:
        return "the target does not run on ONNX Runtime (--backend onnx)"
    return None


@functools.lru_cache(maxsize=2)
def _model(folder: str, threads: int):
    """The runtime's model on the CPU with the engine's thread count (an overlay: the build's
    own files, whose hashes verify it, stay as built)."""
    import onnxruntime_genai as og
    config = og.Config(folder)
    config.clear_providers()
    threads_only = {"intra_op_num_threads": threads, "inter_op_num_threads": 1}
    config.overlay(json.dumps({"model": {"decoder": {"session_options": threads_only}}}))
    return og.Model(config)


def generate(pair, prompt_ids: list[int], settings: Settings, seed: int, threads: int,
             length: int | None = None) -> tuple[list[int], Lap]:
    """(new token ids, time) of the runtime's own loop for one prompt: up to max_new_tokens,
    or exactly `length` new tokens (its end-of-turn token then does not stop it)."""
    import onnxruntime_genai as og
    model = _model(str(pair.passes.target.folder), threads)
    params = og.GeneratorParams(model)
    sampled = settings.temperature > 0
    total = len(prompt_ids) + (settings.max_new_tokens if length is None else max(1, length))
    search = dict(max_length=total, do_sample=sampled, random_seed=seed)
    if length is not None:
        search["min_length"] = total
    if sampled:
        search.update(temperature=settings.temperature, top_p=settings.top_p, top_k=settings.top_k or 0)
    params.set_search_options(**search)
    with stopwatch() as lap:
        generator = og.Generator(model, params)
        generator.append_tokens(prompt_ids)
        while not generator.is_done():
            generator.generate_next_token()
    return list(generator.get_sequence(0))[len(prompt_ids):], lap
