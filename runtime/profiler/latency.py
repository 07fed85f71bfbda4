"""Operator latency split: dependency wait, queue wait, run, per op name. One implementation
for ``profiler.dumps()`` and ``xprof stats``.

For every engine op the profiler records when it was pushed, when its last dependency
was satisfied (ready) and when it started and ended, so its latency splits into
**Dependency** (push -> ready), **Queue** (ready -> start: waiting for a worker or the
custom-op pool) and **Run** (start -> end). This module turns those integers into the
``"Operator Latency"`` section::

    {name: {"Count": n, "Dependency": {"Avg", "P50", "P95", "Max"},
            "Queue": {...}, "Run": {...}}}

in milliseconds, and its plain-text ``Latency`` table. Inputs are integer nanoseconds,
so the runtime (raw stamps) and the CLI (the trace's ``ts``/``dur`` and ``args.dep``,
exact integers of ns) compute identical numbers. Percentiles are nearest-rank (the
smallest value with at least p% of the values at or below it: always a measured value).
Rows: by total latency (the three parts summed over the calls), largest first, ties by
name. Pure (numpy only), loadable by file path without the engine, like ``stats.py``.
"""
from __future__ import annotations

import numpy as np

SECTION = "Operator Latency"
PARTS = ("Dependency", "Queue", "Run")
_NS_PER_MS = 1e6
_DIGITS = 6


def _stats(sorted_ns):
    n = len(sorted_ns)

    def rank(p):
        return int(sorted_ns[max(0, -(-p * n // 100) - 1)])

    return {"Avg": round(int(sorted_ns.sum()) / n / _NS_PER_MS, _DIGITS),
            "P50": round(rank(50) / _NS_PER_MS, _DIGITS),
            "P95": round(rank(95) / _NS_PER_MS, _DIGITS),
            "Max": round(int(sorted_ns[-1]) / _NS_PER_MS, _DIGITS)}


def section(names, name_ids, dependency, queue, run):
    """The ``Operator Latency`` section. ``names[name_ids[i]]`` is op i's name; the other
    three are int64 arrays of nanoseconds (one entry per op)."""
    name_ids = np.asarray(name_ids, dtype=np.int64)
    parts = [np.asarray(a, dtype=np.int64) for a in (dependency, queue, run)]
    if not len(name_ids):
        return {}
    order = np.argsort(name_ids, kind="stable")
    ids = name_ids[order]
    bounds = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1], True])
    rows = []
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        sel = order[a:b]
        vals = [np.sort(p[sel]) for p in parts]
        total = sum(int(v.sum()) for v in vals)
        row = {"Count": b - a}
        for part, v in zip(PARTS, vals):
            row[part] = _stats(v)
        rows.append((-total, names[int(ids[a])], row))
    rows.sort(key=lambda r: (r[0], r[1]))
    return {name: row for _, name, row in rows}


def render_text(rows):
    """The plain ``Latency`` table of a section (empty string when there is none)."""
    if not rows:
        return ""
    headers = ["Name", "Count", "Dep Avg (ms)", "Dep P95 (ms)", "Queue Avg (ms)",
               "Queue P95 (ms)", "Run Avg (ms)", "Run P95 (ms)"]
    body = [[name, str(r["Count"]), *(f"{r[p][k]:.4f}" for p in PARTS for k in ("Avg", "P95"))]
            for name, r in rows.items()]
    widths = [max(len(h), *(len(line[i]) for line in body)) for i, h in enumerate(headers)]

    def fmt(cols):
        return (cols[0].ljust(widths[0]) + "  "
                + "  ".join(c.rjust(w) for c, w in zip(cols[1:], widths[1:]))).rstrip()

    lines = ["Latency", "=======", fmt(headers), fmt(["-" * len(h) for h in headers])]
    lines.extend(fmt(line) for line in body)
    return "\n".join(lines) + "\n"
