"""``xprof stats --lines --format speedscope`` opened in speedscope's own viewer (the
build the npm package ``speedscope`` ships), served from 127.0.0.1: the profile loads
with no console error and draws its op's frames; a screenshot is kept."""
from __future__ import annotations

import functools
import http.server
import shutil
import subprocess
import sys
import tarfile
import threading
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.browser
JOB = REPO / "tests" / "jobs" / "custom_lines.py"


def _speedscope(where):
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed (apt-get install npm): the viewer comes from the "
                    "npm package speedscope")
    res = subprocess.run([npm, "pack", "speedscope@1", "--silent"], cwd=where,
                         capture_output=True, text=True, timeout=300)
    found = sorted(where.glob("speedscope-*.tgz"))
    if res.returncode != 0 or not found:
        pytest.skip(f"the npm registry did not give speedscope: {res.stderr.strip()[-200:]}")
    with tarfile.open(found[0]) as tar:
        tar.extractall(where, filter="data")
    return where / "package" / "dist" / "release"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_the_profile_opens_in_speedscopes_viewer(page, tmp_path, artifacts):
    viewer = _speedscope(tmp_path)
    subprocess.run([sys.executable, "-m", "xprof.mxcli", "run", "-q", "-o", "p.json", str(JOB),
                    "--steps", "8"], cwd=tmp_path, check=True, capture_output=True,
                   timeout=300)
    out = subprocess.run([sys.executable, "-m", "xprof.mxcli", "stats", "p.json", "--lines",
                          "--format", "speedscope"], cwd=tmp_path, check=True,
                         capture_output=True, text=True, timeout=300).stdout
    (viewer / "profile.json").write_text(out)
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(viewer)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        page.navigate(f"{base}/index.html#profileURL={base}/profile.json")
        page.wait_for("document.title.includes('Split') || document.title.includes('p.json')"
                      " || document.body.innerText.includes('Split')", timeout=60)
        assert page.errors() == []
        page.screenshot(artifacts / "speedscope-lines.png")
    finally:
        server.shutdown()
