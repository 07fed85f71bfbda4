"""``--format table``: a rich table per domain on a terminal, the plain text table when piped.

The plain text is the runtime's own ``render_text`` of the aggregate, so
``profiler.dumps()`` and ``xprof stats | cat`` print the same text.  Rich
tables come from the JSON document, one per (section, domain), columns from
``SECTIONS``: ``(header, key in the row, digits)``; ``None`` key = Count.
"""
from __future__ import annotations

import click

from xprof.shared import callstats
from xprof.shared import stats as shared_stats

from .. import flat

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


                table.add_row(name, *_cells(row, columns))


def render(report, out):
    if out.isatty():
        from rich.console import Console

        rich_tables(report.sections(), Console(file=out))
    else:
        click.echo(plain_text(report), file=out, nl=False)
