"""Take screenshots of the app's pages in headless Chromium (for review and the README).

    .venv/bin/python scripts/screenshot.py OUTDIR [page ...]    # e.g. home step:next exact:Repeat the first round
"""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from selenium.webdriver.common.by import By  # noqa: E402

from browser import chromium, serve_app, wait_idle  # noqa: E402


def click(driver, text: str) -> None:
    for b in driver.find_elements(By.TAG_NAME, "button"):
        if text in b.text:
            b.click()
            return
    raise LookupError(f"no button {text!r}")


def main(out: str, pages: list[str]) -> None:
    Path(out).mkdir(parents=True, exist_ok=True)
    with serve_app() as url:
        driver = chromium()
        try:
            for page in pages:
                path, _, action = page.partition(":")
                driver.get(f"{url}/{'' if path == 'home' else path}")
                wait_idle(driver)
                for act in filter(None, action.split("+")):
                    click(driver, {"next": "Next round", "end": "Run to end"}.get(act, act))
                    wait_idle(driver, timeout=900)          # measurements take minutes
                time.sleep(1.5)
                h = driver.execute_script("return document.querySelector('[data-testid=stMain]')?.scrollHeight || 2000")
                driver.set_window_size(1500, min(int(h) + 200, 9000))
                time.sleep(0.8)
                driver.save_screenshot(f"{out}/{page.replace(':', '_').replace('+', '_')}.png")
                print("saved", page)
        finally:
            driver.quit()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:] or ["home", "step_through", "step_through:next"])
