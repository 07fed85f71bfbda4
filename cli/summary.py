"""The short end-of-run report of ``xprof run``: where the trace is, how many events,
the top operators by total time (read back from the trace file, like ``xprof stats``)."""
import click
import orjson

from xprof.runtime.profiler import stats as _stats


def _load_stats(path):
    with open(path, "rb") as f:
        doc = orjson.loads(f.read())
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    st = _stats.Stats()
    for ev in events:
        ph = ev.get("ph")
        if ph == "X":
            st.add_time(ev.get("cat", ""), ev.get("name", ""), float(ev.get("dur", 0)))
        elif ph == "C":
            cat = ev.get("cat", "")
            for key, value in (ev.get("args") or {}).items():
                st.add_counter(cat, ev.get("name", key), value,
                               cat == "Device Storage" or ev.get("name", "").startswith("Memory:"))
    return len(events), st


def print_summary(path, show_stats, top=5):
    try:
        n_events, st = _load_stats(path)
    except (OSError, ValueError) as e:
        click.echo(f"xprof: could not read the trace {path!r}: {e}", err=True)
        return
    click.echo(f"xprof: trace written to {path} ({n_events} events)", err=True)
    rows = []
    for domain in ("operator", "Custom Operator"):
        for name, (count, total, mn, mx) in st.time.get(domain, {}).items():
            rows.append((total, name, count, domain))
    rows.sort(reverse=True)
    if rows:
        click.echo("xprof: top operators by total time:", err=True)
        width = max(len(r[1]) for r in rows[:top])
        for total, name, count, domain in rows[:top]:
            click.echo(f"  {name:<{width}}  {total:10.3f} ms  {count:6d} calls", err=True)
    if show_stats:
        click.echo(_stats.render_text(st), err=True)
