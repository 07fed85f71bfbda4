"""Exit paths: normal exit, ``sys.exit``, an uncaught exception, SIGTERM.

A process that exits while profiling writes its trace from an ``atexit`` hook, after a
bounded drain of the engine. SIGTERM is turned into ``SystemExit`` at a safe point once
profiling has run (the handler is installed when the state changes to ``"run"``), so the
hook runs then too.
"""
import atexit
import os
import signal
import sys
import threading

from .. import _env
from .. import engine as _engine_mod


class AtExit:
    """The ``atexit`` hook: write the trace if this process profiled and has records the
    last dump did not write. ``write_and_finish`` and ``undumped`` come from the session."""

    def __init__(self, st, write_and_finish, undumped):
        self.st, self.write_and_finish, self.undumped = st, write_and_finish, undumped

    def __call__(self):
        st = self.st
        if not st.ever_ran:
            return
        if st.state != "run" and self.undumped() == 0:
            return
        try:
            _engine_mod.get().shutdown(timeout=_env.get_int("ENGINE_EXIT_TIMEOUT", 30))
            with st.lock:
                self.write_and_finish()
        except Exception as e:  # noqa: BLE001 - never turn exit into a crash
            print(f"xprof: could not write the profile at exit: {e}", file=sys.stderr)


def install(st, write_and_finish, undumped):
    atexit.register(AtExit(st, write_and_finish, undumped))
    st.subscribe(_install_signal_handler)


_RUNTIME_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# the engines' blocking sync points (their names): exception-safe places to stop waiting.
# A waiting thread calls _kick/_kick_locked every 10 ms; a signal can only land at their
# entry (their body is C calls: nothing is popped yet), so they are safe places too.
_SAFE_WAITS = frozenset(("wait_for_var", "wait_all", "_wait_all", "_kick", "_kick_locked"))


def _exit_frame(frame):
    """Where SystemExit may be raised for a signal that interrupted the main thread at
    ``frame``: ``frame`` itself, or the frame that called into the runtime.

    Not inside the runtime's own code: the engine takes its lock with a bare
    ``acquire()`` and counts pending ops, so an exception there leaves it wedged and the
    exit path (engine shutdown, then the dump) hangs. Not inside a ``__del__`` either:
    an exception there is printed and swallowed, and the process would keep running.
    A blocking sync point (see ``_SAFE_WAITS``) is exception-safe, and may wait for a
    long time (for ever on a stuck op), so the exit happens there at once.
    """
    target, innermost = frame, None
    f = frame
    while f is not None:
        code = f.f_code
        if code.co_name == "__del__" or code.co_filename.startswith(_RUNTIME_DIR):
            if innermost is None:
                innermost = code.co_name
            target = f.f_back
        f = f.f_back
    if innermost in _SAFE_WAITS or target is None:
        return frame
    return target


def _no_trace(frame, event, arg):
    return None


def _on_sigterm(signum, frame):
    # Turn SIGTERM into SystemExit so that atexit handlers (and the dump) run. If the
    # signal landed inside the runtime, the exit is raised as soon as control is back in
    # the calling frame (its next bytecode), through that frame's trace hook.
    code = 128 + signum
    target = _exit_frame(frame)
    if target is frame or sys.gettrace() is not None:
        sys.exit(code)

    def exit_now(f, event, arg):
        sys.settrace(None)
        f.f_trace = None
        sys.exit(code)

    target.f_trace = exit_now
    target.f_trace_opcodes = True
    sys.settrace(_no_trace)


def _install_signal_handler(st=None, change="run", **_):
    """State listener: SIGTERM becomes an exit (and so a dump) once profiling runs."""
    if change != "run" or threading.current_thread() is not threading.main_thread():
        return
    try:
        if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
            signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError):
        pass
