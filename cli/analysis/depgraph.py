"""The engine's dependency graph of a trace, rebuilt from the variables each recorded op
read and wrote.

Why rebuild rather than record edges: the engine knows variables, not edges, and writing
variable ids costs it nothing extra. The rule (``xprof.traces.depgraph``, shared with the
runtime's dump) gives each op its *binding* predecessor, the one that finished last: the
critical path needs only that one.

A custom operator's call is recorded on its ``pure_python`` slice; the call completes
only when the sub-operators its Python code pushed have run, so its *completion* is the
latest end among itself and its children (records pushed from its thread while it ran).
"""
from __future__ import annotations

import numpy as np

from xprof.traces.depgraph import binding, occurrences


class Graph:
    """Per dependency record ``i`` (columns, same order as ``Timeline.dep_*``):

    ``thread``, ``start``, ``end``, ``push``, ``ready``, ``pusher``, ``name``, ``cat``,
    ``slice`` (the row in the timeline); ``parent`` (the record whose run pushed it, or
    -1), ``last_child`` (the child ending last, or -1), ``done`` (completion: ``end``,
    or the last child's end if later), ``pred`` (the binding predecessor, or -1).
    """

    def __init__(self, tl):
        rows = tl.dep_slice
        self.slice = rows
        self.thread = tl.thread[rows].astype(np.int64)
        self.start = tl.start[rows]
        self.end = tl.end[rows]
        self.name = tl.name[rows]
        self.cat = tl.cat[rows]
        self.push = tl.dep_push
        self.ready = tl.dep_ready
        self.pusher = tl.dep_pusher
        self.parent, self.last_child, self.done = _children(self, tl)
        self.order = np.argsort(self.push, kind="stable")   # push order
        self.occ = occurrences(tl.dep_vars, tl.dep_var_start, self.order, self.push)
        self.pred = binding(self.occ, self.done, self.ready)

    def __len__(self):
        return len(self.slice)

    def target(self, i):
        """The record whose end is ``i``'s completion (its last child, or ``i``)."""
        c = self.last_child[i]
        return int(c) if c >= 0 and self.end[c] > self.end[i] else int(i)

    def waited(self, sync_start, var_list):
        """The record a ``WaitForVar`` begun at ``sync_start`` waited for: of the last
        writes to each variable pushed before it, the one completing last (-1: none)."""
        best, best_done = -1, None
        var, write, rec, push = self.occ
        for v in var_list:
            lo, hi = np.searchsorted(var, [v, v + 1])
            if lo == hi:
                continue
            w = np.flatnonzero(write[lo:hi] & (push[lo:hi] < sync_start))
            if len(w):
                r = int(rec[lo + w[-1]])
                if best_done is None or self.done[r] > best_done:
                    best, best_done = r, self.done[r]
        return best

    def waited_all(self, sync_start):
        """The record a ``WaitForAll`` begun at ``sync_start`` waited for: of all ops
        pushed before it, the one completing last (-1: none)."""
        if not hasattr(self, "_prefix"):
            self._push_sorted = self.push[self.order]
            done = self.done[self.order]
            pmax = np.maximum.accumulate(done)
            self._prefix = np.maximum.accumulate(
                np.where(done == pmax, np.arange(len(done)), 0))
        k = int(np.searchsorted(self._push_sorted, sync_start, side="left"))
        if k == 0:
            return -1
        return int(self.order[self._prefix[k - 1]])


def _children(g, tl=None):
    """(parent, last_child, done): a record pushed from thread T while a record of T was
    running (a custom call's Python code pushing sub-operators) is that record's child.
    A record run at once on the thread that pushed it (NaiveEngine: a call's
    sub-operators, inside the call's slice) is the child of the record its slice is
    nested in (the slices' nesting: the last record begun before it is itself)."""
    n = len(g.slice)
    parent = np.full(n, -1, dtype=np.int64)
    if n:
        # records sorted by (thread, start) already (timeline order); find, for each
        # record's push, the last record of the pusher thread starting at or before it
        key_t, key_s = g.thread, g.start
        cand = _last_at_or_before(key_t, key_s, g.pusher, g.push)
        ok = cand >= 0
        ok[ok] &= (g.end[cand[ok]] >= g.push[ok]) & (cand[ok] != np.arange(n)[ok])
        parent[ok] = cand[ok]
        here = g.thread == g.pusher
        if tl is not None and here.any():
            parent[here] = _enclosing_record(tl, g.slice, np.flatnonzero(here))
    last_child = np.full(n, -1, dtype=np.int64)
    done = g.end.copy()
    kids = np.flatnonzero(parent >= 0)
    if len(kids):
        order = kids[np.lexsort((g.end[kids], parent[kids]))]
        par = parent[order]
        last = np.r_[par[1:] != par[:-1], True]
        last_child[par[last]] = order[last]
        done[par[last]] = np.maximum(done[par[last]], g.end[order[last]])
    return parent, last_child, done


def _enclosing_record(tl, rows, which):
    """For the records ``which`` (indices), the record whose slice encloses theirs (the
    nearest ancestor in the slices' nesting that is a record), or -1."""
    rec_of_row = np.full(len(tl.start), -1, dtype=np.int64)
    rec_of_row[rows] = np.arange(len(rows))
    up = tl.parent.astype(np.int64)
    at = up[rows[which]]
    out = np.full(len(which), -1, dtype=np.int64)
    todo = np.flatnonzero(at >= 0)
    while len(todo):
        r = rec_of_row[at[todo]]
        found = r >= 0
        out[todo[found]] = r[found]
        todo = todo[~found]
        at[todo] = up[at[todo]]
        todo = todo[at[todo] >= 0]
    return out


def _last_at_or_before(key_t, key_s, qt, qs):
    """For each query (thread qt, time qs): the index of the last row with the same
    thread and ``key_s <= qs`` (rows sorted by (key_t, key_s)); -1 if none."""
    if not len(key_t):
        return np.full(len(qt), -1, dtype=np.int64)
    # one sortable axis: thread * span + time (times relative to the earliest)
    lo = min(int(key_s.min()), int(qs.min()) if len(qs) else 0)
    span = max(int(key_s.max()), int(qs.max()) if len(qs) else 0) - lo + 1
    a = key_t * span + (key_s - lo)
    b = qt * span + (qs - lo)
    idx = np.searchsorted(a, b, side="right") - 1
    ok = idx >= 0
    ok[ok] &= key_t[idx[ok]] == qt[ok]
    return np.where(ok, idx, -1)
