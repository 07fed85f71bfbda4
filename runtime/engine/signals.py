"""Where the exception of a signal (Ctrl-C, the profiler's SIGTERM) is raised: a safe point.

Python raises ``KeyboardInterrupt`` for SIGINT at whatever bytecode the main thread runs
next. Inside the engine's own bookkeeping (a lock taken with a bare ``acquire()``, pending
counts, variable queues half updated) that leaves the engine wedged, and every later
sync point, the drain at exit included, waits for ever. So the handlers here raise:

* at once, where the signal landed, when the main thread runs code of the user's (or of
  a library the user called), or the code of one of the runtime's blocking waits
  (``SAFE_WAITS``: exception-safe, and possibly waiting for ever on a stuck op);
* inside library code such a wait called (``threading``'s), at the wait's next poll
  (every 10 ms): library code is not safe to interrupt at every bytecode;
* otherwise (inside the runtime, or a ``__del__``, whose exceptions are printed and
  swallowed) as soon as control is back in the nearest frame of the user's that called
  into the runtime: its next bytecode, through that frame's trace hook. A runtime call
  returns within microseconds, so a tight loop of inline ops stops at once.

An op's kernel run inline on the main thread is runtime code, so an interrupt that lands
in it is raised right after the op completed; an op function of the user's (a custom
operator's ``forward`` under ``NaiveEngine``) is interrupted where it was, and the engine
then re-raises the interrupt to the pushing thread instead of keeping it as the op's
error (see ``Engine._call``).

While a drain at exit waits for stuck work, :func:`stop_on_signal` makes SIGINT and
SIGTERM set a flag the wait polls instead of raising: the second Ctrl-C then ends the
wait, and no exception pops up in the middle of the code around it (the dump after it).

``install_sigint()`` replaces Python's default SIGINT handler (and nothing else: a
handler the program installed is kept). When a tracer is active (a debugger, coverage)
the exception is raised at once: the hook used to defer it is the tracer's.
"""
import contextlib
import os
import signal
import sys
import sysconfig
import threading

_RUNTIME_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# Code that is neither the runtime's nor the user's: the standard library and installed
# packages. A signal landing there belongs to whoever called it.
_LIBRARY_DIRS = tuple(sorted({os.path.abspath(p) + os.sep for p in
                              (sysconfig.get_paths().get(k) for k in
                               ("stdlib", "platstdlib", "purelib", "platlib")) if p}))
# xprof's other packages beside the runtime in a source tree (an editable install: in a
# wheel they are under purelib): library code, not the user's
_LIBRARY_DIRS += tuple(os.path.join(os.path.dirname(_RUNTIME_DIR.rstrip(os.sep)), d) + os.sep
                       for d in ("traces", "cli"))
# The runtime's blocking waits (function names): exception-safe places to stop waiting,
# in their own code. Each polls raise_deferred() (a signal that landed in the library
# code it called) at least every 50 ms, or returns within 50 ms (``throttle``, the
# custom-op backpressure wait). A thread blocked in one calls _kick/_kick_locked every
# 10 ms; their bodies are C calls with nothing popped yet, so they are safe too.
# ``shutdown`` is the bounded drain at exit (under stop_on_signal), ``wait_for_mpi`` a
# rank waiting for the other ranks to start MPI (dist/mpi.py).
SAFE_WAITS = frozenset(("wait_for_var", "wait_all", "_wait_all", "_kick", "_kick_locked",
                        "wait_idle", "throttle", "shutdown", "wait_for_mpi"))


def _where(code):
    """'runtime', 'library' or 'user' for a code object (``__del__``: 'runtime')."""
    name = code.co_filename
    if code.co_name == "__del__" or name.startswith(_RUNTIME_DIR):
        return "runtime"
    if name.startswith(_LIBRARY_DIRS) or name.startswith("<frozen"):
        return "library"
    return "user"


def safe_frame(frame):
    """The frame where an exception for a signal that interrupted the main thread at
    ``frame`` may be raised: ``frame`` itself (raise now), or a frame to raise it in
    when control is back there: the nearest user frame outside the runtime code that
    was interrupted (else the blocking wait it was in, else ``frame``).

    A blocking wait (``SAFE_WAITS``) is a safe point in its own code only. Library code
    it called is not: ``threading``'s ``Condition.__enter__`` interrupted after taking
    its lock and before its ``with`` statement began leaves the lock held for ever, and
    the engine worker that next sets that event blocks while holding the engine's lock
    (a hang seen about once in 400 Ctrl-Cs). So there the exception is deferred too; the
    wait raises it at its next poll (:func:`raise_deferred`, every 10 ms).
    """
    code = frame.f_code
    where = _where(code)
    if where == "user" or (where == "runtime" and code.co_name in SAFE_WAITS):
        return frame
    f = frame
    while where == "library":   # library code: whoever called it decides
        f = f.f_back
        if f is None:
            return frame
        where = _where(f.f_code)
    if where == "user":   # a library call of the user's: interrupted where it was
        return frame
    wait = None
    while f is not None and _where(f.f_code) != "user":
        if wait is None and f.f_code.co_name in SAFE_WAITS and \
                _where(f.f_code) == "runtime":
            wait = f
        f = f.f_back
    if f is not None:
        return f
    return frame if wait is None else wait


def _no_trace(frame, event, arg):
    return None


# (frame, make_exc) of a signal's exception deferred to a user frame: a blocking sync
# point the runtime enters before control is back there raises it (raise_deferred)
_deferred = None


def raise_at_safe_point(frame, make_exc):
    """Raise ``make_exc()`` now if ``frame`` is a safe point, else arrange for it to be
    raised at the next bytecode of the frame :func:`safe_frame` picks, or at the next
    blocking wait the runtime enters first (:func:`raise_deferred`)."""
    global _deferred
    target = safe_frame(frame)
    if target is frame or sys.gettrace() is not None:
        raise make_exc()

    def raise_now(f, event, arg):
        global _deferred
        _deferred = None
        sys.settrace(None)
        f.f_trace = None
        raise make_exc()

    _deferred = (target, make_exc)
    target.f_trace = raise_now
    target.f_trace_opcodes = True
    sys.settrace(_no_trace)


def raise_deferred():
    """Called by the main thread's blocking waits (every 10 ms): a signal that landed in
    runtime code on the way into the wait (``wait_to_read``'s body, a hook) or in the
    library code the wait calls (``Event.wait``) was deferred to the user's frame, which
    a wait on stuck work never returns to. Raise it here, a safe point, instead of
    waiting for ever."""
    global _deferred
    found = _deferred
    if found is None or threading.current_thread() is not threading.main_thread():
        return
    _deferred = None
    target, make_exc = found
    target.f_trace = None
    sys.settrace(None)
    raise make_exc()


# Set when the process was asked to stop by SIGTERM (profiler/exits.py), or when a
# Ctrl-C's KeyboardInterrupt ended the program (``interrupted``: not one it caught and
# went on from): the exit drain then waits at most TERM_DRAIN seconds for pending ops,
# not XPROF_ENGINE_EXIT_TIMEOUT (one signal ends a run within seconds, its trace written).
terminated = False
interrupted = False
TERM_DRAIN = 1.0


def _on_sigint(signum, frame):
    raise_at_safe_point(frame, KeyboardInterrupt)


def ended_by_interrupt():
    """The program ends with a KeyboardInterrupt (``xprof run``: its script did)."""
    global interrupted
    interrupted = True


def _excepthook(previous):
    def hook(kind, value, tb):
        if issubclass(kind, KeyboardInterrupt):
            ended_by_interrupt()
        previous(kind, value, tb)
    return hook


def install_sigint():
    """Use :func:`_on_sigint` for SIGINT if Python's default handler is installed (on the
    main thread only: that is where handlers run)."""
    if threading.current_thread() is not threading.main_thread():
        return
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _on_sigint)
            sys.excepthook = _excepthook(sys.excepthook)   # (an uncaught interrupt: python)
    except (ValueError, OSError):
        pass


class _Stop:
    """Set by a signal while :func:`stop_on_signal` is active: ``signum`` of the first."""

    __slots__ = ("signum",)

    def __init__(self):
        self.signum = None


@contextlib.contextmanager
def stop_on_signal():
    """Inside it (on the main thread), SIGINT and SIGTERM only record themselves on the
    yielded object (a plain attribute: safe to set from a handler at any bytecode)."""
    stop = _Stop()
    saved = {}
    if threading.current_thread() is threading.main_thread():
        def record(signum, frame):
            if stop.signum is None:
                stop.signum = signum
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                saved[sig] = signal.signal(sig, record)
            except (ValueError, OSError):
                pass
    try:
        yield stop
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
