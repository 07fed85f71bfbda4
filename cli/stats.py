"""``xprof stats``: per-domain aggregate tables from a trace or a oneDNN verbose log."""
from __future__ import annotations

import sys

import click

# Same as xprof.runtime.profiler.stats.SORT_KEYS; spelled out so `--help` needs no import.
SORT_KEYS = ("total", "self", "avg", "min", "max", "count")


def load_stats(path):
    """Stats of a Chrome trace or oneDNN verbose log, told apart by content."""
    from .errors import fail
    from .progress import byte_progress
    from .readers.chrome import StatsCollector
    from .readers.onednn import looks_like_onednn, read_onednn
    from .readers.tracefile import TraceError, TraceReader, open_binary

    try:
        with open_binary(path) as f:
            head = f.read(1 << 16)
            first = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
            if first not in (b"{", b"[") and looks_like_onednn(head):
                f.seek(0)
                return read_onednn(f).stats
        if first not in (b"{", b"["):
            fail(f"{path}: neither a Chrome trace (JSON) nor a oneDNN verbose log "
                 f"(lines starting dnnl_verbose, or onednn_verbose,)")
        reader = TraceReader(path)
        collector = StatsCollector()
        with byte_progress(reader, "reading") as tick:
            for batch, _ in reader.batches():
                collector.feed(batch)
                tick()
    except TraceError as exc:
        fail(str(exc))
    except (OSError, EOFError) as exc:   # EOFError: a cut gzip stream
        fail(f"{path}: read error: {exc}")
    if reader.truncated:
        click.echo(f"xprof: warning: {path} is truncated; statistics cover the events before the cut",
                   err=True)
    return collector.finish()


def select(stats, obj, domains, top):
    """Keep the chosen domains and the first ``top`` rows of each (in ``obj``'s order)."""
    from .errors import fail
    from .readers import stats_module

    Stats = stats_module().Stats

    available = sorted(set(stats.time) | set(stats.memory) | set(stats.counter))
    for d in domains:
        if d not in available:
            fail(f"unknown domain {d!r}; available: {', '.join(map(repr, available)) or 'none'}")
    picked = Stats()
    picked.inner, picked.span, picked.calls = stats.inner, stats.span, stats.calls
    for section, table, dst in (("Time", stats.time, picked.time),
                                ("Memory", stats.memory, picked.memory),
                                ("Counter", stats.counter, picked.counter)):
        sec = obj.get(section)
        if sec is None:
            continue
        for domain in list(sec):
            if domains and domain not in domains:
                del sec[domain]
                continue
            names = list(sec[domain])[:top] if top else list(sec[domain])
            sec[domain] = {n: sec[domain][n] for n in names}
            dst[domain] = {n: table[domain][n] for n in names}
    return picked, obj


@click.command("stats")
@click.argument("profile", default="profile.json", metavar="[PROFILE]")
@click.option("--sort-by", type=click.Choice(SORT_KEYS), default="total", show_default=True,
              help="Row order within a domain (memory/counter rows: total = by Max).")
@click.option("--ascending", is_flag=True, help="Smallest first (default: largest first).")
@click.option("--domain", "domains", multiple=True, metavar="NAME",
              help="Only this domain (category); repeatable.")
@click.option("--top", type=click.IntRange(min=1), default=None, metavar="N",
              help="At most N rows per domain.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True, help="json: the profiler.dumps() schema; csv: one row per entry.")
def stats(profile, sort_by, ascending, domains, top, fmt):
    """Aggregate PROFILE (default profile.json) per domain and name.

    PROFILE is a Chrome trace (xprof, MXNet 1.x, PyTorch; gzipped or not) or
    a oneDNN verbose log (DNNL_VERBOSE / ONEDNN_VERBOSE output). Times are
    in ms, memory in kB.

    \b
    CSV columns: section,domain,name,count,total,min,max,avg,unit
    (total is empty for Memory and Counter rows).

    \b
    Example:
      xprof stats profile.json --sort-by avg --top 10
      xprof stats trace.json.gz --domain operator --format csv > ops.csv
      xprof stats dnnl_verbose.log
    """
    import gc

    from . import render
    from .readers import stats_module

    render_text, to_json_obj = stats_module().render_text, stats_module().to_json_obj

    gc.disable()  # see validate: no cycles among the decoded events
    st = load_stats(profile)
    picked, obj = select(st, to_json_obj(st, sort_by, ascending), set(domains), top)
    if fmt == "json":
        click.echo(render.stats_json(obj), nl=False)
    elif fmt == "csv":
        click.echo(render.stats_csv(obj), nl=False)
    elif sys.stdout.isatty():
        from rich.console import Console

        render.stats_rich(obj, Console())
    else:
        click.echo(render_text(picked, sort_by, ascending), nl=False)
