"""The soak test (scripts/soak.py): learners at once on one server doing what crashed it (issue 48).

Two headless Chromium sessions, one in English and one in Korean, on the server `make run` starts:
k pulled to 12, Reset and four Next-round clicks as fast as the browser sends them, Run to end with
a page switch while it runs, a language switch and back, then a whole run. It also is the suite's
load test: each session's text must equal `specdec.generate` for its own prompt.
"""
import shutil
import sys
from pathlib import Path

import pytest
from conftest import needs_embedded

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

pytestmark = [needs_embedded, pytest.mark.skipif(
    not (shutil.which("chromium") and shutil.which("chromedriver")),
    reason="needs Debian's chromium and chromium-driver (make test installs them as root)")]


def test_two_sessions_click_reset_switch_pages_and_languages_and_the_server_lives():
    from soak import passed, run_soak
    report = run_soak(2)
    assert report["server_alive"], report
    assert not report["problems"], report          # no exception box, no traceback, nothing stuck
    assert report["own_prompt"] == report["identical"] == 2, report
    assert passed(report), report
