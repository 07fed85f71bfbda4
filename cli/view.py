"""``xprof view``: open a trace in the Perfetto UI, offline, from this machine.

The command only parses options; :mod:`.perfetto` serves the trace (``xprof run
--open`` serves through it too).
"""
from __future__ import annotations

import click

from xprof.mxcli.serve.perfetto import INSTALL_HINT, perfetto_ui_dir, serve


@click.command("view")
@click.argument("trace", default="profile.json", metavar="[TRACE]")
@click.option("--port", type=click.IntRange(0, 65535), default=0,
              help="Port on 127.0.0.1 (default: a free one).")
@click.option("--no-browser", is_flag=True, help="Print the URL, do not open a browser.")
@click.option("--once", is_flag=True, help="Exit once the UI has fetched the trace.")
@click.option("--idle-timeout", type=click.FloatRange(min=0.1), default=30.0,
              show_default=True, metavar="SECONDS",
              help="Close a connection that sends nothing for this long.")
def view(trace, port, no_browser, once, idle_timeout):
    """Open TRACE (default profile.json) in the Perfetto UI, served offline on 127.0.0.1.

    TRACE is a Chrome trace (xprof, MXNet 1.x, PyTorch; gzipped or not). Needs the
    view extra: pip install 'xprof-mx[view]'.

    \b
    Example:
      xprof view profile.json
      xprof view --no-browser --port 9001 trace.json.gz
    """
    if perfetto_ui_dir() is None:   # before anything else (serve() checks it too)
        from xprof.mxcli.errors import fail

        fail(INSTALL_HINT)
    serve(trace, port=port, open_browser=not no_browser, once=once, idle_timeout=idle_timeout)
