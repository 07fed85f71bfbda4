"""The process's engine: chosen by ``XPROF_ENGINE_TYPE`` (alias ``MXNET_ENGINE_TYPE``).

``get()`` is the one accessor of the current engine. ``set_engine_type`` swaps it (after
draining the old one; tests use it to run the same code on both engines) and tells the
hooks registered with ``on_engine_change`` (the NDArray layer rebinds its push and wait
functions, the profiler re-attaches its observer). Code outside this package never reads
the engine variable itself.
"""
import atexit
import gc
import os
import signal
import sys
import threading

from .. import _env
from . import signals
from .bulk import bulk, set_bulk_size
from .base import (ALWAYS_RUN, ASYNC, MODE_IMPERATIVE, MODE_INTERNAL, MODE_SYMBOLIC, Engine,
                   Var, attribution, thread_state)
from .naive import NaiveEngine
from .threaded import ThreadedEngine

__all__ = ["get", "set_engine_type", "engine_type", "Engine", "Var", "ThreadedEngine",
           "NaiveEngine", "attribution", "thread_state", "MODE_SYMBOLIC",
           "MODE_IMPERATIVE", "MODE_INTERNAL", "ALWAYS_RUN", "ASYNC", "ENGINE_TYPES",
           "on_engine_change", "bulk", "set_bulk_size"]

ENGINE_TYPES = ("ThreadedEngine", "NaiveEngine")
# MXNet's other engine names behave like the threaded engine here.
_ALIASES = {"ThreadedEnginePerDevice": "ThreadedEngine", "ThreadedEnginePooled": "ThreadedEngine"}


def _make(kind):
    kind = _ALIASES.get(kind, kind)
    if kind == "NaiveEngine":
        return NaiveEngine()
    if kind == "ThreadedEngine":
        workers = _env.get_int("CPU_WORKER_NTHREADS", max(1, min(4, os.cpu_count() or 1)))
        threshold = _env.get_int("ENGINE_INLINE_THRESHOLD", 1 << 16)
        return ThreadedEngine(num_workers=workers, inline_threshold=threshold)
    raise ValueError(f"engine type {kind!r} is not known; use one of {', '.join(ENGINE_TYPES)}")


def _tune_native(num_workers):
    """Process settings the engine depends on for speed (see runtime/_native.py).

    * BLAS threads: engine workers already run kernels in parallel; OpenBLAS spreading
      each call over every core as well oversubscribes the machine (a CNN step measured
      5-10x slower on a loaded 2-core machine). Each worker gets cores / workers BLAS
      threads, unless ``XPROF_BLAS_NUM_THREADS`` or OpenBLAS/OMP variables say otherwise.
    * malloc: kernels return fresh arrays; raising glibc's mmap/trim thresholds keeps
      freed memory for reuse instead of page-faulting it in again every step (MXNet's
      pooled storage manager does the same job). ``XPROF_MALLOC_TUNING=0`` turns it off.
    * garbage collector: every op in flight holds a few container objects (the op, its
      variable lists, closures), so with Python's default young-generation threshold
      (700) a pipeline of custom-op calls ran a collection every ~18 calls and kept
      promoting live in-flight objects to older generations, which were then walked
      again and again (45-80 ms of collections per 2,000 calls measured; 0-40 ms with
      10,000, whose collections pause for ~5 ms, where 50,000 paused for ~20 ms). The
      young generation is raised to 10,000 objects, unless the program already changed
      it; ``XPROF_GC_TUNING=0`` keeps Python's default.
    """
    if _env.get_bool("GC_TUNING", True):
        t0, t1, t2 = gc.get_threshold()
        if t0 == 700:   # Python's default: never override the program's own choice
            gc.set_threshold(10_000, t1, t2)
    from .. import _native
    try:
        threads = _env.get_int("BLAS_NUM_THREADS", 0)
        if not threads and not any(os.environ.get(k) for k in
                                   ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")):
            threads = max(1, (os.cpu_count() or 1) // max(1, num_workers))
        if threads:
            _native.set_num_threads(threads)
        if _env.get_bool("MALLOC_TUNING", True):
            _native.tune_malloc()
    except (OSError, ValueError, AttributeError):
        pass  # not glibc / no OpenBLAS: nothing to tune


_engine = _make(_env.get("ENGINE_TYPE", "ThreadedEngine"))
_tune_native(getattr(_engine, "num_workers", 1))
signals.install_sigint()   # Ctrl-C never lands inside the engine's bookkeeping
_hooks = []  # callables(engine) run when the engine is replaced (profiler re-attaches)


def get():
    return _engine


def engine_type():
    return _engine.name


def on_engine_change(hook):
    """Call ``hook(engine)`` now and whenever the engine is replaced."""
    _hooks.append(hook)
    hook(_engine)


_slow = None   # xprof run --slow's module (runtime/slow.py) while specs are installed


def set_slow(module):
    """Install ``xprof run --slow``'s op hook (``module.op_extra``; None removes it): the
    engine asks it after each profiled op (``Engine.slow``), and keeps it across swaps."""
    global _slow
    _slow = module
    _engine.slow = module


def set_engine_type(kind):
    """Replace the process's engine; pending work on the old one is finished first."""
    global _engine
    new = _make(kind)
    old = _engine
    try:
        old.wait_all()
    finally:
        old.shutdown()
        new.observer, new.profile_mask = old.observer, old.profile_mask
        new.slow = _slow
        _engine = new
        for hook in _hooks:
            hook(new)
    return new


def _renew_in_child():
    """A child made by ``fork`` (a DataLoader worker) gets a new engine of the same kind.

    fork copies only the forking thread: the inherited engine has no worker threads and
    its locks may be held by threads that do not exist in the child, so it is replaced
    without draining. The engine-change hooks run as for any swap (the NDArray layer
    binds the new engine's push and wait functions; without that it would keep pushing
    to the inherited engine and block on its locks). Recording in the child is the
    child's business (a profiled DataLoader worker sets its own mode)."""
    global _engine
    _engine = _make(_engine.name)
    for hook in _hooks:
        hook(_engine)


FORK_DRAIN_S = 30.0   # the longest a fork waits for the work pushed before it


def _drain_before_fork():
    """Before a fork, wait for every op pushed so far, as MXNet's engine does (it stops,
    draining, in its fork-prepare handler): the child has none of the engine's threads,
    so an array whose write was still pending would never be ready there, and a
    DataLoader worker forked just after its dataset's arrays were computed would wait
    for ever reading them. Not when the fork comes from inside that work (an engine
    worker, a custom-op thread, a call's code): waiting for it would never end. Bounded:
    after :data:`FORK_DRAIN_S` the fork goes on and says which arrays the child lacks."""
    st = thread_state
    if st.on_block is not None or (st.tag is not None and st.tag.in_call) \
            or threading.get_ident() in getattr(_engine, "worker_idents", ()):
        return
    if not _engine.quiesce(FORK_DRAIN_S):
        sys.stderr.write(f"xprof: fork after waiting {FORK_DRAIN_S:g} s for the engine: "
                         "ops still pending; the child cannot read their outputs\n")


os.register_at_fork(before=_drain_before_fork, after_in_child=_renew_in_child)


_reporters = []    # callables() -> names of work running outside the engine's workers
_gave_up = False   # a drain stopped waiting: later ones do not wait again for that work


def report_running(reporter):
    """Add ``reporter()``, names of work in progress outside the engine's own threads
    (the custom-op pool's calls), to what :func:`drain` reports."""
    _reporters.append(reporter)


def exit_timeout():
    """Seconds the exit drain waits for pending ops (``XPROF_ENGINE_EXIT_TIMEOUT``)."""
    return _env.get_int("ENGINE_EXIT_TIMEOUT", 30)


def drain(timeout=None, stop=None):
    """Wait for every pushed op: at most ``timeout`` seconds (default
    :func:`exit_timeout`), and only until a signal arrives (the second Ctrl-C or
    SIGTERM at exit; ``stop``: a :func:`signals.stop_on_signal` object the caller keeps
    active around more than the drain). Return None when the engine is idle, else one
    line that says why the wait stopped and what is still running. Errors of the ops
    stay for the sync points. Once a drain has given up, later ones (the exit hooks
    after the CLI's) do not wait for the same stuck work again.
    """
    global _gave_up
    if stop is None:
        with signals.stop_on_signal() as stop:
            return drain(timeout, stop)
    timeout = exit_timeout() if timeout is None else timeout
    if signals.terminated:   # SIGTERM: stop now, after a second's grace at most
        timeout = min(timeout, signals.TERM_DRAIN)
    if _engine.wait_idle(0 if _gave_up else timeout, stop):
        return None
    _gave_up = True
    if stop.signum is None and signals.terminated:   # stopped in the script: 1 s's grace
        why = "on SIGTERM"
    elif stop.signum is None:
        why = f"after {timeout} s (XPROF_ENGINE_EXIT_TIMEOUT)"
    else:
        why = "on " + ("Ctrl-C" if stop.signum == signal.SIGINT else "SIGTERM")
    names, others = _engine.running()
    for reporter in _reporters:
        names += [f"{name} (custom operator)" for name in reporter()]
    if not names:
        return f"stopped waiting for the engine {why}; {others} operation(s) still pending"
    more = f" ({others} more pending)" if others > 0 else ""
    return (f"stopped waiting for the engine {why}; still running: "
            f"{', '.join(dict.fromkeys(names))}{more}")


def _shutdown_at_exit():
    # Bounded: interpreter exit never hangs on a stuck op; queued work gets a fair chance
    # to finish so that profiles written at exit are complete.
    report = None if _gave_up else drain()   # (a drain that gave up has said so)
    if report:
        print("xprof: " + report, file=sys.stderr)
    _engine.shutdown(timeout=0)


atexit.register(_shutdown_at_exit)
