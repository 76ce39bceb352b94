import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from catalogs import korean  # noqa: E402,F401  (a fixture: the Korean catalog, compiled)

from apptest import tiny_dirs  # noqa: E402,F401  (a fixture for the page tests)
from tiny import tiny_pair  # noqa: E402


@pytest.fixture(scope="session")
def pair():
    return tiny_pair()


@pytest.fixture(scope="session")
def pair_no_eos():
    return tiny_pair(eos=False)

import torch  # noqa: E402

torch.set_num_threads(1)   # tiny models: one thread is fastest and avoids contention


EMBEDDED_READY = (Path(__file__).resolve().parent.parent / "assets/models/README.md").exists()
needs_embedded = pytest.mark.skipif(not EMBEDDED_READY,
                                    reason="the embedded family has not landed in assets/models yet")


# The longest tests (a minute or more each) start first: with two workers stealing each other's
# queued tests, none of them can start last and leave the other worker idle while it runs alone.
SLOW_FIRST = ("test_soak.py", "test_browser.py", "test_readonly_build.py", "test_smollm2.py")


@pytest.fixture
def places(tmp_path, monkeypatch):
    """A result store of its own: shipped and kept results in tmp_path, and a draft's weights
    (fam/draft) for their digest."""
    from ui.lessons import result_cache, shipped
    weights = tmp_path / "models" / "fam" / "draft"
    weights.mkdir(parents=True)
    (weights / "model.safetensors").write_bytes(b"weights")
    for module in (shipped, result_cache):
        monkeypatch.setattr(module, "ASSETS", tmp_path / "models")
    monkeypatch.setattr(shipped, "SHIPPED_DIR", tmp_path / "shipped")
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path / "local")


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.path.name not in SLOW_FIRST)      # stable: the rest keep their order
