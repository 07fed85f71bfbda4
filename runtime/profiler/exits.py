"""Exit paths: normal exit, ``sys.exit``, an uncaught exception, SIGTERM.

A process that exits while profiling writes its trace from an ``atexit`` hook, after a
bounded drain of the engine. SIGTERM is turned into ``SystemExit`` at a safe point once
profiling has run (the handler is installed when the state changes to ``"run"``), so the
hook runs then too.
"""
import atexit
import signal
import sys
import threading

from .. import engine as _engine_mod
from ..engine import signals as _signals


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
        report = _engine_mod.drain()   # bounded; a second Ctrl-C or SIGTERM ends it
        if report:
            print(f"xprof: {report}; the profile holds what was recorded", file=sys.stderr)
        try:
            with st.lock:
                self.write_and_finish()
        except Exception as e:  # noqa: BLE001 - never turn exit into a crash
            print(f"xprof: could not write the profile at exit: {e}", file=sys.stderr)


def install(st, write_and_finish, undumped):
    atexit.register(AtExit(st, write_and_finish, undumped))
    st.subscribe(_install_signal_handler)


def _on_sigterm(signum, frame):
    # Turn SIGTERM into SystemExit so that atexit handlers (and the dump) run, at a point
    # where the exception cannot wedge the engine (see engine/signals.py). SIGTERM means
    # stop now: the exit drain is then bounded to a second (engine.drain).
    _signals.terminated = True
    _signals.raise_at_safe_point(frame, lambda: SystemExit(128 + signum))


def _install_signal_handler(st=None, change="run", **_):
    """State listener: SIGTERM becomes an exit (and so a dump) once profiling runs."""
    if change != "run" or threading.current_thread() is not threading.main_thread():
        return
    try:
        if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
            signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError):
        pass
