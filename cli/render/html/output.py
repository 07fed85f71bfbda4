"""Where the HTML report goes and how it is written: what ``xprof report`` and ``xprof
run --report`` both do (a module of its own so that neither command imports the other).
"""
from __future__ import annotations

import os


def default_output(trace):
    """``<trace without .json/.json.gz>.report.html``, next to the trace."""
    base = os.fspath(trace)
    for suffix in (".json.gz", ".json", ".gz"):
        if base.endswith(suffix):
            base = base[:-len(suffix)]
            break
    return base + ".report.html"


def write_report(trace, output, memory_csv=None):
    """Collect, render and write the report of ``trace`` to ``output``; return its size."""
    from xprof.traces.atomic import write_atomic

    from xprof.mxcli.errors import fail
    from xprof.mxcli.render.html.collect import collect
    from xprof.mxcli.render.html.render import render

    out_dir = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(out_dir):
        fail(f"-o {output!r}: folder {out_dir!r} does not exist")
    data = render(collect(trace, memory_csv)).encode("utf-8")
    try:
        write_atomic(output, data)
    except OSError as exc:
        fail(f"-o {output!r}: cannot write ({exc.strerror or exc})")
    return len(data)
