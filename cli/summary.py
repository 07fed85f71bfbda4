"""The short end-of-run report of ``xprof run``: where the trace is, how many events,
the top operators by self time (time not spent in slices nested inside them) and, when
the script called custom operators, where each op type's call latency went. It reads
the trace file back with the same reader and aggregator as ``xprof stats``, so the two
never disagree."""
import sys

import click


def _count_events(path):
    from .readers.tracefile import TraceReader

    reader = TraceReader(path)
    return sum(len(batch) for batch, _ in reader.batches())


def call_lines(calls, top):
    """``Waiter  20 calls  6.801 ms = queued 0.1% + python 3.0% + blocked 96.9% + tail 0.0%,
    sub-operators 6.412 ms`` for the first ``top`` op types of the section."""
    from .render import plural

    lines = []
    width = max(len(name) for name in list(calls)[:top])
    for name, row in list(calls.items())[:top]:
        head = f"{name:<{width}}  {plural(row['Count'], 'call'):>11}"
        avg = row["Latency"]["Avg"]
        if avg is None:   # no call spans (derived rows): only what the rows tell
            lines.append(f"{head}  latency unknown, python {row['Python']:.3f} ms, "
                         f"sub-operators {row['Sub-operators']:.3f} ms")
            continue
        parts = " + ".join(f"{part.lower()} {100.0 * row[part] / avg if avg else 0.0:.1f}%"
                           for part in ("Queued", "Python", "Blocked", "Tail"))
        lines.append(f"{head}  {avg:.3f} ms = {parts}, sub-operators {row['Sub-operators']:.3f} ms")
    return lines


def print_summary(path, show_stats, files=None, top=5):
    """Name every file the run wrote and what it holds, once each (``files``: path ->
    description; the run's profile ``path`` last), then the top operators of ``path``
    and, with ``show_stats``, its full tables (one set)."""
    from xprof.shared import callstats, names, stats as mod

    from .render import plural
    from .stats import load_stats
    from .stats_pipeline.flat import flat_rows

    for other, what in (files or {}).items():   # the script's own files first
        if other == path:
            continue
        try:
            count = f" ({plural(_count_events(other), 'event')})"
        except (OSError, ValueError, SystemExit, click.ClickException):
            count = ""
        click.echo(f"xprof: the script wrote {other}{count}: {what}", err=True)
    try:
        n_events = _count_events(path)
        st = load_stats(path)
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
        click.echo("xprof: custom-operator calls, average per call:", err=True)
        for line in call_lines(calls, top):
            click.echo("  " + line, err=True)
    if show_stats:   # headed: a script that prints its own dumps() printed one set already
        click.echo(f"xprof: the tables of {path} (the whole run):", err=True)
        if sys.stderr.isatty():
            from rich.console import Console

            from .render import stats_rich
            stats_rich(mod.to_json_obj(st), Console(stderr=True))
        else:
            click.echo(mod.render_text(st), err=True, nl=False)
