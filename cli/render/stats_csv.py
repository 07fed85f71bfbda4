"""``--format csv``: one row per (section, domain, name) in display order.

Columns: section (Time, Memory, Counter or Custom Operator Calls), domain,
name, count, total, self, percent (of the profile's wall time; total, self and
percent are empty for Memory and Counter rows, which have no meaningful sum),
min, max, avg, unit (ms, kB, or empty for counters). Custom Operator Calls:
the op type in the domain column, one row named Latency and one per part
(Queued, Inputs, Pool, Python, Blocked, Tail, Sub-operators, Setup: the average per call in avg). ``Time by process``
rows are Time rows (domain: ``<process> / <domain>``); ``Rank spread`` rows have count =
ranks that ran the op, min/max/avg of its total time over the ranks, total empty.
``Communication`` rows: count, total and avg time of a collective (MB and GB/s are in
the JSON); ``Overlap`` rows (one per rank): total = communication time, self = the
part overlapped by computation, percent = the overlap.
"""
from __future__ import annotations

import click

import csv as _csv
import io

from xprof.traces import callstats

from xprof.mxcli.analysis import latency

COLUMNS = ("section", "domain", "name", "count", "total", "self", "percent", "min", "max", "avg",
           "unit")


def _level_rows(unit):
    """Rows of a section of levels (no total): Memory, Counter."""
    def rows(row):
        return [row["Count"], "", "", "", row["Min"], row["Max"], row["Avg"], unit]
    return _per_row(rows)


def _time_rows(row):
    return [row["Count"], row["Total"], row["Self"], row.get("%", ""), row["Min"], row["Max"],
            row["Avg"], "ms"]


def _per_row(cells):
    """A section shaped ``{domain: {name: row}}``: one CSV row per row."""
    def lines(domains):
        for domain, rows in domains.items():
            for name, row in rows.items():
                yield domain, name, cells(row)
    return lines


def _blank(v):
    return "" if v is None else v


def _call_rows(calls):
    """``Custom Operator Calls``: per op type (the domain column) a ``Latency`` row, then
    one row per part, ``Sub-operators`` and ``Setup`` (average per call in ``avg``); unknown
    values are empty cells."""
    for op, row in calls.items():
        lat = row["Latency"]
        yield op, "Latency", [row["Count"], _blank(lat["Total"]), "", "", _blank(lat["Min"]),
                              _blank(lat["Max"]), _blank(lat["Avg"]), "ms"]
        for part in callstats.ROW_PARTS:
            unit = "calls" if part == callstats.AHEAD else "ms"
            yield op, part, [row["Count"], "", "", "", "", "", _blank(row.get(part)), unit]


def _flat_rows(rows):
    """``--flat``: one line per ranked row, its own domain in the domain column."""
    for row in rows:
        yield row["Domain"], row["Name"], _time_rows(row)


def _latency_rows(rows):
    """``Operator Latency``: one row per part (the domain column) and op name."""
    for part, name, count, total, lo, hi, avg, unit in latency.csv_rows(rows):
        yield part, name, [count, total, "", "", lo, hi, avg, unit]


# section -> lines (domain, name, cells after section, domain, name) of its document part
def _spread_rows(row):
    return [row["Ranks"], "", "", "", row["Min"], row["Max"], row["Avg"], "ms"]


def _communication_rows(row):
    return [row["Count"], row["Total"], "", "", "", "", row["Avg"], "ms"]


def _overlap_rows(row):
    return ["", row["Communication"], row["Overlapped"], row["Overlap %"], "", "", "", "ms"]


SECTIONS = {"Time": _per_row(_time_rows), "Memory": _level_rows("kB"), "Counter": _level_rows(""),
            "Custom Operator Calls": _call_rows, "Flat": _flat_rows,
            "Time by process": _per_row(_time_rows), "Rank spread": _per_row(_spread_rows),
            "Operator Latency": _latency_rows, "Communication": _per_row(_communication_rows),
            "Overlap": _per_row(_overlap_rows)}


def text(doc_sections):
    out = io.StringIO()
    writer = _csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for section, part in doc_sections:
        for domain, name, cells in SECTIONS[section](part):
            writer.writerow([section, domain, name, *cells])
    return out.getvalue()


def render(report, out):
    click.echo(nl=False, file=out, message=text(report.sections()))
