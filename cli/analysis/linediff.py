"""The ``python_lines`` part of ``xprof diff``: for each custom op sampled in both runs,
which lines of its Python gained or lost time (docs/diff.md, "Python lines").

Each run's rows are ``xprof stats --lines``' (:func:`..analysis.pylines.section`): a
line's share of the op's Python time, its 95% sampling error, and its ``self_ms`` (that
share of the op's Python time over every call). Lines are matched by (function, file
name, line number): the file's folder may differ between two checkouts. A line's share
moved **significantly** when the change exceeds both runs' sampling errors combined
(``sqrt(e_a^2 + e_b^2)``, 95% each) and is at least :data:`MIN_POINTS` points; self
times are compared per call, so two runs of different lengths compare.
"""
from __future__ import annotations

import math
import os

MIN_POINTS = 2.0   # a share's change smaller than this is never called significant


def sections(run_tl):
    """``(rows, summary)`` of one run's timeline (empty without samples)."""
    from xprof.mxcli.analysis.pylines import section

    return section(getattr(run_tl, "python_lines", None), getattr(run_tl, "call_stats", None))


def _key(row):
    return (row["function"], os.path.basename(row["file"] or ""), row["line"])


def _per_call(row, summary):
    calls = summary.get("op_calls") or summary.get("calls") or 0
    return row["self_ms"] / calls if calls else None


def _side(row, summary):
    if row is None:
        return None
    return {"file": row["file"], "self_ms": row["self_ms"], "%": row["%"], "±%": row["±%"],
            "per_call_ms": None if _per_call(row, summary) is None
            else round(_per_call(row, summary), 6)}


def compare(a, b):
    """``[{"op", "a": summary, "b": summary, "lines": [...]}]`` for each op type with
    samples in both runs (``a``, ``b``: :func:`sections` results), its lines sorted by
    the size of their share's change; each line ``{"function", "file", "line", "a", "b",
    "change_points", "change_per_call_ms", "significant"}`` (a side is None when the
    line has no samples in that run)."""
    (rows_a, sum_a), (rows_b, sum_b) = a, b
    out = []
    for op in sorted(set(rows_a) & set(rows_b)):
        sa, sb = sum_a[op], sum_b[op]
        by_a = {_key(r): r for r in rows_a[op] if r["line"] is not None}
        by_b = {_key(r): r for r in rows_b[op] if r["line"] is not None}
        lines = []
        for key in set(by_a) | set(by_b):
            ra, rb = by_a.get(key), by_b.get(key)
            pa = ra["%"] if ra else 0.0
            pb = rb["%"] if rb else 0.0
            ea = ra["±%"] if ra else 0.0
            eb = rb["±%"] if rb else 0.0
            change = pb - pa
            ca = _per_call(ra, sa) if ra else 0.0
            cb = _per_call(rb, sb) if rb else 0.0
            lines.append({
                "function": key[0], "file": key[1], "line": key[2],
                "a": _side(ra, sa), "b": _side(rb, sb),
                "change_points": round(change, 3),
                "change_per_call_ms": None if ca is None or cb is None else round(cb - ca, 6),
                "significant": abs(change) >= MIN_POINTS
                and abs(change) > math.sqrt(ea * ea + eb * eb)})
        lines.sort(key=lambda r: (-abs(r["change_points"]), r["function"], r["line"] or 0))
        out.append({"op": op, "a": sa, "b": sb, "lines": lines})
    return out


def text_lines(entries, top=3):
    """The terminal lines of ``xprof diff``: each op's ``top`` most changed lines."""
    out = []
    for e in entries:
        for r in e["lines"][:top]:
            a, b = r["a"], r["b"]
            pa = f"{a['%']:.1f}%" if a else "-"
            pb = f"{b['%']:.1f}%" if b else "-"
            per_call = "" if r["change_per_call_ms"] is None else \
                f", {r['change_per_call_ms']:+.3f} ms per call"
            sig = " (significant)" if r["significant"] else ""
            out.append(f"python line {e['op']}: {r['function']} {r['file']}:{r['line']}  "
                       f"{pa} -> {pb} ({r['change_points']:+.1f} points{per_call}){sig}")
    return out
