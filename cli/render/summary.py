"""The short end-of-run report of ``xprof run``: where the trace is, how many events,
the top operators by self time (time not spent in slices nested inside them) and, when
the script called custom operators, where each op type's call latency went, per call,
with one sentence naming what dominates (the op its inputs waited for, when the trace's
dependency records tell it). It reads
the trace file back into a ``Trace`` once, as ``xprof stats`` does, so the two never
disagree: the event count, the statistics and the op a call's inputs waited for are
functions of it."""
import sys

import click


def _count_events(path):
    from xprof.traces.tracefile import TraceReader

    reader = TraceReader(path)
    return sum(len(batch) for batch, _ in reader.batches())


def _read_once(path):
    """``(events, stats, trace)`` of the run's trace, loaded once: the statistics are a
    function of the ``Trace`` (``analysis/trace_stats.py``)."""
    from xprof.mxcli.analysis.trace_stats import time_stats
    from xprof.mxcli.streaming.sources import read_trace

    tl = read_trace(path, links="pairs", records=True, keys=False)
    return tl.events, time_stats(tl)[0], tl


def call_lines(calls, top, writers=None):
    """Two lines per op type, for the first ``top`` of the section (all per call)::

        Waiter  20 calls  6.801 ms/call = inputs 0.1% + pool 0.0% + python 3.0% +
            blocked 96.9% + tail 0.0%; sub-operators 6.412 ms, setup 0.000 ms
          97% of its latency waits at sync points in its Python code (...)

    (the first on one line), the second :func:`callstats.headline`; ``writers``: the op
    each type's calls waited for (``cli/analysis/callinputs.py``), named when inputs
    dominate. Queued stands for inputs + pool in traces that do not split it."""
    from xprof.traces import callstats

    from xprof.mxcli.render import plural

    lines = []
    width = max(len(name) for name in list(calls)[:top])
    for name, row in list(calls.items())[:top]:
        head = f"{name:<{width}}  {plural(row['Count'], 'call'):>11}"
        avg = row["Latency"]["Avg"]
        if avg is None:   # no call spans (derived rows): only what the rows tell
            lines.append(f"{head}  latency unknown, python {row['Python']:.3f} ms/call, "
                         f"sub-operators {row['Sub-operators']:.3f} ms/call")
            continue
        split = ("Inputs", "Pool") if row.get("Inputs") is not None else ("Queued",)

        def pct(part):
            return f"{100.0 * row[part] / avg if avg else 0.0:.1f}%"

        parts = " + ".join(f"{part.lower()} {pct(part)}"
                           + (f" (backlog {pct('Backlog')} + producer {pct('Producer')})"
                              if part == "Inputs" and row.get("Backlog") is not None else "")
                           for part in (*split, "Python", "Blocked", "Tail"))
        beside = f"sub-operators {row['Sub-operators']:.3f} ms"
        if row.get("Setup") is not None:
            beside += f", setup {row['Setup']:.3f} ms"
        lines.append(f"{head}  {avg:.3f} ms/call = {parts}; {beside}")
        lines.append(" " * (width + 2) + callstats.headline(row, (writers or {}).get(name)))
    return lines


def _needs_writers(calls, top):
    """Does a headline of the first ``top`` op types say that inputs dominate (and so
    name the op writing them)?"""
    from xprof.traces import callstats

    return any((callstats.dominant(row) or ("",))[0] in ("Inputs", "Producer", "Backlog")
               for row in list(calls.values())[:top])


def print_summary(path, show_stats, files=None, top=5):
    """Name every file the run wrote and what it holds, once each (``files``: path ->
    description; the run's profile ``path`` last), then the top operators of ``path``
    and, with ``show_stats``, its full tables (one set)."""
    from xprof.traces import callstats, names, stats as mod

    from xprof.mxcli.render import plural
    from xprof.mxcli.analysis.flat import flat_rows

    for other, what in (files or {}).items():   # the script's own files first
        if other == path:
            continue
        try:
            count = f" ({plural(_count_events(other), 'event')})"
        except (OSError, ValueError, SystemExit, click.ClickException):
            count = ""
        click.echo(f"xprof: the script wrote {other}{count}: {what}", err=True)
    try:
        n_events, st, trace = _read_once(path)
    except (OSError, ValueError, SystemExit, click.ClickException) as e:
        click.echo(f"xprof: could not read the trace {path!r}: {e}", err=True)
        return
    what = (files or {}).get(path)
    click.echo(f"xprof: trace written to {path} ({plural(n_events, 'event')})"
               + (f": {what}" if what else ""), err=True)
    rows = flat_rows(st, "self", False, frozenset(names.OPERATOR_CATEGORIES))[:top]
    if rows:
        click.echo("xprof: top operators by self time:", err=True)
        width = max(len(r["Name"]) for r in rows)
        for r in rows:
            click.echo(f"  {r['Name']:<{width}}  {r['Self']:10.3f} ms self  {r['Total']:10.3f} ms "
                       f"total  {plural(r['Count'], 'call'):>11}", err=True)
    calls = mod.to_json_obj(st).get(callstats.SECTION, {})
    if calls:
        from xprof.mxcli.analysis.callinputs import input_writers

        writers = input_writers(trace) if trace is not None and _needs_writers(calls, top) \
            else {}
        click.echo("xprof: custom-operator calls, per call:", err=True)
        for line in call_lines(calls, top, writers):
            click.echo("  " + line, err=True)
    if show_stats:   # headed: a script that prints its own dumps() printed one set already
        click.echo(f"xprof: the tables of {path} (the whole run):", err=True)
        if sys.stderr.isatty():
            from rich.console import Console

            from xprof.mxcli.render import stats_rich
            stats_rich(mod.to_json_obj(st), Console(stderr=True))
        else:
            click.echo(mod.render_text(st), err=True, nl=False)
