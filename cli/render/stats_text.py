"""``--format table``: a rich table per domain on a terminal, the plain text table when piped.

The plain text is the runtime's own ``render_text`` of the aggregate, so
``profiler.dumps()`` and ``xprof stats | cat`` print the same text.  Rich
tables come from the JSON document, one per (section, domain), columns from
``SECTIONS``: ``(header, key in the row, digits)``; ``None`` key = Count.
"""
from __future__ import annotations

import click

from xprof.traces import callstats
from xprof.traces import latency as shared_latency
from xprof.traces import stats as shared_stats

from xprof.mxcli.analysis import flat, latency

SECTIONS = {
    "Time": [("Count", None, 0), ("Total (ms)", "Total", 4), ("Self (ms)", "Self", 4),
             ("%", "%", 2), ("Min (ms)", "Min", 4), ("Max (ms)", "Max", 4), ("Avg (ms)", "Avg", 4)],
    "Memory": [("Count", None, 0), ("Min (kB)", "Min", 3), ("Max (kB)", "Max", 3),
               ("Avg (kB)", "Avg", 3)],
    "Counter": [("Count", None, 0), ("Min", "Min", 4), ("Max", "Max", 4), ("Avg", "Avg", 4)],
    "Rank spread": [("Ranks", "Ranks", None), ("Min (ms)", "Min", 4),
                    ("Median (ms)", "Median", 4), ("Max (ms)", "Max", 4),
                    ("Avg (ms)", "Avg", 4), ("Slowest", "Slowest", None)],
}
SECTIONS["Time by process"] = SECTIONS["Time"]
SECTIONS["Communication"] = [("Count", None, 0), ("MB", "MB", 3), ("Total (ms)", "Total", 4),
                             ("Avg (ms)", "Avg", 4), ("GB/s", "GB/s", 3)]
SECTIONS["Overlap"] = [("Communication (ms)", "Communication", 4),
                       ("Computation (ms)", "Computation", 4),
                       ("Overlapped (ms)", "Overlapped", 4), ("Overlap %", "Overlap %", 2)]
_PLAIN_TEXT_SECTIONS = ("Time", "Memory", "Counter")   # written by render_text


def rich_tables(doc_sections, console):
    """One rich table per domain and section, numbers right-aligned, units in headers."""
    from rich.table import Table

    shown = False
    for section, domains in doc_sections:
        if section in WHOLE_SECTIONS:
            console.print(WHOLE_SECTIONS[section](domains))
            shown = True
            continue
        columns = SECTIONS[section]
        for domain, rows in domains.items():
            table = Table(title=f"{domain}" + ("" if section == "Time" else f" ({section.lower()})"),
                          title_justify="left", title_style="bold")
            table.add_column("Name", overflow="fold")
            for header, _, _ in columns:
                table.add_column(header, justify="right")
            for name, row in rows.items():
                table.add_row(name, *_cells(row, columns))
            console.print(table)
            shown = True
    if not shown:
        console.print("No profiling records.")



def _num(value, digits):
    return "-" if value is None else f"{value:.{digits}f}"


def _calls_table(calls):
    """``Custom Operator Calls``: the cells of the text table (``callstats.table_cells``)."""
    from rich.table import Table

    headers, rows = callstats.table_cells(calls)
    table = Table(title="Custom Operator Calls", title_justify="left", title_style="bold",
                  caption=callstats.PER_CALL_NOTE, caption_justify="left")
    table.add_column(headers[0], overflow="fold")
    for header in headers[1:]:
        table.add_column(header, justify="right")
    for cells in rows:
        table.add_row(*cells)
    return table


def _flat_table(rows):
    """``--flat``: one table ranked across domains (``flat.table_cells``)."""
    from rich.table import Table

    headers, cells = flat.table_cells(rows)
    table = Table(title=flat.SECTION, title_justify="left", title_style="bold")
    for i, header in enumerate(headers):
        table.add_column(header, justify="left" if i < 2 else "right",
                         overflow="fold" if i == 0 else None)
    for row in cells:
        table.add_row(*row)
    return table


def _latency_table(rows):
    """``Operator Latency``: per op name, dependency / queue / run averages and p95."""
    from rich.console import Group

    return latency.rich_table(rows) if rows else Group()


# sections that are one table of their own, not one per domain
WHOLE_SECTIONS = {"Custom Operator Calls": _calls_table, flat.SECTION: _flat_table,
                  shared_latency.SECTION: _latency_table}


def _cells(row, columns):
    return [str(row["Count"]) if key is None else str(row[key]) if digits is None
            else _num(row.get(key), digits) for _, key, digits in columns]


def plain_text(report):
    """``render_text`` of the aggregate (or the ``--flat`` ranking), then any further
    per-domain section (``--by-process``) as plain columns."""
    if flat.SECTION in report.doc:
        return flat.text(report.doc[flat.SECTION])
    text = shared_stats.render_text(report.stats, report.sort_by, report.ascending)
    for section, domains in report.sections():
        if section == shared_latency.SECTION and domains:   # not in the aggregate's text
            text += "\n" + latency.text(domains)
            continue
        if section in _PLAIN_TEXT_SECTIONS or section in WHOLE_SECTIONS or not domains:
            continue
        columns = SECTIONS[section]
        lines = [f"\n{section}", "=" * len(section)]
        for domain, rows in domains.items():
            width = max([len(n) for n in rows] + [4])
            lines.append(f"\n{domain}")
            lines.append(f"{'Name':<{width}}  " + "  ".join(f"{h:>12}" for h, _, _ in columns))
            for name, row in rows.items():
                lines.append(f"{name:<{width}}  " +
                             "  ".join(f"{c:>12}" for c in _cells(row, columns)))
        text += "\n".join(lines) + "\n"
    return text


def render(report, out):
    if out.isatty():
        from rich.console import Console

        rich_tables(report.sections(), Console(file=out))
    else:
        click.echo(plain_text(report), file=out, nl=False)
