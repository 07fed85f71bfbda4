"""``xprof run``: one run, one profile, the script's own profiler calls kept.

``xprof run`` starts profiling before the script's first line (:meth:`Handover.start`).
Until the script calls ``set_config`` or ``set_state`` itself, that autostart records.
At the script's first such call the hand-over (a state listener, change ``"script"``):

* marks the moment with an instant event (``names.HANDOVER``, category ``xprof``),
* ends the autostart's session without writing anything, keeping its records,
* and lets the script's call apply as under ``python``: from then on recording follows
  the script's own ``set_state``/``pause``/``resume``/``dump`` exactly, and every file
  the script dumps is written with what its own session recorded.

Each session the script finishes (``dump(finished=True)``, or the end of the run) is
kept too (change ``"finish"``). At the end, ``session.finish_cli_run`` writes (from :meth:`Handover.run_snapshot`) the
``-o`` file: the autostart's records, the marker, then everything every session of the
script recorded, on one time base (the run's start). :attr:`Handover.files` names every
file written during the run and what it holds.
"""
import numpy as np

from xprof.traces import names

from . import columns, recorder as R, records
from .observer import observer


class Handover:
    """The state listener of one ``xprof run`` (at most one per process at a time).

    ``end_session(snapshot)`` is the profiler's way to end a session as a finished
    dump would (keeping its records): given by the session module that owns it, so
    the hand-over never imports the session."""

    def __init__(self, end_session):
        self.end_session = end_session
        self.output = None       # the -o file while a run is active
        self.took_over = False   # the script called set_config/set_state
        self.base_ns = 0         # the run's time zero
        self.kept = []           # [(buffer, events, slice rows)] of finished sessions
        self.sessions = 0        # sessions of the script kept
        self.files = {}          # path -> what it holds, for the end-of-run summary

    @property
    def active(self):
        return self.output is not None

    def start(self, st, output):
        """Called once the autostart session runs (its base is the run's time zero)."""
        self.output = output
        self.took_over = False
        self.base_ns = st.base_ns
        self.kept = []
        self.sessions = 0
        self.files = {}

    def end(self):
        self.output = None
        self.kept = []

    # -- the listener --------------------------------------------------------------------
    def __call__(self, st, change, snap=None, path=None, **_):
        if self.output is None:
            return
        if change == "script" and not self.took_over:
            if st.recording:
                observer.instant(names.HANDOVER, names.XPROF, "g")
            st.notify("finishing")
            self.end_session(R.snapshot())   # as a finished dump would: kept, not written
            self.took_over = True
        elif change == "finish" and snap is not None:
            self._keep(snap, st.base_ns)
            if self.took_over:
                self.sessions += 1
        elif change == "dumped" and self.took_over and path != self.output:
            self.files[path] = "the script's own profile, as it would be under python"

    def _keep(self, snap, base_ns):
        """Keep a finished session's records (those that began in it)."""
        T = records.T
        for buf, n, m in snap:
            if not n and not m:
                continue
            events = [ev for ev in buf.events[:n] if ev[T] >= base_ns]
            rows = columns.table(buf, m)
            rows = rows[rows[:, 1] >= base_ns]
            self.kept.append((buf, events, rows))

    # -- the end of the run ----------------------------------------------------------------
    def run_snapshot(self):
        """The whole run as a snapshot of stand-in buffers (one per thread): every kept
        session's records, then what is still recorded, in order."""
        merged = {}
        for buf, events, rows in self.kept + [
                (b, b.events[:n], columns.table(b, m)) for b, n, m in R.snapshot()]:
            entry = merged.setdefault(buf, ([], []))
            entry[0].extend(events)
            if len(rows):
                entry[1].append(rows)
        snap = []
        for buf, (events, rows) in merged.items():
            stand_in = R.ThreadBuffer(buf.tid, buf.name, buf.sort_index, buf.track)
            stand_in.sampled = buf.sampled   # a lines buffer stays one (linefold.py)
            stand_in.events = events
            stand_in.converted = np.concatenate(rows) if rows else columns.NO_ROWS
            snap.append((stand_in, len(events), records.SLICE_WIDTH * len(stand_in.converted)))
        return snap

