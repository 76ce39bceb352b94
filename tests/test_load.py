"""A small version of scripts/load_test.py: 2 real browser sessions at once on one server."""
import shutil
import sys
from pathlib import Path

import pytest
from conftest import needs_embedded

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

pytestmark = [needs_embedded, pytest.mark.skipif(
    not (shutil.which("chromium") and shutil.which("chromedriver")),
    reason="needs Debian's chromium and chromium-driver (make test installs them as root)")]


def test_two_concurrent_sessions_each_get_their_own_exact_text():
    from load_test import passed, run_load
    report = run_load(2)
    assert passed(report), report
