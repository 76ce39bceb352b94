"""The Korean catalog as the tests read it: compiled once a module (`korean`, a fixture), every text the app
marks for translation, and a call made as a Korean page makes it."""
import os
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "locale/ko/LC_MESSAGES/messages.po"


@pytest.fixture(scope="module")
def korean():
    """The Korean catalog, compiled as `make catalogs` does (so pytest alone works too)."""
    with open(PO, "rb") as fh:
        catalog = read_po(fh, locale="ko")
    made = PO.with_suffix(f".mo.{os.getpid()}")          # each test process its own file, then one replace: a
    with open(made, "wb") as fh:                         # reader never sees half a catalog
        write_mo(fh, catalog)
    os.replace(made, PO.with_suffix(".mo"))
    return catalog


def marked_texts() -> set[str]:
    """Every text marked with _() or N_() in app.py, pages/ and ui/ (babel.cfg's files)."""
    method_map = [("app.py", "python"), ("pages/**.py", "python"), ("ui/**.py", "python"),
                  ("specdec/**.py", "python")]
    found = extract_from_dir(str(ROOT), method_map=method_map, keywords={"_": None, "N_": None})
    return {message for _, _, message, _, _ in found}


def in_korean(korean, function, *args):
    """Call `function` with specdec's texts in Korean (as a page of a Korean session does)."""
    from specdec import wording
    from ui.i18n import catalog
    wording.use(catalog("ko").gettext)
    try:
        return function(*args)
    finally:
        del wording._local.translate
