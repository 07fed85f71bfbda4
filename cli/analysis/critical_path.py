"""The critical path of a profiled window: the chain of waits that set its wall time.

Walked backwards from the end of the window (the end of the last sync point, else of the
last slice). At an op: its run, then its queue wait (ready -> start), then what made it
ready: the binding predecessor (``depgraph``), or, if it was ready as soon as it was
pushed, the thread that pushed it, at its push time. On a Python thread (main thread,
custom-op threads): the time back to the thread's previous sync point is Python (pushing,
computing, ops run inline there); at the sync point, the op it waited for; inside a
custom call's ``pure_python`` slice, the call's own Python code, then the call's queue
and dependency waits like any op's.

A sync point *inside* a custom call (its ``forward`` reads an array: ``asnumpy``,
``wait_to_read``, ``asscalar``, ``waitall``) splits the call's slice: after the wait, the
call's own Python (``op``, the call's row); the wait itself is ``blocked`` (the call's
row, its cause the op it waited for), and the walk goes on through what it waited for,
or, if that was done already, through the call's Python before the wait. So a call's
Python is an ``op`` segment however often it syncs, and its waits are never mistaken for
the Python of the thread that pushed it.

Segments are contiguous in time; their kinds are ``op`` (a slice ran), ``queue`` (ready,
waiting for a worker or the custom-op pool), ``dependency`` (engine hand-off after the
binding predecessor finished, or a dependency on an op the trace does not hold),
``python`` (a driver thread between pushes) and ``blocked`` (a custom call's code
waiting at a sync point inside it).

Without dependency records (MXNet, PyTorch traces) :func:`serial_path` assumes every
slice of a thread waited for the previous one (HTA's assumption): the path is the
timeline of the thread whose last slice ends last, its gaps Python.
"""
from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right

import numpy as np

from xprof.mxcli.analysis.depgraph import Graph

OP, QUEUE, DEPENDENCY, PYTHON, BLOCKED = range(5)
KINDS = ("op", "queue", "dependency", "python", "blocked")


class Path:
    """Segments as parallel lists, earliest first: ``kind``, ``thread``, ``t0``, ``t1``,
    ``row`` (the slice of an ``op`` segment or of the op a queue/dependency wait belongs
    to; -1 for Python), ``cause`` (for an ``op`` segment entered from its predecessor:
    that predecessor's slice row; -1: pushed, or entered from a thread)."""

    def __init__(self):
        # typed arrays, not lists: a million-op path holds millions of segments
        self.kind, self.thread, self.t0, self.t1, self.row, self.cause = (
            array("q") for _ in range(6))
        self.window = (0, 0)
        # segments added since the last flush, as tuples (one append each, not six);
        # a walk reads and amends the latest ones here, and flushes between its steps
        self.pending = []

    def add(self, kind, thread, t0, t1, row=-1, cause=-1):
        if t1 > t0:
            self.pending.append((kind, thread, t0, t1, row, cause))

    def flush(self):
        """Move :attr:`pending` into the columns (in the order added)."""
        if self.pending:
            block = np.array(self.pending, dtype=np.int64)
            for j, col in enumerate((self.kind, self.thread, self.t0, self.t1, self.row,
                                     self.cause)):
                col.frombytes(np.ascontiguousarray(block[:, j]).tobytes())
            self.pending = []

    def finish(self):
        self.flush()
        for col in (self.kind, self.thread, self.t0, self.t1, self.row, self.cause):
            col.reverse()
        return self

    def __len__(self):
        return len(self.kind) + len(self.pending)

    @property
    def length(self):
        return int(np.frombuffer(self.t1, dtype=np.int64).sum()
                   - np.frombuffer(self.t0, dtype=np.int64).sum()) if len(self) else 0


def window(tl):
    """(start, end) of the profiled window in ns: first slice start to the end of the
    last sync point, or of the last slice when there is none."""
    if not len(tl.start):
        return 0, 0
    lo = int(tl.start.min())
    if len(tl.sync_slice):
        hi = int(tl.end[tl.sync_slice].max())
    else:
        hi = int(tl.end.max())
    return lo, hi


class _Walker:
    def __init__(self, tl, graph):
        self.tl, self.g = tl, graph
        g = graph
        self.lo, self.hi = window(tl)
        n_threads = len(tl.threads)
        # per thread: its records (timeline order = by start) and sync slices (by end)
        self.rec_by_thread = _group(g.thread, n_threads)
        self.rec_start = _ints(g.start)
        self.rec_end = _ints(g.end)
        self.rec_push = _ints(g.push)
        self.rec_ready = _ints(g.ready)
        self.rec_pusher = _ints(g.pusher)
        self.rec_thread = _ints(g.thread)
        self.rec_row = _ints(g.slice)
        self.pred = _ints(g.pred)
        self.done = _ints(g.done)
        self.rec_prefix_end = {}
        self.rec_starts = {}      # per thread, its records' starts (bisect on an array is
        self.rec_idx = {}         # far cheaper than numpy on one scalar)
        for t, idx in self.rec_by_thread.items():
            self.rec_prefix_end[t] = _ints(np.maximum.accumulate(g.end[idx]))
            self.rec_starts[t] = _ints(g.start[idx])
            self.rec_idx[t] = _ints(idx)
        sync_thread = tl.thread[tl.sync_slice].astype(np.int64)
        self.sync_by_thread = {}
        for t, idx in _group(sync_thread, n_threads).items():
            rows = tl.sync_slice[idx]
            o = np.argsort(tl.end[rows], kind="stable")
            self.sync_by_thread[t] = (_ints(idx[o]), _ints(tl.end[rows][o]),
                                      _ints(tl.start[rows][o]))

    # -- helpers ------------------------------------------------------------------------
    def enclosing(self, th, t):
        """The innermost record on thread ``th`` running at ``t`` (start < t <= end)."""
        idx = self.rec_idx.get(th)
        if idx is None:
            return -1
        k = bisect_left(self.rec_starts[th], t) - 1
        if k < 0 or self.rec_prefix_end[th][k] < t:
            return -1
        while k >= 0:
            r = idx[k]
            if self.rec_end[r] >= t:
                return r
            k -= 1
        return -1

    def last_sync(self, th, t):
        """The sync point of ``th`` that ended last at or before ``t`` (index into
        ``sync_*``), or -1."""
        found = self.sync_by_thread.get(th)
        if found is None:
            return -1
        idx, ends, starts = found
        k = bisect_right(ends, t) - 1
        while k >= 0 and starts[k] >= t:     # one that ends at t but took no time
            k -= 1
        return idx[k] if k >= 0 else -1

    def region(self, path, th, lo, hi, kind, row, skip=-1):
        """Emit [lo, hi] on thread ``th`` as ``kind`` except where a record of ``th``
        (not ``skip``) ran wholly inside it: those are ``op`` segments of their own."""
        starts = self.rec_starts.get(th)
        inner = None
        if starts is not None:
            a = bisect_left(starts, lo)
            b = bisect_left(starts, hi, a)
            if b == a + 1 and self.rec_idx[th][a] == skip:   # only the op itself
                pass
            elif b > a:
                idx = self.rec_by_thread[th]
                cand = idx[a:b]
                cand = cand[(self.g.end[cand] <= hi) & (cand != skip)]
                if skip >= 0 and len(cand):
                    # records of the very same span as the one expanded nest by index
                    # (the later inside the earlier), never both ways: no endless descent
                    same = (self.g.start[cand] == lo) & (self.g.end[cand] == hi)
                    cand = cand[~same | (cand > skip)]
                if len(cand):
                    ends = self.g.end[cand]
                    prev = np.r_[lo, np.maximum.accumulate(ends)[:-1]]
                    inner = cand[self.g.start[cand] >= prev]      # top level only
        if inner is None or not len(inner):
            path.add(kind, th, lo, hi, row)
            return
        # backwards: gap after the last inner op, the op, gap before it, ...
        cur = hi
        rs, re_, rows = self.rec_start, self.rec_end, self.rec_row
        for r in inner[::-1].tolist():
            path.add(kind, th, re_[r], cur, row)
            self.region(path, th, rs[r], re_[r], OP, rows[r], skip=r)   # ops nested in it
            cur = rs[r]
        path.add(kind, th, lo, cur, row)

    # -- the walk ---------------------------------------------------------------------------
    def walk(self):
        tl, g = self.tl, self.g
        path = Path()
        path.window = (self.lo, self.hi)
        if self.hi <= self.lo:
            return path.finish()
        # the end point: the last sync point's thread, else the last slice
        if len(tl.sync_slice):
            row = int(tl.sync_slice[np.argmax(tl.end[tl.sync_slice])])
        else:
            row = int(np.argmax(tl.end))
        state = ("thread", int(tl.thread[row]), self.hi)
        if not len(tl.sync_slice):
            k = int(np.searchsorted(g.slice, row))
            if k < len(g) and int(g.slice[k]) == row:
                state = ("op", k, self.hi, -1)
        lo = self.lo
        sync_start = tl.start[tl.sync_slice].tolist()
        sync_end = tl.end[tl.sync_slice].tolist()
        sync_all = tl.sync_all.tolist()
        rec_end, rec_row = self.rec_end, self.rec_row
        last = self.hi + 1   # each step must go back in time (guards inconsistent input)
        stalled = 0          # steps in a row that did not (a thread entering its op: one)
        while stalled < 2 and state[2] <= last:
            stalled = stalled + 1 if state[2] == last else 0
            last = state[2]
            if state[0] == "op":
                _, r, upto, _ = state
                th = self.rec_thread[r]
                start = self.rec_start[r]
                row = rec_row[r]
                if len(path.pending) >= 65536:   # a bounded list of tuples
                    path.flush()
                pending = path.pending
                s = self.last_sync(th, upto)
                if s >= 0 and sync_end[s] > start and sync_end[s] > lo:
                    # a sync point inside the record (a custom call's code waiting):
                    # its code after the wait, the wait, then what the wait needed
                    s_end, begin = sync_end[s], sync_start[s]
                    self.region(path, th, s_end, upto, OP, row, skip=r)
                    c = g.waited_all(begin) if sync_all[s] else g.waited(
                        begin, tl.sync_vars[tl.sync_var_start[s]:tl.sync_var_start[s + 1]].tolist())
                    if c >= 0 and self.done[c] > begin and c != r:
                        tgt = g.target(c)
                        path.add(BLOCKED, th, max(min(self.done[c], s_end), lo), s_end, row,
                                 rec_row[tgt])
                        state = ("op", tgt, min(rec_end[tgt], s_end), -1)
                        continue
                    path.add(BLOCKED, th, max(begin, lo), s_end, row)
                    if begin <= lo:
                        break
                    state = ("op", r, begin, -1)
                    continue
                mark = len(pending)
                self.region(path, th, max(start, lo), upto, OP, row, skip=r)
                if len(pending) > mark and pending[-1][4] == row:   # the usual last one
                    own = len(pending) - 1
                else:
                    own = next((k for k in range(len(pending) - 1, mark - 1, -1)
                                if pending[k][4] == row), -1)
                if start <= lo:
                    break
                ready, push = self.rec_ready[r], self.rec_push[r]
                path.add(QUEUE, th, max(ready, lo), start, row)
                if ready <= lo:
                    break
                p = self.pred[r]
                if ready > push and p >= 0 and self.done[p] > push:
                    t = g.target(p)
                    path.add(DEPENDENCY, th, max(min(self.done[p], ready), lo), ready, row)
                    if own >= 0:
                        pending[own] = pending[own][:5] + (rec_row[t],)
                    state = ("op", t, min(rec_end[t], ready), -1)
                    continue
                path.add(DEPENDENCY, th, max(push, lo), ready, row)
                if push <= lo:
                    break
                state = ("thread", self.rec_pusher[r], push)
                continue
            _, th, t = state
            e = self.enclosing(th, t)
            if e >= 0:   # inside a record (syncs within it: the op state's)
                state = ("op", e, t, -1)
                continue
            s = self.last_sync(th, t)
            s_end = sync_end[s] if s >= 0 else None
            if s_end is not None and s_end > lo:
                e = self.enclosing(th, s_end + 1)
                if e >= 0 and self.rec_end[e] <= t and self.rec_start[e] < s_end:
                    # that sync was inside a record which ended since (a custom call
                    # run inline, NaiveEngine): Python after it, then the record's own
                    self.region(path, th, self.rec_end[e], t, PYTHON, -1)
                    state = ("op", e, self.rec_end[e], -1)
                    continue
            if s_end is None or s_end <= lo:
                self.region(path, th, lo, t, PYTHON, -1)
                break
            self.region(path, th, s_end, t, PYTHON, -1)
            srow = int(tl.sync_slice[s])
            begin = sync_start[s]
            c = g.waited_all(begin) if sync_all[s] else g.waited(
                begin, tl.sync_vars[tl.sync_var_start[s]:tl.sync_var_start[s + 1]].tolist())
            if c >= 0 and self.done[c] > begin:
                tgt = g.target(c)
                path.add(DEPENDENCY, th, max(min(self.done[c], s_end), lo), s_end, srow)
                state = ("op", tgt, min(rec_end[tgt], s_end), -1)
                continue
            path.add(PYTHON, th, max(begin, lo), s_end, -1)
            if begin <= lo:
                break
            state = ("thread", th, begin)
        return path.finish()


def _ints(a):
    """An int64 column as an ``array('q')``: indexed and bisected as cheaply as a list,
    8 bytes an item instead of a Python int's ~36 (a million-op walk keeps a dozen)."""
    return array("q", np.ascontiguousarray(a, dtype=np.int64).tobytes())


def _group(keys, n):
    """{key: indices with that key, in order}."""
    if not len(keys):
        return {}
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    bounds = np.flatnonzero(np.r_[True, k[1:] != k[:-1], True])
    return {int(k[bounds[i]]): order[bounds[i]:bounds[i + 1]] for i in range(len(bounds) - 1)}


def dependency_path(tl, graph=None):
    """The critical path through the recorded dependencies (:class:`Path`)."""
    return _Walker(tl, graph if graph is not None else Graph(tl)).walk()


def serial_path(tl):
    """The critical path when the slices of a thread are assumed to run one after the
    other: on the thread that ends last (of the threads ending in the last 1% of the
    window, the one with the most slices: a trace-wide annotation span is not the
    work), its innermost slices are ``op`` segments and the time between them Python."""
    path = Path()
    lo, hi = window(tl)
    path.window = (lo, hi)
    if hi <= lo:
        return path.finish()
    bounds = np.flatnonzero(np.r_[True, tl.thread[1:] != tl.thread[:-1], True])
    best = None
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        last = int(tl.end[a:b].max())
        if last >= hi - (hi - lo) // 100 and (best is None or b - a > best[1] - best[0]):
            best = (a, b)
    a, b = best
    th = int(tl.thread[a])
    start, end = tl.start[a:b], tl.end[a:b]
    leaf = np.r_[start[1:] >= end[:-1], True]          # no slice nested inside it
    rows = np.arange(a, b)[leaf]
    prev = np.r_[lo, np.maximum.accumulate(tl.end[rows])[:-1]]
    rows = rows[tl.start[rows] >= prev]
    # earliest first: Python before each op (from the previous op's end, or the window's
    # start), the op, and Python after the last one; empty segments left out (Path.add)
    s, e = tl.start[rows], tl.end[rows]
    n = len(rows)
    kind = np.empty(2 * n + 1, dtype=np.int64)
    kind[0:-1:2], kind[1::2], kind[-1] = PYTHON, OP, PYTHON
    t0 = np.empty(2 * n + 1, dtype=np.int64)
    t1 = np.empty(2 * n + 1, dtype=np.int64)
    t0[0], t0[2::2] = lo, e
    t1[0:-1:2] = s
    t1[-1] = hi
    t0[1::2], t1[1::2] = s, e
    row = np.full(2 * n + 1, -1, dtype=np.int64)
    row[1::2] = rows
    keep = t1 > t0
    for col, values in ((path.kind, kind), (path.thread, np.full(2 * n + 1, th)),
                        (path.t0, t0), (path.t1, t1), (path.row, row),
                        (path.cause, np.full(2 * n + 1, -1))):
        col.frombytes(np.ascontiguousarray(values[keep], dtype=np.int64).tobytes())
    return path
