"""``--format csv``: one row per (section, domain, name) in display order.

Columns: section (Time, Memory or Counter), domain, name, count, total
(empty for Memory and Counter rows, which have no meaningful sum), min, max,
avg, unit (ms, kB, or empty for counters). ``Time by process`` rows are Time rows
(domain: ``<process> / <domain>``); ``Rank spread`` rows have count = ranks that ran
the op, min/max/avg of its total time over the ranks, total empty.
"""
from __future__ import annotations

import click

import csv as _csv
import io

COLUMNS = ("section", "domain", "name", "count", "total", "min", "max", "avg", "unit")


def _level_rows(unit):
    """Rows of a section of levels (no total): Memory, Counter."""
    def rows(row):
        return [row["Count"], "", row["Min"], row["Max"], row["Avg"], unit]
    return rows


def _time_rows(row):
    return [row["Count"], row["Total"], row["Min"], row["Max"], row["Avg"], "ms"]


# section -> the cells after section, domain, name of one row
def _spread_rows(row):
    return [row["Ranks"], "", row["Min"], row["Max"], row["Avg"], "ms"]


SECTIONS = {"Time": _time_rows, "Memory": _level_rows("kB"), "Counter": _level_rows(""),
            "Time by process": _time_rows, "Rank spread": _spread_rows}


def text(doc_sections):
    out = io.StringIO()
    writer = _csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for section, domains in doc_sections:
        cells = SECTIONS[section]
        for domain, rows in domains.items():
            for name, row in rows.items():
                writer.writerow([section, domain, name, *cells(row)])
    return out.getvalue()


def render(report, out):
    click.echo(nl=False, file=out, message=text(report.sections()))
