"""The app as `make run` serves it, in real headless Chromium: no exception, no console error."""
import shutil
import urllib.request

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


def walk(driver, url: str, lang: str, pages: list[str]) -> None:
    """`pages` through the sidebar, then a round on Step through, in one language: no
    exception, no console error; the navigation, the sidebar and a round speak that language."""
    from ui.i18n import catalog
    say = catalog(lang).gettext
    driver.get(f"{url}/?lang={lang}")
    wait_idle(driver)
    for page in pages:
        open_page(driver, say(page))
        assert not problems(driver), (lang, page, problems(driver))
    open_page(driver, say("Step through"))
    click(driver, say("Next round"))
    wait_idle(driver)
    assert say("Round {n}").format(n=1) in driver.page_source, lang
    assert say("1 · Draft") in driver.page_source, lang
    assert driver.title == say("Speculative Decoding Lab"), (lang, driver.title)    # the browser tab too
    assert uploader_words(driver) == (say("Upload"), say("up to {size} MB per file • {types}").format(
        size=200, types="JSON") if lang != "en" else "200MB per file • JSON"), lang
    assert not problems(driver), lang


UPLOADER = """const z = document.querySelector('.st-key-upload [data-testid=stFileUploaderDropzone]');
const seen = (e, box) => getComputedStyle(e).display !== 'none' ? e.textContent
    : getComputedStyle(box, '::after').content.replace(/^"|"$/g, '');
return [seen(z.querySelector('button p'), z.querySelector('button [data-testid=stMarkdownContainer]')),
        seen(z.querySelector('[data-testid=stFileUploaderDropzoneInstructions] span'),
             z.querySelector('[data-testid=stFileUploaderDropzoneInstructions] > div'))];"""


def uploader_words(driver) -> tuple[str, str]:
    """Step through's replay uploader: its button's and size line's words as the page holds
    them: the element's own text where it is displayed, else what ui/upload.py's CSS writes in
    its place (a text merely shrunk to nothing still counts as there, in English)."""
    return tuple(driver.execute_script(UPLOADER))


def test_every_page_opens_and_a_round_runs_in_english_and_korean():
    """One server (as `make run` starts it) and one browser walk every page in English, then the
    navigation and a round in Korean (?lang=ko, rendered with the CJK font make test installs).
    Every page's Korean is rendered by tests/test_i18n.py and tests/test_density.py (AppTest)."""
    from ui.i18n import catalog
    assert catalog("ko").gettext("Next round") == "다음 라운드"       # the walk below really is Korean
    assert catalog("ko").gettext("1 · Draft") == "1 · 초안"
    with serve_app() as url:
        driver = chromium()
        try:
            walk(driver, url, "en", PAGES)
            walk(driver, url, "ko", PAGES[-1:])
        finally:
            driver.quit()
        with urllib.request.urlopen(f"{url}/healthz", timeout=10) as answer:   # ui/server/launch.py's route
            assert (answer.status, answer.read()) == (200, b"ok\n")
