"""The ``Python Lines`` of a trace: where each custom operator's Python time went, by line.

Reads the root ``python_line`` slices the runtime writes per sampled call (one per call
and track, ``args``: ``{"op", "call", "lines": [[function, file, line, weight ns,
samples, blocked-in or null], ...]}``, runtime/profiler/linefold.py and docs/lines.md),
summed per op type while the ``Trace`` is loaded (``Trace.python_lines``,
``traces/linesamples.py``). The frame slices nested under them are for viewers; this
module never reads them. A share is of the Python time of the op's sampled calls, which
their samples cover from each call's start to its end; a row's ``self_ms`` is that share
of the op's Python time from its call spans (``Custom Operator Calls``: Python, which
excludes Blocked; Setup for a ``<op> (create_operator)`` row set), so a call the
sampler missed (shorter than a tick) moves no share. Without spans ``self_ms`` is the
sampled time itself. A sample's
weight is the time since the sampler's previous tick, so a share's sampling error
is about ``1.96 * sqrt(p * (1 - p) / n)`` for ``n`` samples (95%), stated with the rows.

A ``(blocked in <sync point>)`` row's share is of the op's Blocked time (the call
breakdown counts those waits apart from Python), so the line rows alone add up to the
op's Python time. Works on the trace file alone; the source line text (``xprof explain``) is read with
``linecache`` only when the file is there.
"""
from __future__ import annotations

import linecache
import math
import os

from xprof.traces.names import PYTHON_LINE as CATEGORY  # noqa: F401  (readers' name)

SECTION = "Python Lines"
SETUP_SUFFIX = " (create_operator)"
BLOCKED = "(blocked in {})"


def python_ns(op, calls, blocked=False):
    """The op's Python time (ns) from a ``CallStats`` (None when it has no spans): its
    calls' Python (``blocked``: their Blocked), or, for ``<op> (create_operator)``, the
    Setup of ``<op>``."""
    if calls is None:
        return None
    if op.endswith(SETUP_SUFFIX):
        rows = None if blocked else calls.calls.get(op[:-len(SETUP_SUFFIX)])
        at = 8
    else:
        rows = calls.calls.get(op)
        at = 5 if blocked else 4
    if not rows or any(r[at] is None for r in rows):
        return None
    return sum(r[at] for r in rows)


def op_calls(op, calls):
    """How many calls of ``op`` the call spans hold (None without them)."""
    if calls is None:
        return None
    rows = calls.calls.get(op[:-len(SETUP_SUFFIX)] if op.endswith(SETUP_SUFFIX) else op)
    return len(rows) if rows else None


def error_points(p, n):
    """The 95% sampling error of a share ``p`` (0-1) estimated from ``n`` samples, in
    percentage points."""
    if n <= 0:
        return 100.0
    return 196.0 * math.sqrt(max(p * (1 - p), 0.0) / n)


def section(samples, calls=None, only=None, top=None):
    """``({op: [row...]}, {op: summary})``: per op type (``only``: that one), its lines by
    weight, each row ``{"function", "file", "line", "self_ms", "%", "samples", "±%"}``
    (blocked rows: function ``(blocked in <sync point>)``, line null, ``%`` of the op's
    Blocked time rather than its Python time); the summary:
    ``{"python_ms", "sampled_ms", "samples", "calls", "op_calls", "error_%"}``
    (``python_ms`` and ``op_calls``, every call's Python time and count, from the call
    spans, null without them; ``calls``: the sampled ones; ``error_%``: the largest 95%
    error of a share)."""
    rows_out, summary = {}, {}
    if samples is None:
        return rows_out, summary
    for op in sorted(samples.tables):
        if only and op != only and op != "_backward_" + only and op != only + SETUP_SUFFIX:
            continue
        table = samples.tables[op]
        run = sum(w for (_, _, _, b), (w, _) in table.items() if b is None)
        n_run = sum(n for (_, _, _, b), (_, n) in table.items() if b is None)
        base = python_ns(op, calls)
        # a custom op: a share of the Python time of its sampled calls (Blocked is
        # apart), which their samples cover from each call's start to its end; a call
        # with no sample (shorter than a tick, or begun while the sampler waited for
        # the GIL) adds nothing to either side, so the shares estimate the op's whole
        # Python time, and a row's self_ms is its share of that (the spans' Python time
        # of every call). A thread outside custom ops ("python (<thread>)"): of its
        # sampled time, waits included
        is_op = bool(samples.calls.get(op))
        denom = run if is_op and run else base if base else \
            sum(w for w, _ in table.values())
        scale = base / denom if is_op and base and denom else 1.0
        n_err = n_run if is_op else sum(n for _, n in table.values())
        n_all = sum(n for _, n in table.values())
        # a blocked row's share is of the op's Blocked time (the breakdown's), else of
        # the blocked samples' time: the Python shares alone add up to 100
        waits = sum(w for (_, _, _, b), (w, _) in table.items() if b is not None)
        n_wait = n_all - n_run
        wait_base = python_ns(op, calls, blocked=True) or waits
        rows = []
        for (function, file, line, blocked), (w, n) in sorted(
                table.items(), key=lambda kv: (-kv[1][0], kv[0][0], kv[0][2] or 0)):
            if blocked and is_op:
                # of the op's Blocked time (the spans'); the ticks' weights can sum to a
                # little more (a tick's interval is charged whole): a share is never more
                # than all of it, the error bound says how far off it may be
                share = min(w / wait_base, 1.0) if wait_base else 0.0
                rows.append({"function": BLOCKED.format(blocked), "file": "", "line": None,
                             "self_ms": round(min(w, wait_base) / 1e6, 3),
                             "%": round(100 * share, 1), "samples": n,
                             "±%": round(error_points(share, n_wait), 1)})
                continue
            share = w / denom if denom else 0.0
            rows.append({"function": BLOCKED.format(blocked) if blocked else function,
                         "file": "" if blocked else file, "line": None if blocked else line,
                         "self_ms": round(w * scale / 1e6, 3), "%": round(100 * share, 1),
                         "samples": n,
                         "±%": round(error_points(min(share, 1.0), n_err), 1)})
        # the header's bound: the worst case of a share estimated from the samples there
        # are (the Python ones; the blocked ones when every sample was blocked: an op
        # whose sampled time was all waits once said "±100.0 points", from none)
        n_bound = n_err if n_err or not is_op else n_wait
        error = round(error_points(0.5, n_bound), 1) if n_bound else 0.0
        if top:
            rows = rows[:top]
        rows_out[op] = rows
        summary[op] = {"python_ms": None if base is None else round(base / 1e6, 3),
                       "sampled_ms": round((run if is_op else denom) / 1e6, 3), "samples": n_all,
                       "calls": len(samples.calls.get(op, ())),
                       "op_calls": op_calls(op, calls) if is_op else None,
                       "error_%": error}
    return rows_out, summary


def source_text(file, line):
    """The source line's text (stripped) when the file is readable here, else None."""
    if not file or not line or file.startswith("<") or not os.path.isfile(file):
        return None
    text = linecache.getline(file, line).strip()
    return text or None


def top_line(rows):
    """The first row that is a line of code (not a blocked row), or None."""
    for row in rows:
        if row["line"] is not None:
            return row
    return None


def describe(op, row):
    """``MyOp.forward: 62% in line 37 `np.einsum(...)``` (the function when the source
    is not here)."""
    what = source_text(row["file"], row["line"])
    where = f"line {row['line']} `{what}`" if what else \
        f"{row['function']} ({os.path.basename(row['file'])}:{row['line']})"
    return f"{row['%']:.0f}% in {where}"


def text(rows_out, summary, interval=None):
    """The plain-text tables: per op, a header stating its Python time and the sampling
    error, then the rows."""
    out = []
    for op, rows in rows_out.items():
        s = summary[op]
        if s["calls"]:
            py = (f"{s['python_ms']:.3f} ms Python" if s["python_ms"] is not None else
                  f"{s['sampled_ms']:.3f} ms sampled Python (no call spans)") + \
                f" over {s['calls']} sampled calls"
            if s.get("op_calls") and s["op_calls"] > s["calls"]:
                py += f" of {s['op_calls']}"
        else:   # a thread outside custom ops (--sample-all-threads)
            py = f"{s['sampled_ms']:.3f} ms sampled outside custom ops"
        every = f", one every {interval:g} ms" if interval else ""
        out.append(f"{op}: {py}; {s['samples']} samples{every}; "
                   f"shares ±{s['error_%']:.1f} points at most (95%)")
        headers = ("function", "file", "line", "self_ms", "%", "±%")
        cells = [(r["function"], r["file"], "" if r["line"] is None else str(r["line"]),
                  f"{r['self_ms']:.3f}", f"{r['%']:.1f}", f"{r['±%']:.1f}") for r in rows]
        widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(headers)]
        left = (True, True, False, False, False, False)

        def fmt(cols):
            return "  ".join(c.ljust(w) if lft else c.rjust(w)
                             for c, w, lft in zip(cols, widths, left)).rstrip()
        out.append("  " + fmt(headers))
        out.extend("  " + fmt(c) for c in cells)
        out.append("")
    return "\n".join(out)
