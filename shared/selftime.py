"""Self time: how much of each slice is spent in the slices nested directly inside it.

Why a module of its own: the same rule must give ``profiler.dumps()`` (which reads the
recorder's ``(key, t0, t1)`` rows) and ``xprof stats`` (which reads the slices of a
trace file, ours, MXNet's or PyTorch's) the same Self column, to the nanosecond.

The rule is the viewers' (see ``cli/readers/slices.py``): on one thread, slices sorted
by start, the longer first at equal starts, each slice's parent is the innermost open
slice it starts inside (a slice that ends where the next starts is its sibling). The
time of a slice's *direct* children, each clipped to the parent's end (a child that
overlaps its parent's end counts only its part inside), is the parent's ``inner`` time;
its self time is its duration minus that. Times are integer nanoseconds, so the
subtraction is exact. Pure numpy and stdlib: the CLI loads it without the engine.
"""
from __future__ import annotations

import numpy as np


def inner_ns(starts, ends, durs=None, scale=1):
    """Per slice of one thread, the time covered by its direct children.

    ``starts``/``ends`` are integer nanoseconds (any order); the result is aligned with
    them. A child inside its parent counts its duration ``durs[k]`` (default ``end -
    start``; a reader passes the durations it sums in the totals, e.g. picoseconds
    rounded from a trace's ``dur``, so that Self = Total - inner is exact in the same
    unit); a child overlapping its parent's end counts ``(parent end - start) *
    scale``. A thread whose slices never nest (an engine worker's ops) costs one numpy
    pass.
    """
    s = np.asarray(starts, dtype=np.int64)
    e = np.asarray(ends, dtype=np.int64)
    out = np.zeros(len(s), dtype=np.int64)
    if len(s) < 2:
        return out
    order = np.lexsort((np.arange(len(s)), s - e, s))
    ss, es = s[order], e[order]
    if bool(np.all(np.maximum.accumulate(es)[:-1] <= ss[1:])):
        return out   # flat: nothing starts inside anything
    inner = [0] * len(ss)
    sl, el = ss.tolist(), es.tolist()
    dl = (es - ss).tolist() if durs is None else np.asarray(durs, dtype=np.int64)[order].tolist()
    stack = []   # positions of the open slices, innermost last
    for k in range(len(sl)):
        start = sl[k]
        while stack and el[stack[-1]] <= start:
            stack.pop()
        end = el[k]
        if stack:
            parent = stack[-1]
            pe = el[parent]
            if end > pe:   # overlaps its parent's end: nobody's parent (as the viewers do)
                inner[parent] += (pe - start) * scale
                continue
            inner[parent] += dl[k]
        stack.append(k)
    out[order] = inner
    return out


def inner_by_row(rows, starts, ends, durs=None, scale=1):
    """``{row: inner time}`` summed over one thread's slices (see :func:`inner_ns`);
    ``rows`` names each slice's row. Rows whose slices have no children are left out
    (their self time is their total).
    """
    inner = inner_ns(starts, ends, durs, scale)
    nz = np.flatnonzero(inner)
    if not len(nz):
        return {}
    out = {}
    for row, ns in zip(np.asarray(rows)[nz].tolist(), inner[nz].tolist()):
        out[row] = out.get(row, 0) + ns
    return out


def add_recorded(stats, parts, base_ns, keys, slice_kinds, stamps):
    """Add the inner times and the wall-time span of recorded buffers to ``stats``.

    ``parts`` is ``[(event tuples, (key, t0, t1) rows)]``, one entry per recording
    thread (as ``session.aggregate_lists`` gets it); ``keys[key]`` is ``(name, cat)``;
    tuples whose kind is in ``slice_kinds`` are slices of their thread ``(kind, name,
    cat, t0, t1, ...)``; ``stamps[kind]`` lists the positions of time stamps of other
    kinds (async begin/end, a custom-op call's push and end) that only widen the span.
    What began before ``base_ns`` is skipped, as the trace encoder skips it, so ``xprof
    stats`` on the trace reads the same.
    """
    first = last = None
    for events, rows in parts:
        rows = rows[rows[:, 1] >= base_ns] if len(rows) else rows
        names = [keys[k] for k in rows[:, 0].tolist()]
        starts, ends = rows[:, 1].tolist(), rows[:, 2].tolist()
        for ev in events:
            kind = ev[0]
            if kind in slice_kinds and ev[3] >= base_ns:
                names.append((ev[1], ev[2]))
                starts.append(ev[3])
                ends.append(ev[4])
            elif kind in stamps and ev[3] >= base_ns:
                for at in stamps[kind]:
                    t = ev[at]
                    first = t if first is None or t < first else first
                    last = t if last is None or t > last else last
        if not starts:
            continue
        lo, hi = min(starts), max(ends)
        first = lo if first is None or lo < first else first
        last = hi if last is None or hi > last else last
        ids = {}
        rowid = [ids.setdefault(n, len(ids)) for n in names]
        by_id = list(ids)
        for row, ns in inner_by_row(rowid, starts, ends).items():
            name, cat = by_id[row]
            stats.add_inner_ns(cat, name, ns)
    if first is not None:
        stats.add_span_ns(first, last)
