"""Busy, blocked and idle time per thread over the profiled window, and each thread's role.

Why three figures, not two: a thread waiting at a sync point (``waitall``,
``wait_to_read``, ``asnumpy``, ``asscalar``) is neither working nor free. The trace
records each wait as an instant with ``args.waited`` (read as a slice of that length by
``traces/model.py``), so its time is *blocked*, taken out of whatever the thread would
otherwise count as busy. A custom-op thread's ``pure_python`` slice spans the call's
``forward``, waits included: its waits are blocked, the rest busy.

Why roles: "busy" still means different things. An engine worker or a custom-op thread
is busy while one of its slices runs and idle otherwise. A thread that drives the engine
(the main thread: it pushes ops outside any slice of its own) is busy whenever it is not
blocked, because its Python code between pushes is work the trace has no slice for; it
is never idle. ``busy + blocked + idle`` is the window's length for every thread.
"""
from __future__ import annotations

import numpy as np

from xprof.mxcli.analysis.ints import unique

DRIVER, WORKER, CUSTOM, OTHER = "driver", "worker", "custom", "other"


def union_length(start, end, lo, hi):
    """Total length of the union of intervals (sorted by start), clipped to [lo, hi]."""
    if not len(start):
        return 0
    s = np.clip(start, lo, hi)
    e = np.clip(end, lo, hi)
    prev = np.r_[lo, np.maximum.accumulate(e)[:-1]]
    return int(np.maximum(0, e - np.maximum(s, prev)).sum())


def roles(tl, graph):
    """{thread index: role}: drivers push ops outside their own slices, custom-op threads
    run records that pushed others, workers run ops pushed by other threads."""
    out = {}
    if graph is None or not len(graph):
        return out
    top_level_push = graph.pusher[graph.parent < 0]
    for t in unique(top_level_push).tolist():
        out[int(t)] = DRIVER
    has_kids = unique(graph.parent[graph.parent >= 0])
    for t in unique(graph.thread[has_kids]).tolist():
        out.setdefault(int(t), CUSTOM)
    foreign = graph.thread[graph.thread != graph.pusher]
    for t in unique(foreign).tolist():
        out.setdefault(int(t), WORKER)
    return out


def busy_blocked_idle(tl, window, graph=None):
    """{thread index: (busy_ns, blocked_ns, idle_ns, role)} over ``window`` = (lo, hi);
    the three times of a thread add up to the window's length."""
    lo, hi = window
    wall = max(0, hi - lo)
    role = roles(tl, graph)
    is_sync = np.zeros(len(tl.thread), dtype=bool)
    is_sync[tl.sync_slice] = True
    out = {}
    if not len(tl.thread):
        return out
    bounds = np.flatnonzero(np.r_[True, tl.thread[1:] != tl.thread[:-1], True])
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        th = int(tl.thread[a])
        r = role.get(th, OTHER)
        sync = is_sync[a:b]
        # rows are sorted by start within a thread, so each selection stays sorted
        blocked = union_length(tl.start[a:b][sync], tl.end[a:b][sync], lo, hi)
        if r == DRIVER:
            busy, idle = wall - blocked, 0
        else:
            anything = union_length(tl.start[a:b], tl.end[a:b], lo, hi)
            busy, idle = anything - blocked, wall - anything
        out[th] = (busy, blocked, idle, r)
    for th, r in role.items():           # a driver that recorded no slice of its own
        if th not in out:
            out[th] = (wall, 0, 0, r)
    return out
