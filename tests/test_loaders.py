"""The pair `make run` loads before it serves is the pair the pages find (ui/loaders.py)."""
from dataclasses import replace

import specdec
from specdec.models.backend import BACKEND_AUTO
from specdec.models.precision import PRECISION_AUTO
from ui import catalog, loaders


def test_the_pair_preloaded_is_the_pair_a_page_loads(monkeypatch):
    """preload() fills the entry a page's load() reads (Streamlit keys an entry by the arguments as
    passed: a preload that left one to its default had loaded a pair no page found)."""
    made = []
    monkeypatch.setattr(specdec, "load_pair", lambda *a, **k: made.append(a) or object())
    first = replace(catalog.CHOICES[0], target="test/preloaded-target", draft="test/preloaded-draft")
    monkeypatch.setattr(catalog, "CHOICES", (first, *catalog.CHOICES[1:]))
    try:
        loaders.preload()
        assert loaders.load(first.target, first.draft) is loaders.cached(first.target, first.draft)
        assert len(made) == 1
    finally:
        loaders._load.clear(first.target, first.draft, PRECISION_AUTO, BACKEND_AUTO)
