"""The comm thread: the one thread that runs this rank's collectives, in sequence order.

Why one thread, and why an order. Every rank must enter the same collectives in the
same order, or MPI pairs the wrong buffers (or hangs). Engine ops run when their inputs
are ready, which differs between ranks; the order in which the script *pushed* them is
the same everywhere. So each collective takes a sequence number when it is pushed
(:meth:`CommThread.ticket`, on the pushing thread), and this thread runs job ``n`` only
after job ``n - 1``, whatever order they became ready in. An engine op hands its job
over and returns (it is an ``ASYNC`` op), so no engine worker ever blocks on another
rank: a worker blocked on a collective whose input another worker must compute would
deadlock with two workers.

A failure of the job (:meth:`fail_all`, from :mod:`.faults`) completes every waiting
and later job at once with the error, so a rank whose peer died stops within seconds
instead of waiting in MPI forever.
"""
import itertools
import threading

__all__ = ["CommThread"]


class CommThread:
    """Runs ``job()`` callables in ticket order on one daemon thread.

    ``submit(ticket, job, done)``: run ``job()`` when every earlier ticket has run,
    then ``done(exc)`` (exc None or the exception ``job`` raised, or the job's failure
    from :meth:`fail_all`). ``call(job)``: take a ticket, submit, wait, return the
    result (for barrier and the like, from the script's thread)."""

    def __init__(self, name="xprof kvstore comm"):
        self._tickets = itertools.count()
        self._ticket_lock = threading.Lock()
        self._cond = threading.Condition()
        self._jobs = {}          # ticket -> (job, done)
        self._next = 0
        self.failure = None      # the job's failure, once (an exception)
        self.busy = False
        self._running = None     # the done of the job now running
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def ticket(self):
        """The next sequence number (the same on every rank for the same push)."""
        with self._ticket_lock:
            return next(self._tickets)

    def submit(self, ticket, job, done):
        done = _once(done)
        with self._cond:
            failure = self.failure
            if failure is None:
                self._jobs[ticket] = (job, done)
                self._cond.notify()
                return
        done(failure)

    def call(self, job):
        """Run ``job`` in order on this thread, wait for it, return its result."""
        box = {}
        finished = threading.Event()

        def run():
            box["value"] = job()

        def done(exc):
            box["exc"] = exc
            finished.set()

        self.submit(self.ticket(), run, done)
        finished.wait()
        if box.get("exc") is not None:
            raise box["exc"]
        return box.get("value")

    def fail_all(self, exc):
        """The job failed: every queued and later job completes with ``exc``, and so
        does the one now running (its collective may never return: its peer is gone;
        if it does, its result is dropped)."""
        with self._cond:
            if self.failure is not None:
                return
            self.failure = exc
            jobs, self._jobs = self._jobs, {}
            running = self._running
            self._cond.notify_all()
        if running is not None:
            running(exc)
        for _, done in jobs.values():
            done(exc)

    def idle(self):
        with self._cond:
            return not self._jobs and not self.busy

    def _loop(self):
        while True:
            with self._cond:
                while self.failure is None and self._next not in self._jobs:
                    self._cond.wait()
                if self.failure is not None:
                    return
                job, done = self._jobs.pop(self._next)
                self._next += 1
                self.busy = True
                self._running = done
            try:
                job()
                exc = None
            except BaseException as e:  # noqa: BLE001 - handed to the op that asked
                exc = e
            with self._cond:
                self.busy = False
                self._running = None
                failure = self.failure
            done(exc if failure is None else (exc or failure))


def _once(done):
    """``done`` callable once: a job failed by :meth:`CommThread.fail_all` whose
    collective returns later must not complete its engine op twice."""
    lock = threading.Lock()
    called = []

    def once(exc):
        with lock:
            if called:
                return
            called.append(True)
        done(exc)
    return once


_shared = []


def shared():
    """The process's one comm thread (every store shares it: one order for the data
    communicator), told of another rank's failure by :mod:`.faults`."""
    if not _shared:
        from . import faults
        _shared.append(CommThread())
        faults.on_failure(_shared[0].fail_all)
    return _shared[0]
