"""The app as `make run` serves it, in real headless Chromium: no exception, no console error."""
import shutil

import pytest
from conftest import needs_embedded

from ui import navigation

from browser import chromium, serve_app, wait_idle

pytestmark = [needs_embedded, pytest.mark.skipif(
    not (shutil.which("chromium") and shutil.which("chromedriver")),
    reason="needs Debian's chromium and chromium-driver (make test installs them as root)")]

PAGES = [p.title for p in navigation.PAGES]


def problems(driver) -> list[str]:
    from selenium.webdriver.common.by import By
    found = [e.text[:300] for e in driver.find_elements(By.CSS_SELECTOR, '[data-testid="stException"]')]
    found += [f"console: {entry['message'][:300]}" for entry in driver.get_log("browser")
              if entry["level"] == "SEVERE"]
    return found


def open_page(driver, title: str) -> None:
    """Navigate as a user does, through the sidebar (deep links make Streamlit probe
    /<page>/_stcore/* first, which logs harmless 404s)."""
    from selenium.webdriver.common.by import By
    links = driver.find_elements(By.CSS_SELECTOR, '[data-testid="stSidebarNavLink"]')
    next(a for a in links if a.text.strip().splitlines()[-1] == title).click()
    wait_idle(driver)


def click(driver, text: str) -> None:
    from selenium.webdriver.common.by import By
    button = next(b for b in driver.find_elements(By.TAG_NAME, "button") if text in b.text)
    button.click()


def test_every_page_opens_and_a_round_runs():
    with serve_app() as url:
        driver = chromium()
        try:
            driver.get(url)
            wait_idle(driver)
            for page in PAGES:
                open_page(driver, page)
                assert not problems(driver), (page, problems(driver))
            open_page(driver, "Step through")
            click(driver, "Next round")
            wait_idle(driver)
            assert "Round 1" in driver.page_source
            assert "1 · Draft" in driver.page_source
            assert not problems(driver)
        finally:
            driver.quit()


def test_every_page_opens_in_korean():
    """?lang=ko: every page through the sidebar in Korean, no exception, no console error; the
    navigation, the sidebar and a round speak Korean (rendered with the CJK font make test installs)."""
    from ui.i18n import catalog
    korean = catalog("ko").gettext
    with serve_app() as url:
        driver = chromium()
        try:
            driver.get(f"{url}/?lang=ko")
            wait_idle(driver)
            for page in PAGES:
                open_page(driver, korean(page))
                assert not problems(driver), (page, problems(driver))
            open_page(driver, korean("Step through"))
            click(driver, "다음 라운드")
            wait_idle(driver)
            assert "라운드 1" in driver.page_source and "1 · 초안" in driver.page_source
            assert not problems(driver)
        finally:
            driver.quit()
