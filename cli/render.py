"""Renderers for command output: rich tables on a terminal, plain text/JSON/CSV otherwise.

Why here and not in the commands: the commands decide *what* to show; this
module only decides *how*, so every command's machine formats stay stable
and the terminal look can change freely.
"""
from __future__ import annotations

import csv
import io

import orjson

CSV_COLUMNS = ("section", "domain", "name", "count", "total", "min", "max", "avg", "unit")
_UNITS = {"Time": "ms", "Memory": "kB", "Counter": ""}


def stats_json(obj):
    """The ``to_json_obj`` document, indented, with a trailing newline."""
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2).decode() + "\n"


def stats_csv(obj):
    """One row per (section, domain, name) in display order.

    Columns: section (Time, Memory or Counter), domain, name, count, total
    (empty for Memory and Counter rows, which have no meaningful sum), min,
    max, avg, unit (ms, kB, or empty for counters).
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for section in ("Time", "Memory", "Counter"):
        for domain, rows in obj.get(section, {}).items():
            for name, row in rows.items():
                writer.writerow([section, domain, name, row["Count"], row.get("Total", ""),
                                 row["Min"], row["Max"], row["Avg"], _UNITS[section]])
    return out.getvalue()


def stats_rich(obj, console):
    """One rich table per domain and section, numbers right-aligned, units in headers."""
    from rich.table import Table

    spec = {
        "Time": [("Count", None), ("Total (ms)", "Total"), ("Min (ms)", "Min"),
                 ("Max (ms)", "Max"), ("Avg (ms)", "Avg")],
        "Memory": [("Count", None), ("Min (kB)", "Min"), ("Max (kB)", "Max"), ("Avg (kB)", "Avg")],
        "Counter": [("Count", None), ("Min", "Min"), ("Max", "Max"), ("Avg", "Avg")],
    }
    digits = {"Time": 4, "Memory": 3, "Counter": 4}
    shown = False
    for section, columns in spec.items():
        for domain, rows in obj.get(section, {}).items():
            table = Table(title=f"{domain}" + ("" if section == "Time" else f" ({section.lower()})"),
                          title_justify="left", title_style="bold")
            table.add_column("Name", overflow="fold")
            for header, _ in columns:
                table.add_column(header, justify="right")
            for name, row in rows.items():
                cells = [str(row["Count"])]
                cells += [f"{row[key]:.{digits[section]}f}" for _, key in columns[1:]]
                table.add_row(name, *cells)
            console.print(table)
            shown = True
    if not shown:
        console.print("No profiling records.")


def violation_line(v):
    """``error: event 12 [X] "conv": why`` (index -1 means the file as a whole)."""
    index, ph, name, severity, message = v
    if index < 0:
        return f"{severity}: file: {message}"
    where = [f"event {index}"]
    if ph:
        where.append(f"[{ph}]")
    if name:
        where.append(orjson.dumps(name).decode())
    return f"{severity}: {' '.join(where)}: {message}"


def summary_line(events, errors, warnings):
    return f"{events} events, {errors} errors, {warnings} warnings"


def validation_json(path, checker, form, truncated):
    doc = {
        "file": str(path),
        "valid": checker.errors == 0,
        "form": form,
        "truncated": truncated,
        "events": checker.events,
        "errors": checker.errors,
        "warnings": checker.warnings,
        "violations": [v.as_dict() for v in checker.violations],
    }
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n"
