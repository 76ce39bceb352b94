"""llama.cpp on the same GGUF, as the yardstick for the bench (`make peers` installs it).

llama.cpp is the usual way to run a GGUF on a CPU, so the bench adds its rows when
`llama-cpp-python` is installed and the target came from a GGUF file: the same prompts (chats
through the file's own chat template), the same number of new tokens, threads and sampling
(greedy at T = 0; at T > 0 temperature, top-k and top-p as set, llama.cpp's extra min-p and
repetition penalty switched off). Rows: its autoregressive decoding, and its prompt-lookup
speculation (`LlamaPromptLookupDecoding`, k tokens a round) — the speculative mode it offers
from Python without a second GGUF. Its tokens are counted by llama.cpp (`usage`); outputs are
text, so they are not compared token for token with the engine's.
"""
from __future__ import annotations

import functools
import importlib.util
import signal
import subprocess
import sys
from pathlib import Path

from specdec.bench.clock import Lap, stopwatch
from specdec.settings import Settings

PACKAGE = "llama_cpp"
INSTALL = "`make peers` (pip builds llama-cpp-python from source, ~15 min on 2 cores)"


def why_not(gguf: Path | None) -> str | None:
    """None when llama.cpp rows can run for this target, else why not."""
    if importlib.util.find_spec(PACKAGE) is None:
        return f"llama.cpp is not installed: {INSTALL}"
    if gguf is None:
        return "llama.cpp runs GGUF files and this target was not loaded from one"
    return _crashes(str(gguf))


PROBE = ("import sys; from llama_cpp import Llama; "
         "Llama(model_path=sys.argv[1], n_threads=1, n_ctx=64, verbose=False).create_completion('a', max_tokens=2)")


@functools.lru_cache(maxsize=4)
def _crashes(gguf: str) -> str | None:
    """A build for another CPU dies with SIGILL and would take the whole bench with it: one
    short generation in a child process first."""
    try:
        done = subprocess.run([sys.executable, "-c", PROBE, gguf], capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "llama.cpp did not answer a 2-token request within 120 s"
    if done.returncode == 0:
        return None
    how = f"signal {signal.Signals(-done.returncode).name}" if done.returncode < 0 else f"exit {done.returncode}"
    return f"llama.cpp crashed on this CPU ({how}): rebuild it with {INSTALL}"


@functools.lru_cache(maxsize=4)
def model(gguf: str, threads: int, lookup_k: int | None = None, context: int = 2048):
    from llama_cpp import Llama
    extra = {}
    if lookup_k:
        from llama_cpp.llama_speculative import LlamaPromptLookupDecoding
        extra["draft_model"] = LlamaPromptLookupDecoding(num_pred_tokens=lookup_k)
    return Llama(model_path=gguf, n_threads=threads, n_threads_batch=threads, n_ctx=context,
                 verbose=False, seed=0, **extra)


def _sampling(settings: Settings, seed: int) -> dict:
    if settings.sampling.greedy:
        return {"temperature": 0.0, "top_k": 1, "top_p": 1.0, "min_p": 0.0, "repeat_penalty": 1.0}
    return {"temperature": settings.temperature, "top_k": settings.top_k, "top_p": settings.top_p,
            "min_p": 0.0, "repeat_penalty": 1.0, "seed": seed}


def generate(gguf: Path, prompt, settings: Settings, seed: int, threads: int,
             lookup_k: int | None = None) -> tuple[int, Lap]:
    """(new tokens, its Lap) for one prompt: a chat (messages) or a text."""
    llm = model(str(gguf), threads, lookup_k)
    llm.reset()                                   # no prefix reused from the previous prompt
    kw = {"max_tokens": settings.max_new_tokens, **_sampling(settings, seed)}
    with stopwatch() as lap:
        if isinstance(prompt, str):
            out = llm.create_completion(prompt, **kw)
        else:
            messages = [{"role": m.role, "content": m.content} for m in prompt]
            out = llm.create_chat_completion(messages=messages, **kw)
    return int(out["usage"]["completion_tokens"]), lap
