"""``xprof report``: one self-contained HTML page of a trace's summaries.

The command only parses options; ``htmlreport.collect`` reads the trace (the same
statistics ``xprof stats --format json`` prints and the document of ``xprof explain
--format json``), ``htmlreport.render`` turns them into the page, written atomically.
"""
from __future__ import annotations

import os

import click


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

    from .errors import fail
    from .htmlreport.collect import collect
    from .htmlreport.render import render

    out_dir = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(out_dir):
        fail(f"-o {output!r}: folder {out_dir!r} does not exist")
    data = render(collect(trace, memory_csv)).encode("utf-8")
    try:
        write_atomic(output, data)
    except OSError as exc:
        fail(f"-o {output!r}: cannot write ({exc.strerror or exc})")
    return len(data)


@click.command("report")
@click.argument("trace", default="profile.json", metavar="[TRACE]")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="The HTML file to write (default: <trace>.report.html next to it).")
@click.option("--memory-csv", type=click.Path(dir_okay=False), default=None,
              help="The memory profile CSV (default: <prefix>-pid_<pid>.csv found next "
                   "to the trace).")
def report(trace, output, memory_csv):
    """Write a self-contained HTML report of TRACE (default profile.json).

    Overview, top operators by self time, custom-operator call breakdowns, the
    critical path and per-thread busy/idle time, memory over time and the
    largest allocations; sections the trace has no data for say so. The page
    needs no server and makes no request: open it from disk.

    \b
    Example:
      xprof report profile.json -o report.html
      xprof report mxnet_trace.json
    """
    import gc

    from .errors import refuse_overwrite

    gc.disable()  # as in xprof stats: no cycles among the decoded events
    output = output or default_output(trace)
    refuse_overwrite("-o", output, [trace] + ([memory_csv] if memory_csv else []))
    size = write_report(trace, output, memory_csv)
    click.echo(f"xprof: report written to {output} ({size / 1024:,.0f} kB)", err=True)
