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


def plural(n, word, many=None):
    """``1 call``, ``2 calls``, ``0 calls`` (``many`` for irregular plurals)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def violation_line(v):
    """``error: event 12 [X] "conv": why`` (index -1 means the file as a whole)."""
    index, ph, name, severity, message = v[:5]
    return f"{severity}: {_where(index, ph, name)}: {message}"


def _where(index, ph, name):
    if index < 0:
        return "file"
    where = [f"event {index}"]
    if ph:
        where.append(f"[{ph}]")
    if name:
        where.append(orjson.dumps(name).decode())
    return " ".join(where)


def summary_line(events, errors, warnings):
    return f"{plural(events, 'event')}, {plural(errors, 'error')}, {plural(warnings, 'warning')}"


def rule_summary(violations):
    """``[(rule, severity, count, first violation)]``: errors first, then by count, then rule."""
    rules = {}
    for v in violations:
        entry = rules.get((v.rule, v.severity))
        if entry is None:
            rules[(v.rule, v.severity)] = [v, 1]
        else:
            entry[1] += 1
    rows = [(rule, sev, n, first) for (rule, sev), (first, n) in rules.items()]
    rows.sort(key=lambda r: (r[1] != "error", -r[2], r[0]))
    return rows


def clean_name(path):
    """Where the hint suggests ``xprof trace`` writes: ``x.json`` -> ``x.clean.json``."""
    import os

    head, base = os.path.split(str(path))
    for ext in (".json.gz", ".json"):
        if base.endswith(ext) and len(base) > len(ext):
            return os.path.join(head, base[:-len(ext)] + ".clean" + ext)
    return os.path.join(head, base + ".clean.json")


def repair_hint(path, violations):
    """The exact ``xprof trace`` command when it repairs every violation, else None."""
    import shlex

    from .readers.checker import RULES_TRACE_REPAIRS

    if not violations or any(v.rule not in RULES_TRACE_REPAIRS for v in violations):
        return None
    return (f"xprof: hint: xprof trace repairs every one of these: "
            f"xprof trace {shlex.quote(str(path))} -o {shlex.quote(clean_name(path))}")


def validation_text(checker, max_errors):
    """Up to ``max_errors`` violation lines (0: all), the per-rule summary, the totals (last)."""
    violations = checker.violations
    shown = violations if not max_errors else violations[:max_errors]
    lines = [violation_line(v) for v in shown]
    if len(shown) < len(violations):
        hidden = len(violations) - len(shown)
        lines.append(f"... {plural(hidden, 'more violation')} not shown (--max-errors 0 shows all)")
    rows = rule_summary(violations)
    if rows:
        lines.append("by rule:")
        width = max(len(str(n)) for _, _, n, _ in rows)
        for rule, severity, n, first in rows:
            lines.append(f"  {n:>{width}}  {severity} {rule}: first {_where(*first[:3])}: {first.message}")
    lines.append(summary_line(checker.events, checker.errors, checker.warnings))
    return "\n".join(lines)


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
        "rules": [{"rule": rule, "severity": severity, "count": n, "first": first.as_dict()}
                  for rule, severity, n, first in rule_summary(checker.violations)],
    }
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n"
