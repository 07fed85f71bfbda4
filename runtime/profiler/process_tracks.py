"""Events recorded by other processes (DataLoader workers), in this process's profile.

A worker process forked from a profiling parent records its own events with the same
recorder as any process (its NDArray ops on its engine's threads, its Python slices,
its memory counters), and hands them over in *flushes*: plain picklable data holding
what it recorded since the last flush. The parent puts a flush into buffers of its own
recorder that belong to a :class:`Process` (a process track group in the trace, with
its own pid, name and labels), translating slice keys (the worker's key numbers are
not the parent's) and thread ids, and moving times onto the parent's clock.

Clocks: ``perf_counter_ns`` is ``CLOCK_MONOTONIC`` on Linux (and the monotonic clock on
macOS and Windows), one clock for every process of a machine, so times need no change.
That is checked, not assumed: each flush carries a ``(perf_counter_ns, time_ns)`` pair
taken together, and the parent compares its own pair: if the two processes' wall-minus-
monotonic offsets differ by more than :data:`SAME_CLOCK_NS`, the worker's times are
moved by the difference (the wall clock is the common reference then).

Child side: :func:`begin_child` (once, right after fork), :func:`set_mode` (record as
the parent does), :func:`flush`. Parent side: :class:`Process`, :meth:`Process.ingest`.
"""
import itertools
import threading
import time
from time import perf_counter_ns

from . import memory, records, recorder as R
from .state import attach_engine, state as _profiler_state
from .observer import flags

SAME_CLOCK_NS = 1_000_000    # offsets closer than 1 ms: one clock (jitter of two calls)
_TIME_FIELDS = frozenset(("t", "t0", "t1", "t_push", "t_ready", "call_t0", "t_start",
                          "t_return", "t_done"))
_TID_FIELDS = frozenset(("call_tid", "pusher"))   # a track of this process
_OP_KEY = records.KINDS[records.OP_DEP].fields.index("key") + 1


def _clock_pair():
    return perf_counter_ns(), time.time_ns()


# -- child side ---------------------------------------------------------------------------
_sent_keys = set()


def begin_child():
    """Forget the parent's recording in a forked child: its buffers (the parent dumps
    them), its memory log and totals, and locks a parent thread may have held at fork.
    Slice keys are kept (their numbers stay valid; a flush names the ones it uses)."""
    R._buffers_lock = threading.Lock()
    R._key_lock = threading.Lock()
    del R.buffers[:]
    R._tids = itertools.count()
    R.local.__init__()                     # this thread's fresh buffer: tid 0
    memory._lock = threading.Lock()
    del memory.log[:]
    memory.totals.clear()
    memory._last_sample.clear()
    memory.rows.clear()
    memory.samples = R.register_buffer("memory counters", track=False)
    _profiler_state.lock = threading.RLock()
    _sent_keys.clear()
    set_mode(0)


def set_mode(mode):
    """Record what the parent records: ``mode`` is its profiler mode bits
    (:mod:`.config`), 0 when it is not recording. The child's profiler state says so
    and the engine follows it as in any process (``state.attach_engine``); no
    listener is told (the child never dumps: the parent writes its events)."""
    st = _profiler_state
    if mode:
        st.mode = mode
    st.state, st.paused = ("run" if mode else "stop"), False
    attach_engine(st)
    flags.mem_rows = False            # the allocation CSV is the parent's


def flush():
    """Everything recorded since the last flush, as plain data, then dropped here."""
    if flags.mem:
        memory.fold()
    snap = R.snapshot()
    buffers = []
    used = set()
    for buf, n, m in snap:
        if not n and not m:
            continue
        slices = buf.slices[:m]
        used.update(slices[0::records.SLICE_WIDTH])
        events = buf.events[:n]
        used.update(ev[_OP_KEY] for ev in events if ev[records.KIND] == records.OP_DEP)
        buffers.append((buf.tid, buf.name, buf.sort_index, buf.track, events, slices))
    R.clear(snap)
    new = used - _sent_keys
    table = R.key_table() if new else []
    shaped = R.shaped_key_sigs() if new else {}
    # (name, cat), or (name, cat, signature) for a key with attributes
    keys = {k: table[k] if k not in shaped else (*table[k], shaped[k]) for k in new}
    _sent_keys.update(new)
    return {"clock": _clock_pair(), "keys": keys, "buffers": buffers}


# -- parent side --------------------------------------------------------------------------
processes = []           # every Process of this profile, in the order they appeared
_processes_lock = threading.Lock()


class Process:
    """Another process's track group in this profile: ``name`` (its ``process_name``),
    ``labels`` (its ``process_labels``), and the buffers its flushes filled."""

    def __init__(self, name, labels=""):
        self.name = name
        self.labels = labels
        self._buffers = {}     # the worker's tid -> this process's ThreadBuffer
        self._keys = {}        # the worker's slice key -> this process's
        self.offset_ns = None  # added to the worker's times (0: one clock)
        self.flushes = 0
        with _processes_lock:
            processes.append(self)

    def _clock(self, pair):
        child_perf, child_wall = pair
        parent_perf, parent_wall = _clock_pair()
        delta = (child_wall - child_perf) - (parent_wall - parent_perf)
        return 0 if abs(delta) <= SAME_CLOCK_NS else delta

    def ingest(self, data):
        """Put one flush into this process's buffers (called on the thread that
        received it; only that thread fills these buffers)."""
        if self.offset_ns is None:
            self.offset_ns = self._clock(data["clock"])
        self.flushes += 1
        for key, spec in data["keys"].items():
            name, cat = spec[0], spec[1]
            self._keys[key] = R.key_ids(cat)[name] if len(spec) == 2 else \
                R.shaped_keys[(name, spec[2])]
        for tid, name, sort_index, track, _, _ in data["buffers"]:
            if tid not in self._buffers:
                buf = R.register_buffer(name, sort_index, track)
                buf.process = self
                self._buffers[tid] = buf
        off, keys = self.offset_ns, self._keys
        for tid, _, _, _, events, slices in data["buffers"]:
            buf = self._buffers[tid]
            if slices:
                out = list(slices)
                out[0::3] = [keys[k] for k in slices[0::3]]
                if off:
                    out[1::3] = [t + off for t in slices[1::3]]
                    out[2::3] = [t + off for t in slices[2::3]]
                buf.slices.extend(out)
            if events:
                buf.events.extend(self._translate(ev) for ev in events)

    def _translate(self, ev):
        """A worker's record with this process's thread ids and clock."""
        kind = records.KINDS[ev[records.KIND]]
        if kind.code not in (records.SUB_OPERATOR, records.OP_DEP) and not self.offset_ns:
            return ev
        out = list(ev)
        for i, field in enumerate(kind.fields, 1):
            if field in _TIME_FIELDS and self.offset_ns and out[i]:
                out[i] += self.offset_ns
            elif field in _TID_FIELDS and out[i] in self._buffers:
                out[i] = self._buffers[out[i]].tid
            elif field == "key":   # a slice key of the worker's
                out[i] = self._keys[out[i]]
        return tuple(out)
