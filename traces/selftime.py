"""Self time: how much of each slice is spent in the slices nested directly inside it.

Why a module of its own: the same rule must give ``profiler.dumps()`` (which reads the
recorder's ``(key, t0, t1)`` rows) and ``xprof stats`` (which reads the slices of a
trace file, ours, MXNet's or PyTorch's) the same Self column, to the nanosecond.

The rule is the viewers' (see ``slices.py``): on one thread, slices sorted
by start, the longer first at equal starts, each slice's parent is the innermost open
slice it starts inside (a slice that ends where the next starts is its sibling). The
time of a slice's *direct* children, each clipped to the parent's end (a child that
overlaps its parent's end counts only its part inside), is the parent's ``inner`` time;
its self time is its duration minus that. Times are integer nanoseconds, so the
subtraction is exact. Pure numpy and stdlib: the CLI loads it without the engine.
"""
from __future__ import annotations

import numpy as np

from . import slices


def inner_ns(starts, ends, durs=None, scale=1, ordered=False):
    """Per slice of one thread, the time covered by its direct children.

    ``starts``/``ends`` are integer nanoseconds (any order); the result is aligned with
    them. A child inside its parent counts its duration ``durs[k]`` (default ``end -
    start``; a reader passes the durations it sums in the totals, e.g. picoseconds
    rounded from a trace's ``dur``, so that Self = Total - inner is exact in the same
    unit); a child overlapping its parent's end counts ``(parent end - start) *
    scale``. A thread whose slices never nest (an engine worker's ops) costs one numpy
    pass; properly nested ones a few (``slices.parents_nested``); only a thread with a
    slice that overlaps its parent's end is walked in Python (``slices.nest``).
    ``ordered``: the slices are sorted already (by start, the longer first, as the
    ``Trace`` holds them): no sorted copies are made.
    """
    s = np.asarray(starts, dtype=np.int64)
    e = np.asarray(ends, dtype=np.int64)
    if len(s) < 2:
        return np.zeros(len(s), dtype=np.int64)
    if ordered:
        order, ss, es = None, s, e
    else:
        order = np.argsort(s, kind="stable")   # (runs recorded in order: a merge)
        ss = s[order]
        if bool((ss[1:] == ss[:-1]).any()):   # equal starts: the longer first, then as given
            order = np.lexsort((np.arange(len(s)), s - e, s))
            ss = s[order]
        es = e[order]
    reach = np.maximum.accumulate(es)
    top = np.r_[True, reach[:-1] <= ss[1:]]   # nothing open at its start
    reach = None
    if bool(top.all()):
        return np.zeros(len(s), dtype=np.int64)   # flat: nothing starts inside anything
    dur = None if durs is None else np.asarray(durs, dtype=np.int64)
    if order is not None and dur is not None:
        dur = dur[order]
    parent = slices.parents_nested(ss, es, top)
    if parent is None:
        inner = _inner_walk(ss, es, es - ss if dur is None else dur, scale)
    else:
        has = np.flatnonzero(parent >= 0)   # (the children only: no whole duration column)
        inner = np.zeros(len(ss), dtype=np.int64)
        np.add.at(inner, parent[has], es[has] - ss[has] if dur is None else dur[has])
    if order is None:
        return inner
    out = np.zeros(len(s), dtype=np.int64)
    out[order] = inner
    return out


def _inner_walk(ss, es, dur, scale):
    """:func:`inner_ns` of sorted slices by the stack walk of ``slices.nest`` (a slice
    overlapping its parent's end is nobody's parent and counts its part inside, as the
    viewers do)."""
    parent, overlaps = slices.nest(ss.tolist(), es.tolist())
    parent = np.asarray(parent, dtype=np.int64)
    dur = np.asarray(dur, dtype=np.int64).copy()
    for k, p, _ in overlaps:
        dur[k] = (int(es[p]) - int(ss[k])) * scale
    has = parent >= 0
    inner = np.zeros(len(ss), dtype=np.int64)
    np.add.at(inner, parent[has], dur[has])
    return inner


def inner_by_row(rows, starts, ends, durs=None, scale=1, ordered=False):
    """``{row: inner time}`` summed over one thread's slices (see :func:`inner_ns`);
    ``rows`` names each slice's row (hashable values, or an integer array). Rows whose
    slices have no children are left out (their self time is their total).
    """
    inner = inner_ns(starts, ends, durs, scale, ordered)
    nz = np.flatnonzero(inner)
    if not len(nz):
        return {}
    rows = np.asarray(rows)
    if rows.dtype.kind in "iu":   # summed per row with numpy
        uniq, inverse = np.unique(rows[nz], return_inverse=True)
        order = np.argsort(inverse.reshape(-1), kind="stable")
        g = inverse.reshape(-1)[order]
        firsts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
        sums = np.add.reduceat(inner[nz][order], firsts)
        return dict(zip(uniq.tolist(), sums.tolist()))
    out = {}
    for row, ns in zip(rows[nz].tolist(), inner[nz].tolist()):
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
    n_keys = len(keys)
    for events, rows in parts:
        rows = rows[rows[:, 1] >= base_ns] if len(rows) else rows
        extra, names = [], []   # slices kept as tuples: rows n_keys, n_keys + 1, ...
        for ev in events:
            kind = ev[0]
            if kind in slice_kinds and ev[3] >= base_ns:
                extra.append((n_keys + len(names), ev[3], ev[4]))
                names.append((ev[1], ev[2]))
            elif kind in stamps and ev[3] >= base_ns:
                for at in stamps[kind]:
                    t = ev[at]
                    first = t if first is None or t < first else first
                    last = t if last is None or t > last else last
        if extra:
            rows = np.concatenate((rows.reshape(-1, 3), np.array(extra, dtype=np.int64)))
        if not len(rows):
            continue
        lo, hi = int(rows[:, 1].min()), int(rows[:, 2].max())
        first = lo if first is None or lo < first else first
        last = hi if last is None or hi > last else last
        for row, ns in inner_by_row(rows[:, 0], rows[:, 1], rows[:, 2]).items():
            name, cat = keys[row] if row < n_keys else names[row - n_keys]
            stats.add_inner_ns(cat, name, ns)
    if first is not None:
        stats.add_span_ns(first, last)
