"""How long a first visit waits: start the server as `make run` does, then time the first Home
render in headless Chromium (issue 28: < 10 s after the URL is printed).

    .venv/bin/python scripts/first_visit.py [--plain] [--repeats 3]

--plain starts `streamlit run app.py` without the preloading launcher (the old `make run`).
Prints, per start: seconds to the health endpoint (the URL) and from there to a Home page
whose script has finished with the default pair in its sidebar.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from browser import SERVER_ENV, chromium, free_port, wait_http, wait_idle  # noqa: E402


def one_start(plain: bool, delay: float = 0.0) -> tuple[float, float]:
    port = free_port()
    head = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py")] if plain else \
        [sys.executable, "-m", "ui.server.serve"]           # as `make run`
    cmd = head + ["--server.port", str(port), "--server.headless", "true", "--server.fileWatcherType",
                  "none", "--browser.gatherUsageStats", "false"]
    driver = chromium()                        # started before the server: not part of the wait
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, **SERVER_ENV},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_http(f"http://127.0.0.1:{port}/_stcore/health", timeout=120)
        time.sleep(delay)
        t1 = time.perf_counter()
        driver.get(f"http://127.0.0.1:{port}/")
        wait_idle(driver, timeout=300)
        while "smollm2/target" not in driver.page_source:     # the sidebar names the loaded pair
            time.sleep(0.1)
        return t1 - t0, time.perf_counter() - t1
    finally:
        driver.quit()
        proc.terminate()
        proc.wait(timeout=30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plain", action="store_true", help="streamlit run app.py, no preloading")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--delay", type=float, default=0.0, help="seconds between the URL and the visit")
    args = ap.parse_args()
    rows = [one_start(args.plain, args.delay) for _ in range(args.repeats)]
    for url, home in rows:
        print(f"URL after {url:5.1f} s, first Home render {home:5.1f} s after it")
    homes = [h for _, h in rows]
    print(f"first Home render after the URL: median {statistics.median(homes):.1f} s "
          f"(min {min(homes):.1f}, max {max(homes):.1f}); {'plain streamlit run' if args.plain else 'ui.server.serve'}")


if __name__ == "__main__":
    main()
