"""NaiveEngine: the same interface, every op run at once on the pushing thread.

Nothing is concurrent, so every bug reproduces; errors are still deferred to the next
sync point, exactly as under :class:`ThreadedEngine`, so user code behaves the same.
"""
import functools
import threading
from time import perf_counter_ns

from ..base import as_mxnet_error
from .base import (ALWAYS_RUN, MODE_IMPERATIVE, MODE_INTERNAL, NO_STAMPS, Engine, tags_set,
                   thread_state)


def _serialized(method):
    """Run ``method`` holding the engine's re-entrant lock: ops pushed by several Python
    threads at once run one at a time, in the order their pushes take the lock (an op
    may push further ops from inside, on the same thread)."""
    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with self._serial:
            return method(self, *args, **kwargs)
    return locked


class NaiveEngine(Engine):
    name = "NaiveEngine"
    synchronous = True

    def __init__(self):
        super().__init__()
        self._errors = []
        self.worker_idents = {}
        self._serial = threading.RLock()

    def push(self, fn, args, reads, writes, name, prio=0, mode=MODE_IMPERATIVE, cost=0,
             attrs=None):
        tag = thread_state.tag if tags_set else None   # (no thread has a tag: no read)
        if tag is not None and not mode & ALWAYS_RUN:
            mode = tag.mode
        # Ops pushed by several Python threads at once run one at a time, in the order
        # their pushes take the re-entrant lock (an op may push further ops inside).
        self._serial.acquire()   # (not `with`: ~50 ns less per op on this hot path)
        try:
            exc = self._call(fn, args, reads, mode, name, tag, attrs, None, writes)
        except BaseException:   # an interrupt of this thread: abandoned, not failed
            self._finish(writes, None)
            raise
        else:
            if exc is None:   # (the common case without a call to _finish: ~3% of x + 1)
                for v in writes:
                    v.exc = None
            else:
                self._finish(writes, exc)
        finally:
            self._serial.release()

    @_serialized
    def push_async(self, fn, args, reads, writes, name, prio=0, mode=MODE_INTERNAL, cost=0,
                   stamped=False):
        """Run ``fn(on_complete, *args)`` now; errors are stored when it completes. Run
        where it was pushed, the op never waited: its stamps (``stamped``) are
        ``NO_STAMPS``."""
        exc = None
        if not mode & ALWAYS_RUN:
            for v in reads:
                if v.exc is not None:
                    exc = v.exc
                    break
        state = {"done": False}

        def on_complete(err=None):
            if state["done"]:
                raise RuntimeError(f"on_complete called twice for {name}")
            state["done"] = True
            self._finish(writes, err)

        if exc is not None:
            on_complete(exc)
            return None
        if stamped:
            args = (NO_STAMPS, *args)
        try:
            fn(on_complete, *args)
        except BaseException as e:  # noqa: BLE001
            if state["done"]:
                raise
            if not isinstance(e, Exception):   # an interrupt: the program's, not the op's
                on_complete(None)
                raise
            on_complete(e)
        if not state["done"]:
            raise RuntimeError(f"async op {name} did not complete under NaiveEngine")
        return None

    def _finish(self, writes, exc):
        if exc is not None:
            exc = as_mxnet_error(exc)
            if not hasattr(exc, "_xprof_reported"):
                exc._xprof_reported = False
            self._keep_error(exc)
        for v in writes:
            v.exc = exc

    def wait_for_var(self, var):
        observer = self.observer
        if observer is not None:   # nothing to wait for: a sync point of no length
            observer.sync("WaitForVar", perf_counter_ns(), var)
        exc = var.exc
        if exc is not None:
            exc._xprof_reported = True
            raise exc

    def wait_all(self):
        observer = self.observer
        if observer is not None:
            observer.sync("WaitForAll", perf_counter_ns())
        errors, self._errors = self._errors, []
        self._raise_first_unreported(errors)

    def pending(self):
        return 0

    def wait_idle(self, timeout, stop=None):
        return True   # every op ran inside its push

    def running(self):
        return [], 0
