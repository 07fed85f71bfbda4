"""The custom-operator worker pool: the threads that run custom operators' Python
``forward``/``backward`` (:mod:`.operator` hands each call to it), grown so that no
call waits long for a thread and bounded by ``XPROF_CUSTOM_OP_NUM_THREADS``."""
import itertools
import os
import queue
import threading
import time
from time import perf_counter_ns

from . import _env
from . import engine as _engine
from .engine.base import role_thread


class _Pool:
    """Threads that run Python forward/backward code, grown so that no call waits long
    for one.

    One thread runs calls in order while it keeps up: fewer threads means fewer GIL
    hand-offs. Another thread is started
      * at once, when a job is queued and every thread is blocked at an engine sync point
        (a forward waiting for another custom op's result: nested calls), and
      * by the watchdog, when a job has sat at the head of the queue for ``PATIENCE_S``
        with no thread taking any job: a forward blocked anywhere else (a sleep, I/O, a
        lock, long Python code) delays the other calls by a few milliseconds, not by its
        whole duration.
    A thread idle for ``RETIRE_S`` ends (one is kept). The bound, ``max_threads``
    (``CUSTOM_OP_NUM_THREADS``), is there to stop a runaway program: when it is reached
    and no job was taken for ``EXHAUSTED_S`` with every thread blocked at a sync point
    (they would otherwise wait for each other for ever), or for ``BUSY_S`` whatever the
    threads wait for, the queued calls fail with an error that says so.

    The per-job path takes no lock: ``submit`` puts the job and then reads the counts,
    ``_on_block`` changes them and then looks at the queue, so one of the two always
    sees the other; the watchdog reads the queue and a counter of jobs taken.

    The watchdog sleeps whenever nothing is queued, and only a job that may wait wakes
    it: one queued beyond the threads idle in ``get`` (``submit``), or one still queued
    when a thread takes a job (``_loop``: the same put-then-read pairing). A watchdog
    polling every 2 ms beside a running call is a GIL hand-off at each poll once the
    line sampler lowers the switch interval (docs/lines.md); a job taken at once by an
    idle thread never needs it.
    """

    PATIENCE_S = 0.002   # a queued job waits at most about this long for a thread
    RETIRE_S = 2.0
    EXHAUSTED_S = 1.0
    BUSY_S = 10.0

    def __init__(self, max_threads, max_in_flight):
        self.max_threads = max(1, max_threads)
        self.max_in_flight = max_in_flight
        self.jobs = queue.SimpleQueue()   # (run, fail, name)
        self.lock = threading.Lock()
        self.drained = threading.Condition(self.lock)
        self.in_flight = 0  # calls handed to the pool and not completed yet
        self.waiters = 0    # callers waiting in throttle() for calls to complete
        self.threads = 0
        self.blocked = 0    # threads inside a job, waiting at a sync point
        self.taken = 0      # jobs taken so far (the watchdog's sign of progress)
        self.current = {}   # pool thread ident -> name of the call it runs (or None)
        self.idle = set()   # idents of the pool threads waiting in ``jobs.get``
        self.watchdog = None
        self.watch_asleep = False
        self.watch_wake = threading.Event()
        self.exhausted = False   # at the bound, failing calls that cannot start
        self._names = itertools.count()

    def submit(self, run, fail, name):
        """Queue ``run()``; ``fail(exc)`` completes the call instead if it cannot start."""
        jobs = self.jobs
        jobs.put((run, fail, name))
        if self.threads - self.blocked <= 0:
            self._maybe_spawn()
        if self.watch_asleep and jobs.qsize() > len(self.idle):
            self.watch_wake.set()

    def owns_thread(self):
        """Is the calling thread one of the pool's?"""
        return threading.get_ident() in self.current

    def running(self):
        """Names of the calls pool threads are running now (for the drain's report)."""
        return [name for name in list(self.current.values()) if name is not None]

    def forked_child(self):
        """A child made by ``fork`` starts with an empty pool: fork copies only the
        forking thread, so none of the pool's threads (nor its watchdog) exist there,
        its lock may be held by one of them, and its queue holds the parent's calls
        (whose engine is gone too: the child's is renewed, engine/__init__.py). Left as
        it was, the copied thread count kept any thread from starting and the child's
        first custom-op call waited for ever."""
        self.__init__(self.max_threads, self.max_in_flight)

    def started(self):
        """A call was handed to the pool (its completion calls :meth:`finished`)."""
        with self.lock:
            self.in_flight += 1

    def finished(self):
        with self.lock:
            self.in_flight -= 1
            if self.waiters and self.in_flight <= self.max_in_flight // 2:
                self.drained.notify_all()

    def throttle(self):
        """Backpressure for a caller thread: with ``max_in_flight`` calls handed to the
        pool and not completed (waiting for a pool thread, running, or waiting for their
        sub-operators), wait until half of them have completed (at most 50 ms: a
        forward that waits for the caller must not hang it).

        A caller racing ahead keeps hundreds of calls in flight: their closures, arrays
        and engine ops survive the garbage collector's young-generation passes (12,000
        objects each, 2-10 ms) and fill the next generation (30-40 ms per pass), and
        four threads fight for the GIL. Bounding the calls in flight, not only the
        pool's queue (whose calls reach the engine's queues at once), keeps the live
        set to a few dozen calls. Pool threads and engine workers never wait here.
        """
        if self.in_flight < self.max_in_flight or not self.max_in_flight:
            return
        st = _engine.thread_state
        if st.on_block is not None or \
                threading.get_ident() in getattr(_engine.get(), "worker_idents", ()):
            return
        deadline = perf_counter_ns() + 50_000_000
        with self.drained:
            self.waiters += 1
            try:
                while self.in_flight > self.max_in_flight // 2:
                    left = deadline - perf_counter_ns()
                    if left <= 0:
                        break
                    self.drained.wait(left / 1e9)
            finally:
                self.waiters -= 1

    def _maybe_spawn(self):
        with self.lock:
            if self.threads - self.blocked > 0 or self.threads >= self.max_threads:
                return
            self._spawn_locked()

    def _spawn_locked(self):
        self.threads += 1
        role_thread(self._loop, "custom op worker", next(self._names)).start()
        if self.watchdog is None:
            self.watchdog = threading.Thread(target=self._watch, daemon=True,
                                             name="xprof custom op watchdog")
            self.watchdog.start()

    def _on_block(self, blocking):
        """Engine hook: a pool thread starts (True) or stops (False) waiting."""
        with self.lock:
            self.blocked += 1 if blocking else -1
        if blocking and not self.jobs.empty():
            self._maybe_spawn()

    def _loop(self):
        state = _engine.thread_state
        state.on_block = self._on_block
        state.defer_wake = True   # see ThreadedEngine._wake: one wake-up per burst
        jobs, current, me = self.jobs, self.current, threading.get_ident()
        current[me] = None
        get, wait_s, idle = jobs.get, self.RETIRE_S, self.idle
        while True:
            if jobs.empty():
                _engine.get().flush_wakes()
            idle.add(me)
            try:
                run, _, name = get(timeout=wait_s)
            except queue.Empty:
                idle.discard(me)
                if self._retire(me):
                    return
                continue
            idle.discard(me)
            if self.watch_asleep and not jobs.empty():   # (see the class's docstring)
                self.watch_wake.set()
            self.taken += 1
            current[me] = name
            run()
            current[me] = None

    def _retire(self, me):
        with self.lock:
            if self.threads <= 1 or not self.jobs.empty():
                return False
            self.threads -= 1
            del self.current[me]
            return True

    def _watch(self):
        """Start a thread for a job that no thread took for ``PATIENCE_S``; sleep while
        nothing is queued (a job that may wait wakes it: see the class's docstring)."""
        jobs, stalled_since = self.jobs, None
        while True:
            if jobs.empty():
                stalled_since = None
                self.watch_asleep = True
                if jobs.empty():
                    self.watch_wake.wait()
                self.watch_wake.clear()
                self.watch_asleep = False
                continue
            taken = self.taken
            time.sleep(self.PATIENCE_S)
            if self.taken != taken or jobs.empty():
                stalled_since = None
                continue
            stalled_since = stalled_since or time.monotonic()
            self._stalled(time.monotonic() - stalled_since)

    def _stalled(self, for_s):
        """The head job waited a full period with no job taken: add a thread. At the
        bound, fail the head job once every thread has been blocked at a sync point for
        ``EXHAUSTED_S`` (they may be waiting for the queued calls: its caller's wait
        raises, which frees a thread; go on failing while that lasts), or once no call
        could start for ``BUSY_S`` whatever the threads wait for."""
        with self.lock:
            if self.threads < self.max_threads:
                self._spawn_locked()
                return
            at_sync = self.blocked >= self.threads
            if not at_sync:
                self.exhausted = False
            if for_s < (self.EXHAUSTED_S if at_sync else self.BUSY_S) and not self.exhausted:
                return
            self.exhausted = at_sync
        try:
            _, fail, name = self.jobs.get_nowait()
        except queue.Empty:
            return
        running = ", ".join(sorted(set(self.running()))) or "none"
        why = ("wait at sync points (calls that wait for nested calls?)" if at_sync else
               f"have been busy for {for_s:.0f} s")
        fail(RuntimeError(
            f"custom operator {name!r} could not start: all {self.max_threads} "
            f"custom-operator threads {why}; running: {running}; raise "
            f"XPROF_CUSTOM_OP_NUM_THREADS (now {self.max_threads})"))


pool = _Pool(_env.get_int("CUSTOM_OP_NUM_THREADS", 256),
              _env.get_int("CUSTOM_OP_MAX_IN_FLIGHT", 64))
_engine.report_running(pool.running)
os.register_at_fork(after_in_child=pool.forked_child)
