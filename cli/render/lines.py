"""``xprof stats --lines [OP_TYPE]``: the ``Python Lines`` section alone, in each format.

The trace is read as for every ``xprof stats`` (its ``Trace`` holds the Python-line
samples, ``Trace.python_lines``); the shares need the ``Custom Operator Calls``
Python time, so the report's call statistics come along. Only the lines are printed:
``--lines`` asks "which line?", the other tables answer other questions.
"""
from __future__ import annotations

import csv as _csv
import io
import os

import click
import orjson

from xprof.mxcli.errors import fail
from xprof.mxcli.analysis import pylines
from xprof.mxcli.streaming.sources import read_report

SAMPLING = "Python Lines Sampling"


def document(report, only):
    """``{"Python Lines": {op: rows}, "Python Lines Sampling": {op: summary}, "Unit"}``;
    exit 2 when ``only`` names an op type without samples."""
    collector = report.lines
    calls = getattr(report.stats, "calls", None)
    rows, summary = pylines.section(collector, calls, only or None)
    if only and not rows:
        have = sorted(collector.tables) if collector is not None else []
        fail(f"--lines {only!r}: no Python-line samples of that op type; sampled: "
             + (", ".join(map(repr, have)) or "none"))
    info = (report.top.get("otherData") or {}).get("python_lines") \
        if isinstance(report.top.get("otherData"), dict) else None
    return {pylines.SECTION: rows, SAMPLING: summary,
            "Sampler": info if isinstance(info, dict) else None, "Unit": "ms"}


def _shown(path):
    if not path:
        return path
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    return path if rel.startswith("..") else rel


def render(doc, fmt, out):
    rows, summary = doc[pylines.SECTION], doc[SAMPLING]
    if fmt == "json":
        click.echo(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode(), file=out)
        return
    if fmt == "csv":
        buf = io.StringIO()
        w = _csv.writer(buf, lineterminator="\n")
        w.writerow(("op", "function", "file", "line", "self_ms", "percent", "error_points",
                    "samples"))
        for op, op_rows in rows.items():
            for r in op_rows:
                w.writerow((op, r["function"], r["file"], "" if r["line"] is None else r["line"],
                            r["self_ms"], r["%"], r["±%"], r["samples"]))
        click.echo(buf.getvalue(), file=out, nl=False)
        return
    if not rows:
        click.echo("No Python-line samples in this trace (xprof run samples custom "
                   "operators' Python every XPROF_PROFILER_SAMPLE_INTERVAL_MS, default 1 ms; "
                   "0 turns it off).", file=out)
        return
    sampler = doc.get("Sampler") or {}
    interval = sampler.get("achieved_interval_ms") or sampler.get("interval_ms")
    shown = {op: [dict(r, file=_shown(r["file"])) for r in op_rows]
             for op, op_rows in rows.items()}
    click.echo(f"{pylines.SECTION} (self time by line of each custom operator's Python; "
               f"% of its Python time)\n", file=out)
    click.echo(pylines.text(shown, summary, interval), file=out, nl=False)


STACK_FORMATS = ("collapsed", "speedscope")


def run(paths, options, fmt, out):
    if fmt in STACK_FORMATS:
        return run_stacks(paths, options, fmt, out)
    report = read_report(paths, options)
    render(document(report, options.lines), fmt, out)


def run_stacks(paths, options, fmt, out):
    """``--lines --format collapsed|speedscope``: the sampled stacks, rooted at each
    custom op and its call (``analysis/pystacks.py``)."""
    from xprof.mxcli.analysis.pystacks import collapsed, speedscope, stacks_of

    report = read_report(paths, options)
    stacks = stacks_of(report.lines, options.lines or None)
    if options.lines and not stacks:
        fail(f"--lines {options.lines!r}: no Python-line samples of that op type")
    if fmt == "collapsed":
        click.echo(collapsed(stacks), file=out, nl=False)
    else:
        name = os.path.basename(str(paths[0] if isinstance(paths, (list, tuple)) else paths))
        click.echo(orjson.dumps(speedscope(stacks, name)).decode(), file=out)
