"""A soak test in real browsers: several learners at once doing what crashed the server before.

    .venv/bin/python scripts/soak.py --sessions 3 --tokens-max      # by hand; the suite: tests/test_soak.py

Each session opens Step through in headless Chromium with its own prompt and language, pulls
the k slider to its end (12), then, round after round of the test: Reset and four Next-round
clicks as fast as the browser sends them (issue 48: this fed a pass zero tokens and corrupted the
server's heap); "Run to end" and a page switch while it runs, and back (the run must say where
it stopped or have finished); a switch to the other language and back. It ends with Reset and
Run to end and reads the emitted ids from the token strip. Checks: no exception box and no
traceback on any page; each session's strip shows its own prompt and its ids equal
`specdec.generate` for its prompt and settings; the server process alive; the health endpoint
answering within 2 s throughout; the server's memory after the sessions within a bound of its
level after the first load. Bounded: a fixed script per session, loopback only, a deadline.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "scripts")]

from load_test import SESSION_TTL_S, Health, _browser, _strip_ids, rss_mb, settle_rss  # noqa: E402

from browser import serve_app_process, wait_idle  # noqa: E402

MEMORY_SLACK = 0.3     # after the sessions close: within 1.3x the server once its first page was drawn
LANGS = ("en", "ko")
ARRIVAL_S = 2.0


def say(lang: str):
    from ui.i18n import catalog
    return catalog(lang).gettext


def _buttons(driver, text: str) -> list:
    from selenium.webdriver.common.by import By
    return [b for b in driver.find_elements(By.TAG_NAME, "button") if text in b.text]


def _click(driver, text: str) -> None:
    """Click the first button with `text` (found again: a rerun may have replaced the element)."""
    from selenium.common.exceptions import StaleElementReferenceException
    for _ in range(20):
        try:
            _buttons(driver, text)[0].click()
            return
        except (StaleElementReferenceException, IndexError):
            time.sleep(0.1)
    raise RuntimeError(f"no button {text!r}")


def problems(driver) -> list[str]:
    from selenium.webdriver.common.by import By
    boxes = [e.text[:300] for e in driver.find_elements(By.CSS_SELECTOR, '[data-testid="stException"]')]
    text = driver.find_element(By.TAG_NAME, "body").text
    return boxes + (["a traceback on the page"] if "Traceback (most recent call last)" in text else [])


def _open(driver, title: str) -> None:
    from selenium.webdriver.common.by import By
    links = driver.find_elements(By.CSS_SELECTOR, '[data-testid="stSidebarNavLink"]')
    next(a for a in links if a.text.strip().splitlines()[-1] == title).click()


def _slider_to_end(driver, label: str) -> None:
    """The sidebar slider labelled `label` to its largest value (the End key on its thumb)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    box = next(s for s in driver.find_elements(By.CSS_SELECTOR, '[data-testid="stSlider"]') if label in s.text)
    driver.execute_script("arguments[0].focus()", box.find_element(By.CSS_SELECTOR, 'input[type="range"]'))
    ActionChains(driver).send_keys(Keys.END).perform()
    wait_idle(driver)


def _type_prompt(driver, prompt: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    box = driver.find_element(By.CSS_SELECTOR, "textarea")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(prompt)
    box.send_keys(Keys.CONTROL, Keys.ENTER)
    wait_idle(driver)


def rapid_clicks(driver, lang: str) -> list[str]:
    """Reset, then Next round four times as fast as the browser clicks (the issue's crash)."""
    s = say(lang)
    _click(driver, s("Reset"))
    for _ in range(4):
        _click(driver, s("Next round"))
    wait_idle(driver, timeout=300)
    return problems(driver)


def switch_mid_run(driver, lang: str) -> list[str]:
    """Run to end, leave for Home after a moment, come back: finished, or it says where it stopped."""
    from ui.session import PAUSED
    s = say(lang)
    _click(driver, s("Reset"))
    wait_idle(driver)
    _click(driver, s("Run to end"))
    time.sleep(1.0)
    _open(driver, s("Home"))
    wait_idle(driver, timeout=300)
    found = problems(driver)
    _open(driver, s("Step through"))
    wait_idle(driver, timeout=300)
    source = driver.page_source
    finished = s("Run finished: {reason}.").split("{")[0] in source
    paused = s(PAUSED).split("{")[0] in source            # "Stopped after round n …": it says where
    return found + problems(driver) + ([] if finished or paused else
                                        ["after a page switch the run neither finished nor said where it stopped"])


def switch_language(driver, lang: str) -> tuple[list[str], str]:
    """To the other language and back through the sidebar's switch; the page speaks each."""
    from selenium.webdriver.common.by import By

    from ui.i18n import LANGS
    found = []
    for code in [c for c in LANGS if c != lang] + [lang]:
        label = next(el for el in driver.find_elements(By.CSS_SELECTOR, '[data-testid="stSidebar"] label')
                     if el.text.strip() == LANGS[code])
        label.click()
        wait_idle(driver, timeout=300)
        if say(code)("Next round") not in driver.page_source:
            found.append(f"the page is not in {code} after the switch")
        found += problems(driver)
    return found, lang


def session(url: str, index: int, prompt: str, repeats: int, tokens_max: bool, opened=None) -> dict:
    from selenium.webdriver.support.ui import WebDriverWait
    lang = LANGS[index % len(LANGS)]
    time.sleep(ARRIVAL_S * index)
    report = {"prompt": prompt, "lang": lang, "problems": [], "ids": None}
    driver, t0 = _browser(), time.perf_counter()
    try:
        driver.get(f"{url}/step_through?lang={lang}")
        time.sleep(1.0)
        wait_idle(driver, timeout=300)
        _type_prompt(driver, prompt)
        _slider_to_end(driver, say(lang)("k (draft length)"))
        if tokens_max:
            _slider_to_end(driver, say(lang)("Max new tokens"))
        report["phases"] = phases = {"open": round(time.perf_counter() - t0, 1)}
        if opened is not None:
            opened.set()                # the server has drawn a page: its memory's baseline
        for _ in range(repeats):
            for name, step in (("rapid clicks", rapid_clicks), ("page switch", switch_mid_run),
                               ("language", lambda d, lang: switch_language(d, lang)[0])):
                t1 = time.perf_counter()
                report["problems"] += step(driver, lang)
                phases[name] = round(phases.get(name, 0) + time.perf_counter() - t1, 1)
        t1 = time.perf_counter()
        _click(driver, say(lang)("Reset"))
        wait_idle(driver)
        _click(driver, say(lang)("Run to end"))
        finished = say(lang)("Run finished: {reason}.").split("{")[0]
        WebDriverWait(driver, 600).until(lambda d: finished in d.page_source)
        wait_idle(driver, timeout=600)
        report["ids"] = _strip_ids(driver)
        phases["whole run"] = round(time.perf_counter() - t1, 1)
        report["server_prompt"] = driver.execute_script(
            "return [...document.querySelectorAll('.strip span.prompt')].map(s => s.textContent)"
            ".join('').replaceAll('↵', '')")
        report["problems"] += problems(driver)
    except Exception as err:            # a browser that died or timed out: part of the report
        report["problems"].append(f"{type(err).__name__}: {str(err)[:200]}")
        with contextlib.suppress(Exception):
            driver.save_screenshot(f"/tmp/soak-session-{index}.png")
    finally:
        driver.quit()
        if opened is not None:
            opened.set()
    return report


def expected(prompts: list[str], tokens: int) -> dict[str, list[int]]:
    """What specdec.generate gives for each prompt with the app's defaults, k = 12."""
    import torch

    import specdec
    from specdec.chat import has_template, user_turn
    from ui.catalog import CHOICES
    from ui.state import DEFAULTS, SIDEBAR
    torch.set_num_threads(1)
    pair = specdec.load_pair(CHOICES[0].target, CHOICES[0].draft)
    settings = specdec.Settings(**{**{k: DEFAULTS[k] for k in SIDEBAR}, "k": 12, "max_new_tokens": tokens})
    chat = DEFAULTS["prompt_mode"] == "chat" and has_template(pair.tokenizer)
    return {p: list(specdec.generate(pair, user_turn(p) if chat else p, settings).token_ids) for p in prompts}


def run_soak(sessions: int, repeats: int = 1, tokens_max: bool = False) -> dict:
    prompts = [f"def soak_{i}(values):" for i in range(sessions)]
    with ThreadPoolExecutor(max_workers=1) as aside:
        want = aside.submit(expected, prompts, 256 if tokens_max else 48)   # meanwhile, in this process
        with serve_app_process(options=("--server.disconnectedSessionTTL", str(SESSION_TTL_S))) as (url, proc):
            health, opened = Health(url), threading.Event()
            health.start()
            t0 = time.perf_counter()
            with ThreadPoolExecutor(max_workers=sessions) as pool:
                runs = [pool.submit(session, url, i, prompts[i], repeats, tokens_max, opened if i == 0 else None)
                        for i in range(sessions)]
                opened.wait(600)
                loaded = rss_mb(proc.pid)
                results = [r.result() for r in runs]
            seconds = time.perf_counter() - t0
            health.stop = True
            health.join()
            alive = proc.poll() is None
            after = settle_rss(proc.pid, loaded * (1 + MEMORY_SLACK), SESSION_TTL_S + 40) if alive else None
        want = want.result()
    return {"sessions": sessions, "repeats": repeats, "seconds": round(seconds, 1), "server_alive": alive,
            "problems": [f"{r['lang']}: {p}" for r in results for p in r["problems"]],
            "own_prompt": sum(r["prompt"] in (r.get("server_prompt") or "") for r in results),
            "identical": sum(r["ids"] == want[r["prompt"]] for r in results),
            "health_worst_s": round(health.worst, 3), "health_failures": health.failures,
            "rss_first_page_mb": round(loaded, 1), "rss_after_close_mb": after and round(after, 1),
            "memory_ratio": after and round(after / loaded, 3),
            "phases_s": [r.get("phases") for r in results],
            "differ": [{"prompt": r["prompt"], "server_prompt": r.get("server_prompt"), "got": (r["ids"] or [])[:8],
                        "want": want[r["prompt"]][:8]} for r in results if r["ids"] != want[r["prompt"]]]}


def passed(report: dict) -> bool:
    n = report["sessions"]
    return (report["server_alive"] and not report["problems"] and report["identical"] == n
            and report["own_prompt"] == n and report["health_worst_s"] < 2.0 and not report["health_failures"]
            and report["memory_ratio"] is not None and report["memory_ratio"] <= 1 + MEMORY_SLACK)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=1, help="times each session repeats the script")
    ap.add_argument("--tokens-max", action="store_true", help="also pull Max new tokens to 256")
    args = ap.parse_args()
    report = run_soak(args.sessions, args.repeats, args.tokens_max)
    print(json.dumps(report, indent=2, ensure_ascii=False))
    sys.exit(0 if passed(report) else 1)


if __name__ == "__main__":
    main()
