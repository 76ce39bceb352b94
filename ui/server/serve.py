"""`make run`'s server: the default pair is loaded first, then Streamlit serves app.py.

Streamlit runs app.py only when a browser connects, so a first visit used to wait for the
GGUF conversion and the model load (40-66 s on a 2-core machine). Here they happen before the
server prints its URL, with a line saying what is going on; the pair goes into the
st.cache_resource entry the pages read (ui/loaders.preload), so the first page finds it. Then
`streamlit run ui/server/launch.py` serves app.py through Streamlit's public `st.App` with one route of
ours, /healthz (ui/server/health.py: 503 while a compute turn is stuck past its deadline).

    python -m ui.server.serve [--no-machine-profile] [streamlit run options]     # e.g. --server.port 8501

--no-machine-profile: skip the background work — the profile of this machine and the
embedding vectors of Beyond tokens' corpus (the browser tests, which start many servers on a
fresh clone and are about the pages, not about timing).
"""
from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

LAUNCH = Path(__file__).resolve().parent / "launch.py"     # app.py as an st.App with /healthz


def say(text: str) -> None:
    print(f"  {text}", flush=True)


def prepare(profile: bool = True) -> None:
    """Convert (the first time) and load the default pair, profile this machine (once per CPU and backend) and measure
    the answer box's default setting on it, saying how long it took; then, in the background, convert Gemma 3 and
    embed Beyond tokens' corpus when not done (`profile`)."""
    t0 = time.perf_counter()
    from specdec.models.gguf import target_converted
    from ui.catalog import CHOICES
    first = CHOICES[0]
    if not target_converted():
        say("First start: converting SmolLM2-135M-Instruct from its GGUF to float32 "
            "(once, about half a minute; kept in build/cache) ...")
    say(f"Loading {first.target} <- {first.draft} ...")
    from ui.loaders import preload
    preload()
    # the profile before serving, on a quiet machine: beside a first visit its passes and the page's slowed each
    # other (that overlap had also aborted the server, review 47: a draft built beside the measurement switched
    # torch's default dtype; models/construct.py now keeps every build from doing so)
    if profile:
        _measure_machine()
        _measure_answer()
    say(f"Models ready in {time.perf_counter() - t0:.1f} s; starting the server.")
    threading.Thread(target=_warm_typical, name="typical", daemon=True).start()
    threading.Thread(target=_watch_turns, name="turns", daemon=True).start()
    if profile:
        threading.Thread(target=_background, name="background", daemon=True).start()


def _background() -> None:
    _prepare_gemma3()
    _build_vectors()


SECOND_FAMILY = "gemma3/target"


def _prepare_gemma3() -> None:
    """Gemma 3 270M, offered in the sidebar: converted from its GGUF (once, about a minute) and its
    layout timed on this CPU (kept in build/kernels.json), in a process of low priority, so that
    choosing it later loads in seconds. A session that chooses it before this is done waits for the
    conversion's lock instead of converting a second time. Nothing to do once it is converted."""
    import subprocess

    from specdec.models.names import converted_ready
    if converted_ready(SECOND_FAMILY):
        return
    say("Converting Gemma 3 270M from its GGUF (in the background, once; about a minute) ...")
    code = ("import torch; from specdec.settings import THREADS; torch.set_num_threads(THREADS); "
            f"from specdec.models.load import load_model; load_model({SECOND_FAMILY!r})")
    done = subprocess.run(["nice", "-n", "19", sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "TQDM_DISABLE": "1"})
    if done.returncode != 0:
        why = (done.stderr or done.stdout).strip()[-200:]
        say(f"Gemma 3 270M could not be prepared; choosing it in the sidebar will say why: {why}")
        return
    say("Gemma 3 270M converted: the sidebar's 'Gemma 3 270M, no draft model' loads in seconds.")


def _build_vectors() -> None:
    """Beyond tokens' corpus and its embedding stage's passage vectors, once, in a process of low
    priority: the corpus is read from this Python's own modules, and its vectors come shipped
    (assets/beyond) where it is the corpus they were made for, else are computed (minutes on 2
    cores); until they exist the page ranks with BM25 alone and says so."""
    import subprocess

    from specdec.beyond import corpus, dense
    if dense.model_folder() is None:
        return
    built = corpus.store_path().is_file()     # else built in the process below: not beside the app's threads
    if built and dense.kept_vectors([p.body for p in corpus.load()], corpus.STORE) is not None:
        return
    say("Building the documentation corpus for Beyond tokens, and its vectors where the app ships none for it "
        "(in the background, once) ...")
    # one thread at the lowest priority: the other core stays the app's (a newcomer's first race
    # ran its steps 1.7x slower beside a two-thread embedding job)
    done = subprocess.run(["nice", "-n", "19", sys.executable, "-m", "specdec.beyond", "corpus", "--vectors"],
                          capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    if done.returncode != 0:
        say("Preparing the corpus failed; Beyond tokens ranks with BM25 alone: "
            + (done.stderr or done.stdout).strip()[-200:])
        return
    from ui.beyond_view import corpus_stages
    corpus_stages.clear()                    # the next question reads the vectors
    say("Corpus ready: Beyond tokens' live question now has its embedding stage.")


WATCH_S = 15.0


def _watch_turns() -> None:
    """Say on the server's log when a compute turn is stuck past its deadline (ui/server/turns.py): rounds,
    jobs and chat templates are bounded (chat.limit in specdec/chat.py), so one would be a bug to report."""
    from ui.server import gate, turns
    while True:
        time.sleep(WATCH_S)
        held = turns.stuck()
        if held:
            say(f"warning: {len(held)} compute turn(s) held for {held[0]:.0f} s, past the "
                f"{turns.LIMIT_S:.0f} s deadline ({gate.SLOTS} slots in all); their slots go to waiting "
                "sessions and the health route answers 503")


def _warm_typical() -> None:
    """Decode the "Where it works" results the run-in-context captions read (a few seconds)."""
    from ui import typical
    typical.decoded(typical.stamp())


def _measure_machine() -> None:
    """Once per CPU and backend: the step, v(M) and the drafts' c the speed lessons explain
    themselves with (specdec/bench/machine.py; about a minute on 2 cores, before the server serves)."""

    from specdec.bench import machine
    from specdec.models.load import load_model
    from specdec.models.names import family_drafts
    from ui.catalog import CHOICES
    from ui.loaders import cached
    first = CHOICES[0]
    pair = cached(first.target, first.draft)
    if pair is None or machine.of(pair) is not None:
        return
    say(f"Measuring this machine for the speed lessons ({pair.passes.name}; once, about a minute) ...")
    drafts = {name: pair.draft if name == first.draft else load_model(name) for name in family_drafts(first.target)}
    profile = machine.measure(pair, drafts)
    machine.save(profile)
    say(f"Measured: a target step {profile.step_ms:.1f} ms, a pass of 5 tokens {profile.v[5]:.2f} steps.")


def _measure_answer() -> None:
    """Once per CPU, backend and threads: "Does it pay here?" measured at the sidebar's default settings, as its
    “Measure it here” button does (When it is fast's prompts, repeats interleaved with the target alone; about a
    minute on 2 cores, before the server serves), so a first visit reads this machine's own figure, not one shipped
    from another machine of its CPU model (review 55: 0.74× shipped, then 0.78× measured here)."""
    from dataclasses import replace

    import torch

    from specdec import defaults
    from specdec.bench import sweeps
    from specdec.chat import has_template
    from specdec.settings import LENGTHS, Settings
    from ui.catalog import CHOICES
    from ui.lessons import fast, store
    from ui.lessons.speed_prompts import speed_prompts, speed_set
    from ui.loaders import cached
    from ui.state import DEFAULTS, SIDEBAR
    first = CHOICES[0]
    pair = cached(first.target, first.draft)
    if pair is None or pair.draft is None:
        return
    settings = Settings(**{name: DEFAULTS[name] for name in SIDEBAR})
    ran = store.Ran(DEFAULTS["precision"], DEFAULTS["backend"], torch.get_num_threads())
    if store.filed_here(first.target, (first.draft,), settings, ran):
        return
    chat = DEFAULTS["prompt_mode"] == "chat" and has_template(pair.tokenizer)
    run = replace(settings, max_new_tokens=LENGTHS.speed)
    say(f"Measuring the answer box's default setting here (k = {settings.k}, T = {settings.temperature:g}; once, "
        "about a minute) ...")
    sweep = sweeps.k_sweep(pair, speed_prompts(chat)[1], [settings.k], run, lambda *_: None, defaults.REPEATS)
    store.file(sweep.points, fast.ksweep_figure((first.target, first.draft), run, speed_set(chat), ran), "box")
    say(f"Measured: {sweep.points[0].speedup:.2f}x the target alone at these settings.")


NO_PROFILE = "--no-machine-profile"


def main() -> int:
    options = sys.argv[1:]
    prepare(profile=NO_PROFILE not in options)
    from streamlit.web import cli
    sys.argv = ["streamlit", "run", str(LAUNCH), *(o for o in options if o != NO_PROFILE)]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main())
