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
name. numpy groups and sorts the ops (a million ops in a trace).
"""
from __future__ import annotations

import numpy as np

from .names import bounded

SECTION = "Operator Latency"
PARTS = ("Dependency", "Queue", "Run")
_NS_PER_MS = 1e6
_DIGITS = 6


def _row(count, total, p50, p95, most):
    """One part's figures in ms (Python ints in: the same arithmetic whatever built them)."""
    return {"Avg": round(total / count / _NS_PER_MS, _DIGITS),
            "P50": round(p50 / _NS_PER_MS, _DIGITS),
            "P95": round(p95 / _NS_PER_MS, _DIGITS),
            "Max": round(most / _NS_PER_MS, _DIGITS)}


def section(names, name_ids, dependency, queue, run):
    """The ``Operator Latency`` section. ``names[name_ids[i]]`` is op i's name; the other
    three are sequences of integer nanoseconds (one entry per op; numpy arrays are
    accepted), or functions that return one when called (a reader's columns made one
    at a time: a million ops' three columns are not all alive at once). Grouped and
    sorted with numpy: no Python work per op."""
    ids = np.asarray(name_ids).reshape(-1)
    if ids.dtype.kind not in "iu":
        ids = ids.astype(np.int64)
    if not len(ids):
        return {}
    order = np.argsort(ids, kind="stable")
    g = ids[order]
    ids = None
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    counts = np.diff(np.r_[starts, len(g)])
    figures = []
    for col in (dependency, queue, run):
        v = np.asarray(col() if callable(col) else col, dtype=np.int64).reshape(-1)[order]
        col = None
        v = v[np.lexsort((v, g))]   # sorted within each name (g: the names, sorted)
        # nearest rank: the smallest value with at least p% of the values at or below it
        ranks = [v[starts + np.maximum(0, -(-p * counts // 100) - 1)] for p in (50, 95)]
        figures.append(list(zip(np.add.reduceat(v, starts).tolist(), ranks[0].tolist(),
                                ranks[1].tolist(), v[starts + counts - 1].tolist())))
        v = None
    rows = []
    for i, (k, n) in enumerate(zip(g[starts].tolist(), counts.tolist())):
        row = {"Count": n}
        for part, fig in zip(PARTS, figures):
            row[part] = _row(n, *fig[i])
        rows.append((-sum(fig[i][0] for fig in figures), names[k], row))
    rows.sort(key=lambda r: (r[0], r[1]))
    return {name: row for _, name, row in rows}


def render_text(rows):
    """The plain ``Latency`` table of a section (empty string when there is none)."""
    if not rows:
        return ""
    headers = ["Name", "Count", "Dep Avg (ms)", "Dep P95 (ms)", "Queue Avg (ms)",
               "Queue P95 (ms)", "Run Avg (ms)", "Run P95 (ms)"]
    body = [[bounded(name), str(r["Count"]),
             *(f"{r[p][k]:.4f}" for p in PARTS for k in ("Avg", "P95"))]
            for name, r in rows.items()]
    widths = [max(len(h), *(len(line[i]) for line in body)) for i, h in enumerate(headers)]

    def fmt(cols):
        return (cols[0].ljust(widths[0]) + "  "
                + "  ".join(c.rjust(w) for c, w in zip(cols[1:], widths[1:]))).rstrip()

    lines = ["Latency", "=======", fmt(headers), fmt(["-" * len(h) for h in headers])]
    lines.extend(fmt(line) for line in body)
    return "\n".join(lines) + "\n"
