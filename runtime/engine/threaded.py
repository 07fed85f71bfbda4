"""ThreadedEngine: per-variable dependency tracking and a pool of worker threads.

Scheduling policy (measured, see docs/architecture.md): an op whose dependencies are
already satisfied and whose estimated cost is below ``inline_threshold`` runs at once on
the pushing thread. Handing such an op to a worker costs two GIL hand-offs (30-110 us)
for a kernel of a few microseconds. Everything else (heavy kernels, ops that must wait
for others, ops pushed by a thread that forbids inlining such as a custom operator's
worker) goes to the workers' priority queue. Either way dependencies, ordering and
deferred exceptions are the same, and the profiler sees the real thread.
"""
import heapq
import itertools
import threading
import time
from collections import deque
from time import perf_counter_ns

from ..base import as_mxnet_error
from . import signals
from .base import (ALWAYS_RUN, ASYNC, MODE_IMPERATIVE, MODE_INTERNAL, STAMPED, Engine, Opr,
                   role_thread, tags_set, thread_state)

_READ, _WRITE, _WAITER = 0, 1, 2
_KICK_S = 0.01  # how often a thread blocked at a sync point checks for stranded ops


class _Completion:
    """The ``on_complete`` callback handed to an async op; callable once."""

    __slots__ = ("engine", "op", "called")

    def __init__(self, engine, op):
        self.engine, self.op, self.called = engine, op, False

    def __call__(self, exc=None):
        if self.called:
            raise RuntimeError(f"on_complete called twice for {self.op.name}")
        self.called = True
        if exc is not None:
            exc._xprof_reported = False
        self.engine._release(self.op, exc)


class _Waiter:
    """A dependency-only request: released when every earlier write to its var is done."""

    __slots__ = ("event",)

    def __init__(self):
        self.event = threading.Event()


class ThreadedEngine(Engine):
    name = "ThreadedEngine"

    def __init__(self, num_workers=2, inline_threshold=1 << 16):
        super().__init__()
        if num_workers < 1:
            raise ValueError(f"num_workers={num_workers!r}: need at least 1 worker thread")
        self.num_workers = num_workers
        self.inline_threshold = inline_threshold
        self._lock = threading.Lock()
        self._sleepers = []      # wake locks of idle workers (see _worker_loop)
        self._heavy_ready = 0    # heavy ops in the ready heap
        self._heavy_running = 0  # workers inside a heavy op (see _wake)
        self._wake_debt = False  # a deferring thread made work ready (see _wake)
        self._idle_cv = threading.Condition(self._lock)
        self._ready = []          # heap of (-prio, seq, op)
        self._seq = itertools.count()
        self._pending = 0         # pushed and not completed
        self._idle_waiters = 0
        self._errors = []         # exceptions not yet reported at a sync point
        self._stopping = False
        self._workers = []
        self.worker_idents = {}   # thread ident -> worker index (for the profiler)
        self._running = [None] * num_workers   # the op each worker runs (or ran last)

    # -- workers --------------------------------------------------------------------
    def _start_workers(self):
        for i in range(self.num_workers):
            t = role_thread(self._worker_loop, "engine worker", i, (i,))
            t.start()
            self._workers.append(t)

    def _worker_loop(self, index):
        """Take the best ready op, run it (and the op it makes ready, if any), repeat.

        An idle worker sleeps on its own lock, released by whoever makes work ready: a
        ``threading.Condition`` allocates a lock and runs Python code on every wait and
        notify, which measured ~15 us per hand-off here; a bare lock is a few hundred ns.
        """
        self.worker_idents[threading.get_ident()] = index
        lock, ready, sleepers, running = self._lock, self._ready, self._sleepers, self._running
        wake = threading.Lock()
        wake.acquire()
        nxt = None
        while True:
            if nxt is None:
                lock.acquire()
                while not ready:
                    if self._stopping:
                        lock.release()
                        return
                    sleepers.append(wake)
                    lock.release()
                    wake.acquire()      # until a pusher releases it
                    lock.acquire()
                nxt = self._pop()
                lock.release()
            running[index] = nxt
            nxt = self._execute(nxt, True)

    def _push_ready(self, op):
        """Put ``op`` in the ready heap (caller holds the engine lock)."""
        heapq.heappush(self._ready, (-op.prio, next(self._seq), op))
        if op.heavy:
            self._heavy_ready += 1

    def _pop(self):
        """Take the best ready op to run on this worker (caller holds the engine lock)."""
        op = heapq.heappop(self._ready)[2]
        if op.heavy:
            self._heavy_ready -= 1
            self._heavy_running += 1
        return op

    def _wake(self, n=1):
        """Wake up to ``n`` sleeping workers for ``n`` newly ready ops (caller holds the
        engine lock).

        A thread with ``defer_wake`` set (a custom operator's Python thread) only notes
        the debt: the worker could not run before that thread gives up the GIL anyway,
        and waking it early costs two extra context switches per op. The thread pays
        the debt in :meth:`flush_wakes` before it blocks or goes idle.

        Light ops (below the inline threshold) hold the GIL for nearly all their run, so
        a second thread cannot run them any sooner: while some worker is awake and not
        inside a heavy kernel it will take them in turn, and waking more workers only
        adds threads fighting for the GIL (on two cores keeping the second worker asleep
        measured ~30% less time per custom-op call). Heavy ops release the GIL in numpy
        and get every worker. A light op that blocks its worker waiting for another
        ready op is caught by the sync points' periodic check (:meth:`_kick_locked`).
        """
        if thread_state.defer_wake:
            self._wake_debt = True
        else:
            self._wake_now(n)

    def _wake_now(self, n):
        sleepers = self._sleepers
        if not self._heavy_ready:
            if self.num_workers - len(sleepers) - self._heavy_running > 0:
                return
            n = 1
        while n and sleepers:
            sleepers.pop().release()
            n -= 1

    def flush_wakes(self):
        with self._lock:
            if self._wake_debt:
                self._wake_debt = False
                self._wake_now(len(self._ready))

    # -- push -----------------------------------------------------------------------
    def push(self, fn, args, reads, writes, name, prio=0, mode=MODE_IMPERATIVE, cost=0,
             attrs=None):
        if reads and writes and (len(reads) > 1 or len(writes) > 1 or reads[0] is writes[0]):
            reads, writes = self._dedupe(reads, writes)
        # (a thread with a tag runs no op inline; no thread has one: no thread-local read)
        tag = thread_state.tag if tags_set else None
        if tag is not None and not mode & ALWAYS_RUN:
            mode = tag.mode | (mode & (ASYNC | STAMPED))
        observer = self.observer
        op = None
        run_now = False
        self._lock.acquire()   # (not `with`: ~50 ns less per op on this hot path)
        try:
            if not self._workers:
                self._start_workers()
            self._pending += 1
            # Fast path: every variable idle and the op cheap -> run it here, now.
            if cost < self.inline_threshold and tag is None and not mode & ASYNC:
                for v in reads:
                    if v.writer or v.queue:
                        break
                else:
                    for v in writes:
                        if v.writer or v.readers or v.queue:
                            break
                    else:
                        for v in reads:
                            v.readers += 1
                        for v in writes:
                            v.writer = True
                        run_now = True
            if not run_now:
                op = Opr(fn, args, reads, writes, name, prio, mode, tag, attrs)
                if observer is not None and observer.stamps:   # observer.pushed_by(), inlined
                    op.t_push = perf_counter_ns()
                    op.pusher = observer.sink.tid
                wait = 0
                for v in reads:
                    if v.writer or v.queue:
                        if v.queue is None:
                            v.queue = deque()
                        v.queue.append((op, _READ))
                        wait += 1
                    else:
                        v.readers += 1
                for v in writes:
                    if v.writer or v.readers or v.queue:
                        if v.queue is None:
                            v.queue = deque()
                        v.queue.append((op, _WRITE))
                        wait += 1
                    else:
                        v.writer = True
                op.wait = wait
                if wait == 0 and observer is not None and observer.stamps:
                    op.t_ready = op.t_push
                if cost >= self.inline_threshold and not mode & ASYNC:
                    op.heavy = True   # (an async op leaves its worker when fn returns)
                if wait == 0:
                    if op.heavy or tag is not None:
                        self._push_ready(op)
                        self._wake()
                    else:
                        run_now = True
        finally:
            self._lock.release()
        if run_now:
            if op is None:   # granted at once: run it here, then release its variables
                try:
                    exc = self._call(fn, args, reads, mode, name, tag, attrs, None, writes)
                except BaseException:   # an interrupt of this thread: abandoned, not failed
                    self._release_vars(reads, writes, None, False)
                    raise
                self._release_vars(reads, writes, exc, False)
            else:
                self._execute(op, False)
        return op

    # -- run and complete -------------------------------------------------------------
    def push_async(self, fn, args, reads, writes, name, prio=0, mode=MODE_INTERNAL, cost=0,
                   stamped=False):
        """Push an op that completes later: ``fn(on_complete, *args)`` must arrange for
        ``on_complete(exc=None)`` to be called exactly once (from any thread). Until
        then the op holds its variables. Used by custom operators. ``stamped``: the
        function gets the op's stamps after ``on_complete`` (``Engine.push_async``)."""
        return self.push(fn, args, reads, writes, name, prio,
                         mode | (ASYNC | STAMPED if stamped else ASYNC), cost)

    def _execute(self, op, on_worker):
        """Run ``op``; on a worker return the next op it should run itself (or None)."""
        exc = None
        if not op.mode & ALWAYS_RUN:  # bookkeeping ops inspect their inputs' errors
            for v in op.reads:
                if v.exc is not None:
                    exc = v.exc          # an input failed: skip, pass its error on
                    break
        if op.mode & ASYNC:
            if exc is None:
                done = _Completion(self, op)
                try:
                    if op.mode & STAMPED:   # the stamps, as an argument
                        op.fn(done, (op.t_push, op.t_ready, op.pusher), *op.args)
                    else:
                        op.fn(done, *op.args)
                    return None
                except BaseException as e:  # noqa: BLE001
                    if done.called:
                        raise
                    done.called = True
                    if not on_worker and not isinstance(e, Exception):
                        self._release(op, None)   # an interrupt of this thread
                        raise
                    exc = e
                    exc._xprof_reported = False
            return self._release(op, exc, on_worker)
        if exc is None:
            try:
                exc = self._call(op.fn, op.args, (), op.mode, op.name, op.tag, op.attrs,
                                 op.t_push, (), op)
            except BaseException:   # an interrupt of this (pushing) thread
                self._release(op, None)
                raise
        return self._release(op, exc, on_worker)

    def _release(self, op, exc, on_worker=False):
        """Mark ``op`` done: free its variables and schedule what was waiting on them."""
        op.args = None
        return self._release_vars(op.reads, op.writes, exc, on_worker, op.heavy)

    def _release_vars(self, reads, writes, exc, on_worker, heavy=False):
        """Release an op's variables; keep its error for the next sync point. On a
        worker, return the best op made ready so the worker runs it itself. ``heavy``:
        the op was a heavy one (only workers run those), so this worker leaves it."""
        ready = None
        first = None
        if exc is not None:
            exc = as_mxnet_error(exc)
        self._lock.acquire()   # (not `with`: ~50 ns less per op on this hot path)
        try:
            if heavy:
                self._heavy_running -= 1
            if exc is not None:
                self._keep_error(exc)
            for v in reads:
                v.readers -= 1
                if v.queue:
                    ready = self._dispatch(v, ready)
            for v in writes:
                v.exc = exc
                v.writer = False
                if v.queue:
                    ready = self._dispatch(v, ready)
            self._pending -= 1
            if self._pending == 0 and self._idle_waiters:
                self._idle_cv.notify_all()
            if ready is None:
                return None
            observer = self.observer   # stamp when their last dependency was satisfied
            if observer is not None and observer.stamps:
                t = perf_counter_ns()
                for r in ready:
                    r.t_ready = t
                    self._push_ready(r)
            else:
                for r in ready:
                    self._push_ready(r)
            n = len(ready)
            if on_worker:
                # Keep the best ready op (by priority, then push order), not simply the
                # last one made ready: that could skip a higher-priority op.
                first = self._pop()
                n -= 1
            if n:
                self._wake(n)
        finally:
            self._lock.release()
        return first

    @staticmethod
    def _dispatch(v, ready):
        """Grant queued requests on ``v`` that may now proceed; collect ready ops."""
        q = v.queue
        while q:
            op, kind = q[0]
            if kind == _WRITE:
                if v.writer or v.readers:
                    break
                q.popleft()
                v.writer = True
                op.wait -= 1
                if op.wait == 0:
                    if ready is None:
                        ready = []
                    ready.append(op)
                break
            if v.writer:
                break
            q.popleft()
            if kind == _WAITER:
                op.event.set()
                continue
            v.readers += 1
            op.wait -= 1
            if op.wait == 0:
                if ready is None:
                    ready = []
                ready.append(op)
        return ready

    # -- sync points ------------------------------------------------------------------
    def wait_for_var(self, var):
        observer = self.observer
        t0 = perf_counter_ns() if observer is not None else 0
        waiter = None
        with self._lock:
            if var.writer or var.queue:
                waiter = _Waiter()
                if var.queue is None:
                    var.queue = deque()
                var.queue.append((waiter, _WAITER))
        if waiter is not None:
            if thread_state.defer_wake:
                self.flush_wakes()
            hook = thread_state.on_block
            if hook is None:
                while not waiter.event.wait(_KICK_S):
                    self._kick()
                    if signals._deferred is not None:
                        signals.raise_deferred()
            else:
                hook(True)
                try:
                    while not waiter.event.wait(_KICK_S):
                        self._kick()
                        if signals._deferred is not None:
                            signals.raise_deferred()
                finally:
                    hook(False)
        if observer is not None:
            observer.sync("WaitForVar", t0, var)
        exc = var.exc
        if exc is not None:
            self._report(exc)
            raise exc

    def wait_all(self):
        if thread_state.tag is not None and thread_state.tag.in_call:
            raise RuntimeError(
                f"waitall() inside custom operator {thread_state.tag.name!r} would wait for "
                "that operator itself; wait for specific arrays (wait_to_read, asnumpy)")
        if thread_state.defer_wake:
            self.flush_wakes()
        observer = self.observer
        t0 = perf_counter_ns() if observer is not None else 0
        hook = thread_state.on_block
        try:
            if hook is None:
                return self._wait_all()
            hook(True)
            try:
                return self._wait_all()
            finally:
                hook(False)
        finally:
            if observer is not None:
                observer.sync("WaitForAll", t0)

    def _wait_all(self):
        with self._lock:
            while self._pending:
                self._idle_waiters += 1
                try:
                    if not self._idle_cv.wait(_KICK_S):
                        self._kick_locked()
                        if signals._deferred is not None:
                            signals.raise_deferred()
                finally:
                    self._idle_waiters -= 1
            errors, self._errors = self._errors, []
        self._raise_first_unreported(errors)

    def quiesce(self, timeout):
        deadline = perf_counter_ns() + int(timeout * 1e9)
        with self._lock:
            while self._pending:
                left = (deadline - perf_counter_ns()) / 1e9
                if left <= 0:
                    return False
                self._idle_waiters += 1
                try:
                    if not self._idle_cv.wait(min(_KICK_S, left)):
                        self._kick_locked()
                finally:
                    self._idle_waiters -= 1
        return True

    def _kick(self):
        with self._lock:
            self._kick_locked()

    def _kick_locked(self):
        """Called every ``_KICK_S`` by a thread blocked at a sync point: a ready op must
        not sit in the heap while a worker sleeps. Light ops wake few workers (see
        :meth:`_wake`), so if the awake one is stuck inside an op that waits for another
        ready op, this wakes the next one: that case costs ~10 ms instead of a hang."""
        if self._ready and self._sleepers:
            self._sleepers.pop().release()

    def _report(self, exc):
        exc._xprof_reported = True

    def pending(self):
        return self._pending

    def wait_idle(self, timeout, stop=None):
        """Wait up to ``timeout`` seconds for every pushed op to finish, leaving their
        errors to the sync points, and only until ``stop.signum`` is set (polled every
        10 ms); True if the engine is idle."""
        deadline = time.monotonic() + timeout
        with self._lock:
            self._idle_waiters += 1
            try:
                while self._pending:
                    left = deadline - time.monotonic()
                    if left <= 0 or (stop is not None and stop.signum is not None):
                        return False
                    if not self._idle_cv.wait(min(left, _KICK_S)):
                        self._kick_locked()
            finally:
                self._idle_waiters -= 1
        return True

    def running(self):
        """Profile names of the ops workers run now and of the ready ones waiting for a
        worker (bookkeeping ops left out), and how many other ops are pending: what a
        drain that gave up reports."""
        with self._lock:
            ops = [op for op in self._running if op is not None and op.args is not None]
            ops += [entry[2] for entry in sorted(self._ready)]
            pending = self._pending
        names = [op.name if op.tag is None else f"{op.tag.name}::{op.name}"
                 for op in ops if not op.mode & ALWAYS_RUN]
        return names, pending - len(names)

    def shutdown(self, timeout=None):
        """Wait up to ``timeout`` seconds for queued work, then stop the workers.
        Idempotent: a second call (the engine's own exit hook after the profiler's)
        returns at once."""
        with self._lock:
            if self._stopping:
                return not self._pending
        deadline_ok = not timeout or self.wait_idle(timeout)
        with self._lock:
            self._stopping = True
            for wake in self._sleepers:
                wake.release()
            self._sleepers.clear()
        return deadline_ok
