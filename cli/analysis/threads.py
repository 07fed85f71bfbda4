"""Busy and idle time per thread over the profiled window, and what role each thread had.

Why roles: "busy" means different things. An engine worker or a custom-op thread is busy
while one of its slices runs. A thread that drives the engine (the main thread: it pushes
ops outside any slice of its own) is busy whenever it is not blocked at a sync point,
because its Python code between pushes is work the trace has no slice for.
"""
from __future__ import annotations

import numpy as np

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
    for t in np.unique(top_level_push).tolist():
        out[int(t)] = DRIVER
    has_kids = np.unique(graph.parent[graph.parent >= 0])
    for t in np.unique(graph.thread[has_kids]).tolist():
        out.setdefault(int(t), CUSTOM)
    foreign = graph.thread[graph.thread != graph.pusher]
    for t in np.unique(foreign).tolist():
        out.setdefault(int(t), WORKER)
    return out


def busy_idle(tl, window, graph=None):
    """{thread index: (busy_ns, idle_ns, role)} over ``window`` = (lo, hi)."""
    lo, hi = window
    wall = max(0, hi - lo)
    role = roles(tl, graph)
    sync_thread = tl.thread[tl.sync_slice] if len(tl.sync_slice) else np.zeros(0, np.int32)
    out = {}
    if not len(tl.thread):
        return out
    bounds = np.flatnonzero(np.r_[True, tl.thread[1:] != tl.thread[:-1], True])
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        th = int(tl.thread[a])
        r = role.get(th, OTHER)
        if r == DRIVER:
            rows = tl.sync_slice[sync_thread == th]
            blocked = union_length(tl.start[rows], tl.end[rows], lo, hi)
            busy = wall - blocked
        else:
            busy = union_length(tl.start[a:b], tl.end[a:b], lo, hi)
        out[th] = (busy, wall - busy, r)
    for th, r in role.items():           # a driver that recorded no slice of its own
        if th not in out:
            out[th] = (wall, 0, r)
    return out
