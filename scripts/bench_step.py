"""Server-side latency of one Next-round click on the step-through page (AppTest).

    .venv/bin/python scripts/bench_step.py [--clicks 20] [--k 4] [--temperature 0.7]
Prints the median and p90 of the server-side time a click costs: from the button's
callback (the engine round) to the end of the page's script run (every figure and table),
with the embedded pair; and the same with AppTest's own overhead. A benchmark, not a test.
"""
import argparse
import statistics
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clicks", type=int, default=20)
    ap.add_argument("--k", type=int, default=4)
    ap.add_argument("--temperature", type=float, default=0.7)
    args = ap.parse_args()
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["k"], at.session_state["temperature"] = args.k, args.temperature
    at.session_state["max_new_tokens"] = 256
    at.run()
    at.switch_page("pages/step_through.py").run()
    at.button(key="btn_next").click().run()          # warm-up: loads the models
    server, total = [], []
    for _ in range(args.clicks):
        t0 = time.perf_counter()
        at.button(key="btn_next").click().run()
        total.append((time.perf_counter() - t0) * 1e3)
        assert not at.exception, at.exception
        server.append(at.session_state["_last_click_ms"])   # click callback -> end of render
    for name, times in (("server-side (round + render)", server), ("with AppTest overhead", total)):
        times.sort()
        print(f"Next-round click, k={args.k}, T={args.temperature}, {name}: median "
              f"{statistics.median(times):.0f} ms, p90 {times[int(0.9 * len(times)) - 1]:.0f} ms "
              f"over {len(times)} clicks")


if __name__ == "__main__":
    main()
