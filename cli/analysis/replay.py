"""A profiled run replayed from its trace alone: what-if predictions (``xprof explain
--what-if``).

Why a replay and not a share of time: the engine runs ops in parallel, so making an op
twice as fast gains nothing while it has slack and only until another path takes over.
The replay (Daydream's idea, USENIX ATC 2020, on xprof's own records) re-runs the
recorded work with changed durations and lets the waits follow:

* **programs**: each thread that pushes ops (the main thread, a custom-op call's body)
  replays its recorded actions in order: pushes, ops it ran at once (NaiveEngine, the
  inline policy), sync points (``waitall``, ``wait_to_read``, ``asnumpy``), with the
  Python time measured between them;
* **ops**: an op is *ready* when it was pushed and every op its variables made it wait
  for (the engine's rule, :mod:`xprof.traces.depgraph`: all its predecessors, not only
  the binding one) has completed, plus the hand-off the engine took in the recording;
  it then takes a thread of its pool (the engine's workers; the custom-op pool for a
  custom-op call, whose body is a program of its own) and runs for its measured
  duration; a call completes when its body and its sub-operators have;
* **sync points** hold their thread until what they waited for (recorded) is done, and
  wake up with the recorded delay.

Pool sizes are the trace's recorded settings (``otherData.settings``), else the threads
seen. Unchanged, the replay reproduces the recorded wall time (the known answers,
``tests/cli/test_replay.py``); where it is wrong: ops keep their recorded durations
(no cache or memory-bandwidth effects when others speed up, and the GIL's contention
stays as recorded), a worker is picked freely (the recorded run's affinities are not
kept), and an op that ran at once on its pushing thread is still run there when its
inputs are ready in time, else queued for a worker. docs/dependencies.md ("What if").

Everything here is a plain function of a :class:`~xprof.traces.model.Trace` (no engine,
no threads): :func:`model_of` builds the run once, :func:`replay` runs it with
:class:`Change` s applied.
"""
from __future__ import annotations

import heapq
from bisect import bisect_right
from dataclasses import dataclass, field

import numpy as np

from xprof.traces.names import PURE_PYTHON

from xprof.mxcli.analysis.depgraph import Graph

INLINE, WORKER, CALL = 0, 1, 2
PUSH, RUN, SYNC = 0, 1, 2     # a program's actions


@dataclass
class Program:
    """One thread's recorded work in order: ``actions`` ``(kind, index)`` (``PUSH`` or
    ``RUN`` a record, ``SYNC`` a sync point), ``gaps`` the Python time before each
    (ns), ``tail`` the Python time after the last (a call's body)."""

    actions: list
    gaps: list
    tail: int = 0
    driver: bool = False      # a thread's own program (not a call's body)
    lead: int = 0             # a thread's first action this long before the window


@dataclass
class Model:
    """The run as the replay sees it (see the module docstring)."""

    tl: object
    graph: object
    kind: np.ndarray           # per record: INLINE, WORKER or CALL
    dur: np.ndarray            # per record: its run time (ns)
    handoff: np.ndarray        # ready - (push or its predecessors' completion), ns
    lag_idle: np.ndarray       # start - ready with a free thread (ns)
    lag_busy: np.ndarray       # start - its thread's previous op's end when it waited
    preds: list                # per record: its predecessors (records)
    succs: list                # per record: the records it precedes
    bodies: dict               # record -> Program (a call's body, an inline call's too)
    drivers: dict              # thread -> Program
    sync_wait: list            # per sync point: the records it waited for (tuple)
    sync_all: np.ndarray       # per sync point: WaitForAll of a driver (prefix wait)
    sync_prefix: np.ndarray    # for those: how many records (in push order) it waited for
    sync_wake: np.ndarray      # its recorded wake-up after what it waited for (ns)
    push_order: np.ndarray     # records by recorded push
    workers: int
    custom_pool: int
    pool_threads: dict         # WORKER/CALL -> the recorded threads of that pool (indices)
    lo: int                    # the recorded window
    hi: int
    end_sync: int              # the sync point ending the window (-1: the last record)
    layer: list = field(default_factory=list)   # per record: its layer name, or None


def model_of(tl, graph=None, layers=None):
    """The :class:`Model` of a trace with dependency records (``layers``: the layer name
    per record, or None)."""
    g = graph if graph is not None else Graph(tl)
    n = len(g)
    th, pusher = g.thread.astype(np.int64), g.pusher.astype(np.int64)
    start, end, push, ready = (np.asarray(c, dtype=np.int64)
                               for c in (g.start, g.end, g.push, g.ready))
    names = tl.names
    suffix = "::" + PURE_PYTHON
    is_call_name = np.array([x.endswith(suffix) for x in names] or [False], dtype=bool)
    has_kids = np.zeros(n, dtype=bool)
    has_kids[g.parent[g.parent >= 0]] = True
    kind = np.full(n, WORKER, dtype=np.int64)
    kind[is_call_name[g.name] | has_kids] = CALL
    kind[th == pusher] = INLINE          # run at once where it was pushed
    preds, succs = _edges(g, n)
    # the hand-off: ready - max(push, predecessors' completion) in the recording
    base = push.copy()
    for i in range(n):
        for p in preds[i]:
            if g.done[p] > base[i]:
                base[i] = g.done[p]
    handoff = np.clip(ready - base, 0, None)
    handoff[kind == INLINE] = 0
    lag_idle, lag_busy = _lags(th, start, end, ready, kind)
    lo, hi = _window(tl)
    sync_rows = tl.sync_slice
    s_thread = tl.thread[sync_rows].astype(np.int64)
    s_start, s_end = tl.start[sync_rows], tl.end[sync_rows]
    bodies, drivers, owner = _programs(g, kind, th, start, end, push, pusher, s_thread,
                                       s_start, s_end, lo)
    push_order = np.argsort(push, kind="stable")
    pushed_sorted = push[push_order]
    n_sync = len(sync_rows)
    sync_wait, sync_prefix = [], np.zeros(n_sync, dtype=np.int64)
    sync_all = np.zeros(n_sync, dtype=bool)
    wake = np.zeros(n_sync, dtype=np.int64)
    for s in range(n_sync):
        b, e = int(s_start[s]), int(s_end[s])
        if tl.sync_all[s] and owner[s] < 0:   # a driver's waitall: everything pushed
            k = int(np.searchsorted(pushed_sorted, b, side="left"))
            sync_all[s], sync_prefix[s] = True, k
            waited = push_order[:k]
            sync_wait.append(())
        else:
            if tl.sync_all[s]:   # inside a call: what completed while it waited
                waited = push_order[:int(np.searchsorted(pushed_sorted, b, side="left"))]
                waited = waited[g.done[waited] <= e]
            else:
                var_list = tl.sync_vars[tl.sync_var_start[s]:tl.sync_var_start[s + 1]]
                waited = np.array(_last_writers(g, b, var_list.tolist()), dtype=np.int64)
            sync_wait.append(tuple(int(x) for x in waited))
        last = int(g.done[waited].max()) if len(waited) else b
        wake[s] = max(0, e - max(b, last))
    settings = getattr(tl, "settings", {}) or {}
    seen_workers = len(set(th[kind == WORKER].tolist())) or 1
    seen_custom = len(set(th[kind == CALL].tolist())) or 1
    workers = settings.get("XPROF_CPU_WORKER_NTHREADS")
    custom_pool = settings.get("XPROF_CUSTOM_OP_NUM_THREADS")
    end_sync = int(np.argmax(s_end)) if n_sync else -1
    pool_threads = {k: sorted(set(th[kind == k].tolist())) for k in (WORKER, CALL)}
    return Model(tl, g, kind, end - start, handoff, lag_idle, lag_busy, preds, succs,
                 bodies, drivers, sync_wait, sync_all, sync_prefix, wake, push_order,
                 workers if type(workers) is int and workers > 0 else seen_workers,
                 custom_pool if type(custom_pool) is int and custom_pool > 0 else seen_custom,
                 pool_threads, lo, hi, end_sync,
                 list(layers) if layers is not None else [None] * n)


def _window(tl):
    from xprof.mxcli.analysis.critical_path import window
    return window(tl)


def _edges(g, n):
    """Every predecessor of each record by the engine's rule (a read waits for the last
    earlier write; a write for that write and every read since), as lists."""
    var, write, rec, _ = g.occ
    preds = [set() for _ in range(n)]
    if len(var):
        first = np.r_[True, var[1:] != var[:-1]]
        pos = np.arange(len(var))
        group_start = np.maximum.accumulate(np.where(first, pos, 0))
        last_w = np.maximum.accumulate(np.where(write, pos, -1))
        prev_w = np.r_[-1, last_w[:-1]]
        prev_w = np.where(prev_w >= group_start, prev_w, -1)
        for k in np.flatnonzero(prev_w >= 0).tolist():       # RAW and WAW
            preds[int(rec[k])].add(int(rec[prev_w[k]]))
        # WAR: each read precedes the next write of its variable
        nxt = np.full(len(var), -1, dtype=np.int64)
        w = np.flatnonzero(write)
        if len(w):
            idx = np.searchsorted(w, pos, side="right")
            ok = idx < len(w)
            cand = np.where(ok, w[np.minimum(idx, len(w) - 1)], -1)
            group_end = np.r_[np.flatnonzero(first)[1:], len(var)]
            gid = np.cumsum(first) - 1
            ok &= cand < group_end[gid]
            nxt = np.where(ok, cand, -1)
        for k in np.flatnonzero(~write & (nxt >= 0)).tolist():
            preds[int(rec[nxt[k]])].add(int(rec[k]))
    succs = [[] for _ in range(n)]
    out = []
    for i, ps in enumerate(preds):
        ps.discard(i)
        out.append(tuple(ps))
        for p in ps:
            succs[p].append(i)
    return out, succs


def _lags(th, start, end, ready, kind):
    """Per record, the dispatch delay when its thread was free at ``ready``
    (``lag_idle``) and after its thread's previous op when it was not (``lag_busy``);
    the kind that did not happen to it is the median of the records it happened to."""
    n = len(th)
    lag_idle = np.zeros(n, dtype=np.int64)
    lag_busy = np.zeros(n, dtype=np.int64)
    busy = np.zeros(n, dtype=bool)
    order = np.lexsort((start, th))
    prev_end = np.full(n, -1, dtype=np.int64)
    same = th[order][1:] == th[order][:-1]
    prev_end[order[1:][same]] = end[order][:-1][same]
    waited = prev_end > ready
    busy[:] = waited
    lag_idle[:] = np.clip(start - ready, 0, None)
    lag_busy[:] = np.clip(start - np.maximum(prev_end, ready), 0, None)
    for k in (WORKER, CALL):
        sel = kind == k
        idle_med = int(np.median(lag_idle[sel & ~busy])) if (sel & ~busy).any() else 0
        busy_med = int(np.median(lag_busy[sel & busy])) if (sel & busy).any() else idle_med
        lag_idle[sel & busy] = min(idle_med, 1_000_000)
        lag_busy[sel & ~busy] = busy_med
    lag_idle[kind == INLINE] = 0
    lag_busy[kind == INLINE] = 0
    return lag_idle, lag_busy


def _last_writers(g, begin, var_list):
    """The records a ``WaitForVar`` begun at ``begin`` waited for: the last write of each
    variable pushed before it."""
    out = []
    var, write, rec, push = g.occ
    for v in var_list:
        lo, hi = np.searchsorted(var, [v, v + 1])
        if lo == hi:
            continue
        w = np.flatnonzero(write[lo:hi] & (push[lo:hi] < begin))
        if len(w):
            out.append(int(rec[lo + w[-1]]))
    return out


def _programs(g, kind, th, start, end, push, pusher, s_thread, s_start, s_end, lo):
    """``(bodies, drivers, owner)``: the programs of the calls (and inline records with
    work inside them), of the threads that push ops, and per sync point the record whose
    body holds it (-1: its thread's own program)."""
    n = len(th)
    # the record each sync point is inside (innermost of its thread), if any
    owner = np.full(len(s_thread), -1, dtype=np.int64)
    by_thread = {}
    for i in np.lexsort((start, th)).tolist():
        by_thread.setdefault(int(th[i]), []).append(i)
    starts = {t: [int(start[i]) for i in rows] for t, rows in by_thread.items()}
    for s in range(len(s_thread)):
        t = int(s_thread[s])
        rows = by_thread.get(t)
        if not rows:
            continue
        k = bisect_right(starts[t], int(s_start[s])) - 1
        while k >= 0:
            r = rows[k]
            if int(end[r]) >= int(s_end[s]) and int(start[r]) <= int(s_start[s]):
                owner[s] = r
                break
            k -= 1
    items = {}          # container (record, or -1 - thread) -> [(t, order, kind, index)]
    for i in range(n):
        p = int(g.parent[i])
        box = p if p >= 0 else -1 - int(pusher[i])
        if kind[i] == INLINE:
            items.setdefault(box, []).append((int(start[i]), 1, RUN, i, int(end[i])))
        else:
            items.setdefault(box, []).append((int(push[i]), 1, PUSH, i, int(push[i])))
    for s in range(len(s_thread)):
        r = int(owner[s])
        box = r if r >= 0 else -1 - int(s_thread[s])
        items.setdefault(box, []).append((int(s_start[s]), 0, SYNC, s, int(s_end[s])))
    bodies, drivers = {}, {}
    for box, acts in items.items():
        acts.sort()
        lead = 0
        if box >= 0:
            t, stop = int(start[box]), int(end[box])
        else:
            t, stop = lo, None
            if acts and acts[0][0] < lo:   # pushed before the window's first slice
                lead = lo - acts[0][0]
                t = acts[0][0]
        actions, gaps = [], []
        for at, _, k, idx, after in acts:
            gaps.append(max(0, at - t))
            actions.append((k, idx))
            t = max(t, after)
        prog = Program(actions, gaps, max(0, stop - t) if stop is not None else 0,
                       driver=box < 0, lead=lead)
        if box >= 0:
            bodies[box] = prog
        else:
            drivers[-1 - box] = prog
    # a call with no action inside still has a body: its Python, whole
    for i in np.flatnonzero(kind == CALL).tolist():
        if i not in bodies:
            bodies[i] = Program([], [], int(end[i] - start[i]))
    return bodies, drivers, owner


# -- what changes --------------------------------------------------------------------------
@dataclass
class Change:
    """One what-if: records matching ``match`` (a predicate over record indices: a boolean
    array) take ``factor`` times their time plus ``add`` ns; ``python`` scales the
    drivers' Python time instead; ``workers``/``custom_pool`` set a pool's size."""

    spec: str
    records: np.ndarray = None    # bool per record: its run time changes
    bodies: np.ndarray = None     # bool per record: its body's Python changes
    factor: float = 1.0
    add: int = 0
    python: bool = False
    workers: int = None
    custom_pool: int = None


@dataclass
class Result:
    """A replay: ``wall`` (ns, the window's length), per record its simulated ``start``,
    ``end``, ``done``, ``push``, ``ready`` (ns), per sync point its ``sync_start`` and
    ``sync_end``."""

    wall: int
    thread: np.ndarray         # per record, the thread that ran it (its pool's slot)
    start: np.ndarray
    end: np.ndarray
    done: np.ndarray
    push: np.ndarray
    ready: np.ndarray
    sync_start: np.ndarray
    sync_end: np.ndarray
    stalled: int = 0    # records that never completed (an inconsistent trace: a cycle)


def replay(model, changes=()):
    """Run the model with ``changes`` applied; the :class:`Result`."""
    return _Sim(model, changes).run()


class _Sim:
    def __init__(self, m, changes):
        self.m = m
        n = len(m.kind)
        dur = m.dur.astype(np.float64)
        body_scale = np.ones(n)
        body_add = np.zeros(n)
        py_scale = 1.0
        workers, custom = m.workers, m.custom_pool
        for c in changes:
            if c.workers is not None:
                workers = c.workers
            if c.custom_pool is not None:
                custom = c.custom_pool
            if c.python:
                py_scale *= c.factor
            if c.records is not None:
                sel = c.records & ~(c.bodies if c.bodies is not None else False)
                dur[sel] = dur[sel] * c.factor + c.add
            if c.bodies is not None:
                body_scale[c.bodies] *= c.factor
                body_add[c.bodies] += c.add
        self.dur = np.maximum(dur, 0).astype(np.int64)
        self.body_scale, self.body_add, self.py_scale = body_scale, body_add, py_scale
        # per pool: [free slots (thread keys, lowest first), queue]; a slot is a recorded
        # thread of the pool, then new ones ("+k") where a what-if adds threads
        self.pools = {}
        for k, size in ((WORKER, workers), (CALL, custom)):
            known = m.pool_threads.get(k, [])
            slots = [known[j] if j < len(known) else ("+", k, j) for j in range(size)]
            self.pools[k] = [slots[::-1], []]
        self.t_thread = [None] * n
        self.t_push = np.full(n, -1, dtype=np.int64)
        self.t_ready = np.full(n, -1, dtype=np.int64)
        self.t_start = np.full(n, -1, dtype=np.int64)
        self.t_end = np.full(n, -1, dtype=np.int64)
        self.t_done = np.full(n, -1, dtype=np.int64)
        self.waiting = np.array([len(p) for p in m.preds], dtype=np.int64)
        self.pred_done = np.zeros(n, dtype=np.int64)
        self.kids_left = np.zeros(n, dtype=np.int64)
        parent = m.graph.parent
        for i in np.flatnonzero(parent >= 0).tolist():
            self.kids_left[parent[i]] += 1
        self.body_end = np.full(n, -1, dtype=np.int64)
        ns = len(m.sync_wait)
        self.s_start = np.full(ns, -1, dtype=np.int64)
        self.s_end = np.full(ns, -1, dtype=np.int64)
        self.events = []
        self.seq = 0
        # waits: per record, the sync points whose wait it holds up
        self.blocking = {}
        self.sync_left = np.zeros(ns, dtype=np.int64)
        self.sync_last = np.zeros(ns, dtype=np.int64)
        self.sync_resume = {}
        # WaitForAll of drivers: the push-order frontier of completed records
        self.rank = np.empty(n, dtype=np.int64)
        self.rank[m.push_order] = np.arange(n)
        self.frontier = 0
        self.front_max = m.lo
        self.all_done = np.zeros(n, dtype=bool)
        self.prefix_waits = []      # heap of (k, seq, sync, resume)
        self.prefix_max = np.zeros(n + 1, dtype=np.int64)

    # -- the event loop --------------------------------------------------------------
    def at(self, t, fn, *args):
        self.seq += 1
        heapq.heappush(self.events, (int(t), self.seq, fn, args))

    def run(self):
        m = self.m
        self.driver_thread = {id(prog): th for th, prog in m.drivers.items()}
        for prog in m.drivers.values():   # (a push may come before the window's first slice)
            self._continue(m.lo - prog.lead, prog, 0, None)
        while self.events:
            t, _, fn, args = heapq.heappop(self.events)
            fn(t, *args)
        if m.end_sync >= 0 and self.s_end[m.end_sync] >= 0:
            hi = int(self.s_end[m.end_sync])
        else:
            hi = int(max(self.t_end.max(initial=m.lo), self.t_done.max(initial=m.lo)))
        return Result(hi - m.lo, self.t_thread, self.t_start, self.t_end, self.t_done,
                      self.t_push, self.t_ready, self.s_start, self.s_end,
                      int(np.count_nonzero(self.t_done < 0)))

    # -- programs ----------------------------------------------------------------------
    def step_at(self, t, prog, k, owner):
        """Action ``k`` of ``prog`` at ``t`` (its gap already waited)."""
        kind, idx = prog.actions[k]
        if kind == PUSH:
            self.pushed(idx, t)
        elif kind == RUN:
            if self.inputs_done(idx):
                t2 = self.run_inline(idx, t, prog, k, owner)
                if t2 is None:
                    return
                t = t2
            else:
                self.pushed(idx, t)
        else:
            if not self.sync_begin(idx, t, prog, k, owner):
                return
            t = int(self.s_end[idx])
        self._continue(t, prog, k + 1, owner)

    def thread_of(self, prog, owner):
        """The thread a program runs on: its own thread's, or its owner's."""
        if owner is None:
            return self.driver_thread[id(prog)]
        return self.t_thread[owner]

    def _continue(self, t, prog, k, owner):
        if k >= len(prog.actions):
            self.program_end(t + self._tail(prog, owner), prog, owner, tail_done=True)
            return
        gap = int(prog.gaps[k] * (self.py_scale if owner is None else self.body_scale[owner]))
        self.at(t + gap, self.step_at, prog, k, owner)

    def _tail(self, prog, owner):
        if owner is None:
            return 0
        return int(prog.tail * self.body_scale[owner])

    def program_end(self, t, prog, owner, tail_done=False):
        """The program's last action is done at ``t``: a body's record ends after its
        trailing Python (a thread's own program just stops)."""
        if owner is None:
            return
        if not tail_done:
            t += self._tail(prog, owner)
        self.body_finished(owner, t + int(self.body_add[owner]))

    # -- records -----------------------------------------------------------------------
    def inputs_done(self, i):
        return self.waiting[i] == 0

    def pushed(self, i, t):
        self.t_push[i] = t
        if self.waiting[i] == 0:
            self.make_ready(i, max(t, int(self.pred_done[i])))

    def make_ready(self, i, t):
        m = self.m
        t = t + int(m.handoff[i])
        self.t_ready[i] = t
        kind = m.kind[i]
        if kind == INLINE:   # (pushed here when it could not run inline: a worker's)
            kind = WORKER
        pool = self.pools[kind]
        if pool[0]:
            self.t_thread[i] = pool[0].pop()
            self.at(t + int(m.lag_idle[i]), self.begin, i, kind)
        else:
            heapq.heappush(pool[1], (int(self.rank[i]), i))

    def begin(self, t, i, kind):
        self.t_start[i] = t
        if kind == CALL:
            body = self.m.bodies.get(i)
            if body is not None:
                self._continue_body(t, body, i)
                return
        self.at(t + int(self.dur[i]), self.finish, i, kind)

    def _continue_body(self, t, body, i):
        if body.actions:
            gap = int(body.gaps[0] * self.body_scale[i])
            self.at(t + gap, self.step_at, body, 0, i)
        else:
            self.body_finished(i, t + self._tail(body, i) + int(self.body_add[i]))

    def body_finished(self, i, t):
        """The Python of record ``i`` (a call's body, or an inline record's) ended."""
        m = self.m
        self.t_end[i] = t
        self.body_end[i] = t
        if m.kind[i] == CALL:
            self.release(CALL, t, self.t_thread[i])
        else:
            resume = self.sync_resume.pop(("inline", i), None)
            if resume is not None:
                prog, k, owner = resume
                self._continue(t, prog, k + 1, owner)
        self.maybe_done(i, t)

    def finish(self, t, i, kind):
        self.t_end[i] = t
        self.release(kind, t, self.t_thread[i])
        self.maybe_done(i, t)

    def release(self, kind, t, slot):
        pool = self.pools[kind]
        if pool[1]:
            _, j = heapq.heappop(pool[1])
            self.t_thread[j] = slot
            start = max(t + int(self.m.lag_busy[j]), int(self.t_ready[j]))
            self.at(start, self.begin, j, kind)
        else:
            pool[0].append(slot)

    def run_inline(self, i, t, prog, k, owner):
        """Run record ``i`` at once on the program's thread; its end (None when its body
        runs as events: the program resumes after it)."""
        m = self.m
        self.t_push[i] = t
        self.t_ready[i] = t
        self.t_start[i] = t
        self.t_thread[i] = self.thread_of(prog, owner)
        body = m.bodies.get(i)
        if body is None:
            end = t + int(self.dur[i])
            self.t_end[i] = end
            self.maybe_done(i, end)
            return end
        self.sync_resume[("inline", i)] = (prog, k, owner)
        self._continue_body(t, body, i)
        return None

    def maybe_done(self, i, t):
        """Record ``i`` completes once its own run and its children have."""
        if self.t_end[i] < 0 or self.kids_left[i] > 0 or self.t_done[i] >= 0:
            return
        done = max(t, int(self.t_end[i]))
        self.t_done[i] = done
        self.completed(i, done)

    def completed(self, i, t):
        m = self.m
        p = int(m.graph.parent[i])
        if p >= 0:
            self.kids_left[p] -= 1
            if self.kids_left[p] == 0 and self.t_end[p] >= 0:
                self.maybe_done(p, max(t, int(self.t_end[p])))
        for s in m.succs[i]:
            if t > self.pred_done[s]:
                self.pred_done[s] = t
            self.waiting[s] -= 1
            # pushed and waiting for this one (an inline record not reached yet by its
            # program is run there, or queued, when it is)
            if self.waiting[s] == 0 and self.t_push[s] >= 0 and self.t_ready[s] < 0:
                self.make_ready(s, max(int(self.t_push[s]), int(self.pred_done[s])))
        for s in self.blocking.pop(i, ()):
            self.sync_left[s] -= 1
            if t > self.sync_last[s]:
                self.sync_last[s] = t
            if self.sync_left[s] == 0:
                self._sync_done(s)
        # the push-order frontier (drivers' waitall)
        self.all_done[i] = True
        r = int(self.rank[i])
        if r == self.frontier:
            order = m.push_order
            while self.frontier < len(order) and self.all_done[order[self.frontier]]:
                j = order[self.frontier]
                self.front_max = max(self.front_max, int(self.t_done[j]))
                self.frontier += 1
                self.prefix_max[self.frontier] = self.front_max
            while self.prefix_waits and self.prefix_waits[0][0] <= self.frontier:
                k, _, s = heapq.heappop(self.prefix_waits)
                self.sync_last[s] = max(int(self.sync_last[s]), int(self.prefix_max[k]))
                self._sync_done(s)

    # -- sync points -----------------------------------------------------------------------
    def sync_begin(self, s, t, prog, k, owner):
        """Begin sync point ``s`` at ``t``; True if it is already over (``s_end`` set)."""
        m = self.m
        self.s_start[s] = t
        self.sync_last[s] = t
        self.sync_resume[("sync", s)] = (prog, k, owner)
        if m.sync_all[s]:
            need = int(m.sync_prefix[s])
            if self.frontier >= need:
                self.sync_last[s] = max(t, int(self.prefix_max[need]))
                return self._sync_done(s, now=True)
            self.seq += 1
            heapq.heappush(self.prefix_waits, (need, self.seq, s))
            return False
        left = 0
        for r in m.sync_wait[s]:
            if self.t_done[r] >= 0:
                if self.t_done[r] > self.sync_last[s]:
                    self.sync_last[s] = self.t_done[r]
            else:
                left += 1
                self.blocking.setdefault(r, []).append(s)
        self.sync_left[s] = left
        if left == 0:
            return self._sync_done(s, now=True)
        return False

    def _sync_done(self, s, now=False):
        end = int(self.sync_last[s]) + int(self.m.sync_wake[s])
        self.s_end[s] = end
        prog, k, owner = self.sync_resume.pop(("sync", s))
        if now:
            return True
        self._continue(end, prog, k + 1, owner)
        return False
