"""Continuous dump (``set_config(continuous_dump=True, dump_period=s)``): a thread that
rewrites the trace every ``dump_period`` seconds while the profiler runs.

It follows the profiler state: started when profiling starts (or is reconfigured while
running) with continuous dump on, stopped when it stops or the session finishes.
"""
import sys
import threading


class _Flusher(threading.Thread):
    def __init__(self, st, period, write_trace):
        super().__init__(name="xprof profile flusher", daemon=True)
        self.st = st
        self.period = period
        self.write_trace = write_trace
        self.stop_event = threading.Event()

    def run(self):
        st = self.st
        while not self.stop_event.wait(self.period):
            with st.lock:
                if st.state == "run" and not self.stop_event.is_set():
                    try:
                        self.write_trace()
                    except OSError as e:  # keep profiling; report once
                        print(f"xprof: continuous dump failed: {e}", file=sys.stderr)
                        return


class ContinuousDump:
    """State listener owning the flusher thread (at most one)."""

    def __init__(self, write_trace):
        self.write_trace = write_trace
        self.thread = None

    def __call__(self, st, change, **_):
        if change == "run" or (change == "config" and st.state == "run"):
            self.stop()
            if st.cfg["continuous_dump"]:
                self.thread = _Flusher(st, st.cfg["dump_period"], self.write_trace)
                self.thread.start()
        elif change in ("stop", "finish"):
            self.stop()

    def stop(self):
        # Called with the state lock held. No join: a flusher that woke up is blocked on
        # the lock and would time the join out (a 5 s stall in dump/set_state); it
        # re-checks its stop event under the lock, so once the event is set it never
        # writes again.
        if self.thread is not None:
            self.thread.stop_event.set()
            self.thread = None
