"""``xprof report``: one self-contained HTML page of a trace's summaries.

The command only parses options; ``render.html.collect`` reads the trace (the same
statistics ``xprof stats --format json`` prints and the document of ``xprof explain
--format json``), ``render.html.render`` turns them into the page, ``render.html.output``
writes it atomically (``xprof run --report`` writes through it too).
"""
from __future__ import annotations

import click

from xprof.mxcli.render.html.output import default_output, write_report


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

    from xprof.mxcli.errors import refuse_overwrite

    gc.disable()  # as in xprof stats: no cycles among the decoded events
    output = output or default_output(trace)
    refuse_overwrite("-o", output, [trace] + ([memory_csv] if memory_csv else []))
    size = write_report(trace, output, memory_csv)
    click.echo(f"xprof: report written to {output} ({size / 1024:,.0f} kB)", err=True)
