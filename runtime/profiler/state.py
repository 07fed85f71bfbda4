"""Profiler state: one object, and the small modules that react to its changes.

Everything the profiler *is* lives on :data:`state` (run/stop, pause, configuration,
the session's time base, statistics marks, the finished session kept for ``dumps()``),
guarded by ``state.lock``. The public API (:mod:`.session`) changes it and then calls
:meth:`ProfilerState.notify`; each concern that follows the state subscribes once and
reacts to the change by name:

  ``"config"``    set_config applied            ``"run"`` / ``"stop"``  set_state
  ``"pause"`` / ``"resume"``                    ``"finish"``  a session ended (dump
                                                              finished); ``snap`` is what
                                                              it recorded, before release
  ``"script"``    the script's first profiler call under ``xprof run`` (before it applies)
  ``"finishing"`` a session is about to be written and ended: what records on its own
                  (the line sampler) stops, so nothing lands after the last snapshot

Subscribers: the engine hook below (engine observer, profile mask, hot-path flags),
:mod:`.flusher` (continuous dump), :mod:`.exits` (SIGTERM), :mod:`.handover`
(``xprof run``). Listeners run with the lock held, in subscription order.
"""
import threading
import time
from time import perf_counter_ns

from .. import engine as _engine_mod
from . import config
from .written import WrittenFile
from .observer import flags, observer
from .sampler import follow as _sampler_follow


class ProfilerState:
    """The one profiler of the process (as in MXNet). Plain attributes; change them under
    ``lock`` and announce the change with :meth:`notify`."""

    def __init__(self):
        self.lock = threading.RLock()
        self.cfg = config.parse({})
        self.mode = config.mode_of(self.cfg)
        self.state = "stop"
        self.paused = False
        self.base_ns = perf_counter_ns()   # the session's time zero
        self.start_wall = time.time()
        self.stats_mark = {}     # buffer -> (events, slices) indices where statistics start
        self.retained = []       # the sessions ended by dump(finished=True), for dumps():
                                 # ([Part], base) each, until dumps() aggregates them
                                 # into one (Stats, latency values)
        self.dumped_upto = None  # buffer -> (events, slices) lengths written by the last dump
        self.dumped = None       # (path, chrome.Continued) of the last dump
        self.written = WrittenFile()   # the file the last finished session was dumped to
        self.ever_ran = False
        self.script_configured = False   # set_config/set_state called by user code
        self._listeners = []

    @property
    def recording(self):
        return self.state == "run" and not self.paused

    def memory_prefix(self):
        return (self.cfg["memory_profile_filename_prefix"]
                or self.cfg["gpu_memory_profile_filename_prefix"])

    def subscribe(self, listener):
        """``listener(state, change, **details)`` is called on every change."""
        self._listeners.append(listener)

    def notify(self, change, **details):
        for listener in self._listeners:
            listener(self, change, **details)


state = ProfilerState()


def attach_engine(st, change=None, **_):
    """Point the engine and the hot-path flags at the state: the engine gets the
    observer and the op modes to time only while recording."""
    on = st.recording
    eng = _engine_mod.get()
    mask = (st.mode & 3) if on else 0
    eng.profile_mask = observer.mask = mask
    eng.observer = observer if mask else None
    flags.api = on and bool(st.mode & config.MODE_API)
    flags.mem = on and bool(st.mode & config.MODE_MEMORY)
    flags.recording = on
    flags.shapes = bool(mask)   # operators profiled: their slices carry input shapes
    flags.mem_rows = flags.mem and bool(st.memory_prefix())


state.subscribe(attach_engine)
state.subscribe(_sampler_follow)
_engine_mod.on_engine_change(lambda eng: attach_engine(state))
