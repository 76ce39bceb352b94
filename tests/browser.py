"""Start the app on a free port and drive it with Debian's headless Chromium (selenium)."""
from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            urllib.request.urlopen(url, timeout=2)
            return
        time.sleep(0.3)
    raise TimeoutError(f"{url} did not answer within {timeout}s")


@contextlib.contextmanager
def serve_app(env: dict | None = None):
    """The app as `make run` serves it, on a free port; yields its URL."""
    with serve_app_process(env) as (url, _):
        yield url


# as `make run` (see the Makefile): offline, two malloc arenas
SERVER_ENV = {"HF_HUB_OFFLINE": "1", "MALLOC_ARENA_MAX": "2", "PYTHONMALLOC": "malloc"}   # as `make run`


@contextlib.contextmanager
def serve_app_process(env: dict | None = None, options: tuple[str, ...] = ()):
    """Like serve_app, yielding (url, the server's Popen) for tests that watch the process;
    `options` are extra `streamlit run` flags."""
    port = free_port()
    cmd = [sys.executable, "-m", "ui.server.serve", "--no-machine-profile", "--server.port", str(port),
           "--server.headless", "true", "--server.fileWatcherType", "none",
           "--browser.gatherUsageStats", "false", *options]
    proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, **SERVER_ENV, **(env or {})},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_http(f"http://127.0.0.1:{port}/_stcore/health", timeout=180)   # loads the pair first
        yield f"http://127.0.0.1:{port}", proc
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def chromium():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1500,2200"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=opts, service=Service(shutil.which("chromedriver")))


def wait_idle(driver, timeout: float = 90) -> None:
    """Wait until Streamlit has finished running the script (stApp's script state)."""
    js = "return document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state')"
    deadline, calm = time.monotonic() + timeout, 0
    time.sleep(0.3)
    while time.monotonic() < deadline:
        calm = calm + 1 if driver.execute_script(js) == "notRunning" else 0
        if calm >= 3:
            return
        time.sleep(0.25)
    raise TimeoutError("the app kept running")
