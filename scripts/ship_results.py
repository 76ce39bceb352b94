"""Measure the heavy pages ahead on this machine and ship the results with the app.

    SPECDEC_SHIP=1 .venv/bin/python scripts/ship_results.py            # SmolLM2 pair, every page
    SPECDEC_SHIP=1 .venv/bin/python scripts/ship_results.py --pages drafters,ksweep
    SPECDEC_SHIP=1 .venv/bin/python scripts/ship_results.py --pages where --temperature 0
    SPECDEC_SHIP=1 .venv/bin/python scripts/ship_results.py --pages where,drafters --k 1

Runs each page as a user would (Streamlit's AppTest: the page's own defaults, the pair chosen
in the sidebar), presses its measure button and waits; with SPECDEC_SHIP=1 the page writes
the result into assets/results/ (ui/lessons/shipped.py), labelled with this CPU, the date and
how long it took. Commit those files with the weights they were measured on: a retrain
invalidates them (the key holds the weights' content), and the pages fall back to their button.
Run it on a quiet machine: the results are timings.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest, local_script_runner

ROOT = Path(__file__).resolve().parent.parent

sys.path.insert(0, str(ROOT))

from ui.catalog import CHOICES  # noqa: E402
from ui.lessons import shipped  # noqa: E402
from ui.state import DEFAULTS  # noqa: E402

APP = str(ROOT / "app.py")
# measurement (its `measured` kind) -> the page it is on
PAGES = {"where": "pages/where.py", "drafters": "pages/drafters.py", "ksweep": "pages/fast.py",
         "tradeoff": "pages/fast.py", "temps": "pages/fast.py", "server_sweep": "pages/server.py",
         "server_timeline": "pages/server.py", "server_prefix": "pages/server.py", "trees": "pages/trees.py"}
DEFAULT_PAIR = next(c.label for c in CHOICES if c.target == "smollm2/target" and c.draft == "smollm2/draft")


def _wait_quietly(runner, timeout: float = 3) -> None:
    """AppTest's wait for a script run, polling every 0.2 s instead of every millisecond: its own loop
    kept a second core busy for the whole measurement (the machine read as busy, load 1.0 per
    core, so every shipped speedup fell back to CPU time) and took the GIL from the measuring thread
    a thousand times a second."""
    t0 = time.time()
    while time.time() - t0 < timeout:
        if runner.script_stopped():
            return
        time.sleep(0.2)
    runner.request_stop()
    runner.join()
    raise RuntimeError(f"AppTest script run timed out after {timeout}(s)")


local_script_runner.require_widgets_deltas = _wait_quietly


def ship(kind: str, pair_label: str, temperature: float | None = None, backend: str = "auto",
         k: int | None = None) -> float:
    """Run the page's measurement; `temperature` and `k` replace the sidebar's defaults (the run-in-
    context captions need results at the temperatures the pages run: Home races at T = 0; the
    comparisons at the k a machine's prices pick); `backend` the sidebar's target backend (a result
    for another than auto is keyed by it)."""
    values = {**DEFAULTS, **({} if temperature is None else {"temperature": temperature}),
              **({} if k is None else {"k": k})}
    at = AppTest.from_file(APP, default_timeout=3 * 3600)
    at.session_state["pair_label"] = pair_label
    at.session_state["backend"] = backend
    at.run()
    at.switch_page(PAGES[kind]).run()
    for slider in at.slider:       # AppTest's page switch leaves the sidebar's sliders at their
        if slider.key in values:    # minimum (a browser keeps 4, 0.7, ...): the user's defaults
            slider.set_value(values[slider.key])
    at.run()
    t0 = time.perf_counter()
    at.button(key=f"{kind}_run").click().run()
    if at.exception:
        raise SystemExit(f"{kind}: {at.exception[0].value}")
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", default=",".join(PAGES), help="comma-separated: " + ", ".join(PAGES))
    ap.add_argument("--pair", default=DEFAULT_PAIR, help="the sidebar's pair label")
    ap.add_argument("--temperature", type=float, default=None, help="instead of the sidebar's default")
    ap.add_argument("--backend", default="auto", help="the sidebar's target backend (auto, torch, onnx)")
    ap.add_argument("--k", type=int, default=None, help="instead of the sidebar's default draft length")
    args = ap.parse_args(argv)
    if not shipped.shipping():
        print(f"set {shipped.SHIP_ENV}=1: without it the pages keep results for this machine only")
        return 2
    for kind in args.pages.split(","):
        started = time.time()
        seconds = ship(kind, args.pair, args.temperature, args.backend, args.k)
        new = [p.name for p in shipped.SHIPPED_DIR.glob(f"{kind}-*.json") if p.stat().st_mtime >= started]
        print(f"{kind}: {seconds:.0f} s -> {', '.join(new) or 'nothing written'}", flush=True)
    return 0


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main())
