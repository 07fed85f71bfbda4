"""Renderers for command output: validation lines and documents; entry points to the stats renderers.

Why here and not in the commands: the commands decide *what* to show; this
module only decides *how*, so every command's machine formats stay stable
and the terminal look can change freely.
"""
from __future__ import annotations

import orjson


# The stats renderers live in stats_pipeline/renderers/ (one module per format);
# this one takes a to_json_obj document, for callers that have no Report (run's summary).
def stats_rich(obj, console):
    """One rich table per domain and section, numbers right-aligned, units in headers."""
    from .stats_pipeline.renderers import table
    from .stats_pipeline.report import doc_sections

    table.rich_tables(doc_sections(obj), console)


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
