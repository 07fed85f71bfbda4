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
name. Stdlib only, like the rest of ``xprof.shared``.
"""
from __future__ import annotations

SECTION = "Operator Latency"
PARTS = ("Dependency", "Queue", "Run")
_NS_PER_MS = 1e6
_DIGITS = 6


def _stats(sorted_ns):
    n = len(sorted_ns)

    def rank(p):
        return sorted_ns[max(0, -(-p * n // 100) - 1)]

    return {"Avg": round(sum(sorted_ns) / n / _NS_PER_MS, _DIGITS),
            "P50": round(rank(50) / _NS_PER_MS, _DIGITS),
            "P95": round(rank(95) / _NS_PER_MS, _DIGITS),
            "Max": round(sorted_ns[-1] / _NS_PER_MS, _DIGITS)}


def section(names, name_ids, dependency, queue, run):
    """The ``Operator Latency`` section. ``names[name_ids[i]]`` is op i's name; the other
    three are sequences of integer nanoseconds (one entry per op; numpy arrays are
    accepted)."""
    cols = [_ints(c) for c in (name_ids, dependency, queue, run)]
    by_name = {}
    for k, d, q, r in zip(*cols):
        parts = by_name.get(k)
        if parts is None:
            parts = by_name[k] = ([], [], [])
        parts[0].append(d)
        parts[1].append(q)
        parts[2].append(r)
    rows = []
    for k, parts in by_name.items():
        vals = [sorted(p) for p in parts]
        row = {"Count": len(vals[0])}
        for part, v in zip(PARTS, vals):
            row[part] = _stats(v)
        rows.append((-sum(sum(v) for v in vals), names[k], row))
    rows.sort(key=lambda r: (r[0], r[1]))
    return {name: row for _, name, row in rows}


def _ints(col):
    """A column as a list of Python ints (``tolist`` of a numpy array, else a copy)."""
    return col.tolist() if hasattr(col, "tolist") else [int(v) for v in col]


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
