"""Renderers for command output: validation lines and documents; entry points to the stats renderers.

Why here and not in the commands: the commands decide *what* to show; this
module only decides *how*, so every command's machine formats stay stable
and the terminal look can change freely.
"""
from __future__ import annotations

import orjson


# The stats renderers live in render/stats_*.py  (one module per format);
# this one takes a to_json_obj document, for callers that have no Report (run's summary).
def stats_rich(obj, console):
    """One rich table per domain and section, numbers right-aligned, units in headers."""
    from xprof.mxcli.render import stats_text as table
    from xprof.mxcli.analysis.stats_report import doc_sections

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

    from xprof.mxcli.streaming.checker import RULES_TRACE_REPAIRS

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


def diff_table(doc, out, top=25):
    """``xprof diff``'s terminal view (also ``xprof run --baseline``): the wall time and
    the critical path's sentence, then the matched rows by impact on wall time."""
    from rich.console import Console
    from rich.table import Table

    from xprof.mxcli.analysis.diff import label

    probe = Console(file=out)
    console = Console(file=out, width=probe.width if probe.is_terminal else 160,
                      highlight=False, soft_wrap=False)
    w = doc["wall"]
    ratio = f" (x{w['ratio']:.3f})" if w["ratio"] is not None else ""
    console.print(f"wall time  A {w['a_ms']:.3f} ms  B {w['b_ms']:.3f} ms{ratio}")
    console.print(doc["critical_path"]["summary"])
    if not doc["critical_path"]["available"]:
        console.print(f"note: {doc['critical_path']['reason']}")
    table = Table(title=None, show_edge=False, box=None, pad_edge=False)
    for col, justify in (("Row", "left"), ("Calls A", "right"), ("Calls B", "right"),
                         ("Median A (ms)", "right"), ("Median B (ms)", "right"),
                         ("P90 B (ms)", "right"), ("B/A", "right"), ("Sig.", "center"),
                         ("Total change (ms)", "right"), ("Impact (ms)", "right")):
        table.add_column(col, justify=justify, no_wrap=col != "Row",
                         min_width=24 if col == "Row" else None, ratio=1 if col == "Row" else None)
    shown = doc["rows"][:top]
    labels = [label(r) for r in shown]
    twice = {t for t in labels if labels.count(t) > 1}   # told apart by their input shapes
    for r, text in zip(shown, labels):
        table.add_row(text + (f" {r['shapes']}" if text in twice and r.get("shapes") else ""),
                      f"{r['a']['count']:,}", f"{r['b']['count']:,}",
                      f"{r['a']['median_ms']:.4f}", f"{r['b']['median_ms']:.4f}",
                      f"{r['b']['p90_ms']:.4f}", f"{r['ratio']:.3f}",
                      "yes" if r["significant"] else "", f"{r['change_ms']:+.3f}",
                      f"{r['impact_ms']:+.3f}")
    console.print(table)
    if len(doc["rows"]) > top:
        console.print(f"({len(doc['rows']) - top:,} more rows: --top N or --format json)")
    for title, group in (("added (only in B)", doc["added"]), ("removed (only in A)",
                                                                doc["removed"])):
        if group:
            shown = ", ".join(f"{label(r)} {r['total_ms']:.3f} ms" for r in group[:8])
            more = f", ... ({len(group) - 8} more)" if len(group) > 8 else ""
            console.print(f"{title}: {shown}{more}")
    for c in doc["custom_ops"]:
        ch = c.get("change_ms")
        if ch:
            parts = ", ".join(f"{k} {v:+.3f}" for k, v in ch.items() if v is not None)
            console.print(f"custom op {c['name']}, per call (ms): {parts}")
    from xprof.mxcli.analysis.linediff import text_lines
    for text in text_lines(doc.get("python_lines") or []):
        console.print(text)
    m = doc["memory"]
    if m["change_kb"] is not None:
        console.print(f"memory peak  A {m['a_peak_kb']:,.0f} kB  B {m['b_peak_kb']:,.0f} kB  "
                      f"({m['change_kb']:+,.0f} kB)")
