"""The short end-of-run report of ``xprof run``: where the trace is, how many events,
the top operators by total time. It reads the trace file back with the same reader and
aggregator as ``xprof stats``, so the two never disagree."""
import sys

import click


def _count_events(path):
    from .readers.tracefile import TraceReader

    reader = TraceReader(path)
    return sum(len(batch) for batch, _ in reader.batches())


def print_summary(path, show_stats, files=None, top=5):
    """Name every file the run wrote and what it holds, once each (``files``: path ->
    description; the run's profile ``path`` last), then the top operators of ``path``
    and, with ``show_stats``, its full tables (one set)."""
    from xprof.shared import names, stats as mod

    from .render import plural
    from .stats import load_stats

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
    rows = []
    for domain in names.OPERATOR_CATEGORIES:
        for name, (count, total, _mn, _mx) in st.time.get(domain, {}).items():
            rows.append((mod.to_ms(total), name, count))
    rows.sort(key=lambda r: (-r[0], r[1]))
    if rows:
        click.echo("xprof: top operators by total time:", err=True)
        width = max(len(r[1]) for r in rows[:top])
        for total, name, count in rows[:top]:
            click.echo(f"  {name:<{width}}  {total:10.3f} ms  {count:6d} call{'' if count == 1 else 's'}",
                       err=True)
    if show_stats:
        if sys.stderr.isatty():
            from rich.console import Console

            from .render import stats_rich
            stats_rich(mod.to_json_obj(st), Console(stderr=True))
        else:
            click.echo(mod.render_text(st), err=True, nl=False)
