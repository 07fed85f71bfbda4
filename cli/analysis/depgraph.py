"""The engine's dependency graph, rebuilt from the variables each recorded op read and wrote.

Why rebuild rather than record edges: the engine knows variables, not edges, and writing
variable ids costs it nothing extra. Its rule is MXNet's: in push order, a read waits for
the last earlier write of the variable, and a write waits for that write and for every
read since it. Replaying that rule over the records gives each op its predecessors; the
critical path needs only the *binding* one, the predecessor that finished last (its
completion made the op ready). Everything here is vectorized: a million ops in well under
a second.

A custom operator's call is recorded on its ``pure_python`` slice; the call completes
only when the sub-operators its Python code pushed have run, so its *completion* is the
latest end among itself and its children (records pushed from its thread while it ran).
"""
from __future__ import annotations

import numpy as np


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
        self.parent, self.last_child, self.done = _children(self)
        self.order = np.argsort(self.push, kind="stable")   # push order
        self.occ = _occurrences(tl.dep_vars, tl.dep_var_start, self.order, self.push)
        self.pred = _binding(self)

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


def _children(g):
    """(parent, last_child, done): a record pushed from thread T while a record of T was
    running (a custom call's Python code pushing sub-operators) is that record's child."""
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


def _occurrences(values, starts, order, push):
    """(var, is_write, record, push time) of every variable use, sorted by variable,
    then push order of the record."""
    counts = np.diff(starts)
    rec = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    var = np.abs(values)
    srt = np.lexsort((rank[rec], var))
    return var[srt], values[srt] < 0, rec[srt], push[rec[srt]]


def _binding(g):
    """The binding predecessor of every record: of the ops its variables made it wait
    for, the one completing last; -1 if it waited for none."""
    var, write, rec, _ = g.occ
    n = len(var)
    pred = np.full(len(g.slice), -1, dtype=np.int64)
    if not n:
        return pred
    pos = np.arange(n)
    first = np.r_[True, var[1:] != var[:-1]]
    group_start = np.maximum.accumulate(np.where(first, pos, 0))
    last_w = np.maximum.accumulate(np.where(write, pos, -1))
    prev_w = np.r_[-1, last_w[:-1]]
    prev_w = np.where(prev_w >= group_start, prev_w, -1)     # last write before, same var
    cand_rec, cand_pred = [], []
    has = prev_w >= 0
    cand_rec.append(rec[has])                                # RAW and WAW
    cand_pred.append(rec[prev_w[has]])
    # WAR: a write waits for the reads since the previous write (a run of reads)
    is_read = ~write
    run_break = first | write
    run_id = np.cumsum(run_break)                            # reads after a break share it
    reads = np.flatnonzero(is_read)
    if len(reads):
        done = g.done[rec[reads]]
        o = np.lexsort((done, run_id[reads]))
        rr = reads[o]
        rid = run_id[rr]
        last = np.r_[rid[1:] != rid[:-1], True]
        best_of_run = np.full(int(run_id[-1]) + 1, -1, dtype=np.int64)
        best_of_run[rid[last]] = rec[rr[last]]
        w = np.flatnonzero(write & ~first)
        w = w[is_read[w - 1]]                                # a read run right before it
        if len(w):
            runs = run_id[w - 1]
            cand_rec.append(rec[w])
            cand_pred.append(best_of_run[runs])
    cr = np.concatenate(cand_rec)
    cp = np.concatenate(cand_pred)
    # a predecessor completes before its successor is ready; one that does not (clock
    # skew, an inconsistent trace) cannot be what made it ready
    keep = (cr != cp) & (g.done[cp] <= g.ready[cr])
    cr, cp = cr[keep], cp[keep]
    if not len(cr):
        return pred
    o = np.lexsort((g.done[cp], cr))
    cr, cp = cr[o], cp[o]
    last = np.r_[cr[1:] != cr[:-1], True]
    pred[cr[last]] = cp[last]
    return pred
