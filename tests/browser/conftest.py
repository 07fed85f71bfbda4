"""Fixtures of the browser tests: one headless Chromium per session, traces of every
sample script.

A developer without Chromium sees these tests skipped, with the reason; CI sets
``XPROF_REQUIRE_BROWSER=1`` (see ``.ci/run``), which turns a missing Chromium into a
failure, so CI always runs them.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from chromium import Browser, find_chromium

REPO = Path(__file__).resolve().parents[2]
SAMPLE_SCRIPTS = sorted((REPO / "sample_scripts").glob("*.py"))
ARTIFACTS = Path(os.environ.get("XPROF_TEST_ARTIFACTS", REPO / "test-artifacts"))


def _missing(what):
    reason = (f"{what}; the browser tests need Debian's chromium (apt-get install chromium, "
              f"or XPROF_CHROMIUM=/path/to/chrome) and the test extra; CI runs them")
    if os.environ.get("XPROF_REQUIRE_BROWSER") == "1":
        pytest.fail(f"XPROF_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One Chromium per test module: closed when its module's tests are done, so no
    renderer of a closed page keeps a core busy through the rest of the suite."""
    exe = find_chromium()
    if exe is None:
        _missing("no Chromium found on PATH")
    try:
        import websocket  # noqa: F401
    except ImportError:
        _missing("websocket-client is not installed")
    with Browser(exe, tmp_path_factory.mktemp("chromium-profile")) as b:
        yield b


@pytest.fixture
def page(browser):
    p = browser.page()
    yield p
    p.call("Page.navigate", url="about:blank")
    p.close()


@pytest.fixture(scope="session")
def artifacts():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def run_script(script, folder, *extra):
    """``xprof run`` a sample script in ``folder`` (a fresh interpreter); return its
    completed process. Every trace it leaves is a ``*.json`` file there."""
    folder.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    proc = subprocess.run([sys.executable, "-m", "xprof.mxcli", "run", *extra, str(script)],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc
