"""One read model of a trace (one file, or several merged): :class:`Trace`, tables built
in one pass.

Why one model: ``xprof explain``, ``report``, ``diff`` and the ``xprof run`` summary read
the same events; each building its own view of them meant several copies of the same
columns and of the rules that make them (issue #25). A :class:`Trace` is built once,
while the file's batches are decoded, with the per-event rules of :mod:`.rules`, and
queried by the commands (``stats``, ``explain``, ``diff``, ``report`` and the run
summary are functions of a ``Trace``); nothing per event survives as a Python object, so a
million-op trace is walked in seconds and well under a gigabyte. ``xprof stats`` is a
query on it too, so it is built within the streaming statistics' memory: columns grown
in place (``array.array``, no chunk per batch to join), 4 to 8 bytes a value, parts
only some readers need (nesting) made on first use, and parts a reader never reads
(dependency records, flow steps) left out by the load's options (:mod:`.builder`).

What it holds (the encoding is the runtime's, see docs/dependencies.md):

* every complete slice: ``X`` events (start and end usable times, :mod:`.rules`), and
  ``B``/``E`` pairs folded per thread (MXNet);
  times in integer nanoseconds (:func:`.rules.ns`: one rounding, integers exact);
  name and category ids; the thread (its process and thread keys, :func:`.rules.thread_key`);
* nesting, as Perfetto's ``slice`` table has it: per slice its ``parent`` (row, or -1)
  and ``depth`` (:mod:`.slices`' rules), computed once, when a reader first asks;
* ``args.dep = [p, q, t, v...]`` on an engine op's slice: pushed ``p`` ns and made ready
  ``q`` ns before it started, pushed by thread ``t`` (same pid), variables read (``v``)
  and written (``-v``);
* ``args.wait`` on a sync point's slice (``WaitForVar``/``WaitForAll``): the variables
  it waited for, or ``"all"``;
* flows, bound once: every ``s``/``t``/``f`` step with the slice it binds to by
  :mod:`.slices`' rules (``flow_*``; a marked copy numbers its own arrows above them);
* async ``b``/``e`` pairs, paired once by :func:`.rules.async_key` (``async_*``), and from
  the same pairing the custom-op calls' breakdown (``call_stats``, :mod:`.callstats`:
  the pairs whose ``b`` carries a call's split);
* thread names (``thread_name`` metadata); the processes (``pids`` in order of first
  appearance, ``process_names``, ``process_labels``: :meth:`Trace.process_rank`);
* counters (``counter_*``, :mod:`.counters`): every numeric value of every ``C`` event;
* the layer and input shapes of each slice (``layer``/``shape``, :mod:`.argkeys`), when
  the load asked for them (``keys=True``);
* the collectives' args (``collectives``: the ``X`` events whose args name a
  ``Collective name`` or a ``Last to arrive``, runtime/dist/events.py);
* what ``xprof stats`` counts beside the slices: the durations with digits below the
  nanosecond in picoseconds (``ps_ordinal``/``ps_value``, ``async_ps``), the durations
  without a usable place in time (``unplaced``);
* the events' time extent and the threads of timed events (``extent``: the report's
  overview);
* ``otherData.settings``: the engine settings the run used (``xprof run`` records them;
  a finding proposes changing one only knowing its value), and the file's top-level keys.

Python-line samples (category ``python_line``, docs/lines.md) are no work slices: they
are kept apart (``line_*`` columns, and ``python_lines``, :mod:`.linesamples`).
"""
from __future__ import annotations

import gc
import os

import numpy as np

from . import builder, callstats, slices
from .batch import Batch
from .rules import id_key, rank_of
from .tracefile import TraceReader

_EMPTY_I64 = np.zeros(0, dtype=np.int64)


class Trace:
    """Columns of one trace (plain data; build it with :meth:`load`, :func:`from_events`
    or a :class:`Builder` fed by another pass).

    Slices (one row each, sorted by thread, then start, longer first at equal starts):
      ``thread`` (index into ``threads``), ``name``/``cat`` (indices into ``names``/
      ``cats``), ``start``/``end`` (int ns), ``ordinal`` (the event's index in the file;
      ``-1 - i`` for a folded ``B``/``E`` pair whose ``B`` is event ``i``), ``parent``
      (the row of the innermost slice of its thread it starts inside, -1 at top level)
      and ``depth`` (0 at top level).
    Dependency records (``dep_*``, one row per slice carrying ``args.dep``, same order):
      ``dep_slice`` (row of its slice), ``dep_push``/``dep_ready`` (int ns),
      ``dep_pusher`` (thread index), ``dep_vars``/``dep_var_start`` (CSR: the variables of
      record i are ``dep_vars[dep_var_start[i]:dep_var_start[i + 1]]``, > 0 read, < 0
      written); a ``records="times"`` load (``xprof stats``) fills only ``dep_slice``,
      ``dep_push`` and ``dep_ready``.
    Sync points (``sync_*``): ``sync_slice``, ``sync_all`` (bool), ``sync_vars``/
    ``sync_var_start`` (CSR of the variables waited for); ``instant_slice``: the rows of
    the slices made of a sync point's instant (an ``i`` at the end of the wait, its
    ``waited`` before it): no slice of the file to a statistics reader.
    Flow steps (``flow_*``, one row per ``s``/``t``/``f`` event, by flow then file order):
      ``flow_id`` (the id: an integer in [0, 2^62), else ``-1 - k`` for
      ``flow_other_ids[k]``, the id as :func:`.rules.id_key` keys it; ``flow_key(i)``),
      ``flow_phase`` (``links.FLOW_PHASES``: 0 ``s``, 1 ``t``, 2 ``f``), ``flow_thread``,
      ``flow_ts`` (int ns), ``flow_slice`` (the row of the slice it binds to, -1: none),
      ``flow_ordinal``; ``max_flow_id``: the largest integer flow id (0 without).
    Async pairs (``async_*``, one row per ``b`` closed by its ``e``, by start): ``async_name``/
      ``async_cat``, ``async_thread`` (the ``b``'s), ``async_start``/``async_end`` (int ns),
      ``async_ordinal`` (the ``b``'s index in the file), ``async_call`` (True: a custom-op
      call span, counted in ``call_stats``).
      ``async_end_ordinal`` (the ``e``'s), ``async_process`` (index into ``pids``).
    Python-line samples (``line_*``: ``line_thread``, ``line_name``, ``line_start``,
      ``line_end``, ``line_ordinal``, sorted as the slices) and ``python_lines``.
    Counters (``counter_*``, one row per value, file order): ``counter_series`` (into
      ``counter_series_table``: ``(cat, name, key, single)``), ``counter_value``,
      ``counter_is_int``, ``counter_ts`` (us).
    ``layer``/``shape`` (``keys=True``): per slice the id of its layer in ``layers`` and
      of its shapes' label in ``shape_labels`` (-1: none).
    ``threads``: ``[(pid, tid, name)]``; ``pids``, ``process_names``, ``process_labels``;
    ``settings``: ``otherData.settings`` of the file ({setting: value}, empty if none);
    ``top``: the file's other top-level keys.
    """

    @classmethod
    def load(cls, paths, on_batch=None, links="all", records=True, keys=True):
        """The :class:`Trace` of the file at ``paths``, or of several files merged
        (:mod:`.merging`), each streamed once (raises TraceError); see :func:`load`."""
        return load(paths, on_batch, links=links, records=records, keys=keys)[0]

    def __init__(self):
        self.threads = []
        self.names = []
        self.cats = []
        self.thread = self.name = self.cat = np.zeros(0, dtype=np.int32)
        self.start = self.end = self.ordinal = _EMPTY_I64
        self.dep_slice = self.dep_push = self.dep_ready = self.dep_pusher = _EMPTY_I64
        self.dep_vars = _EMPTY_I64
        self.dep_var_start = np.zeros(1, dtype=np.int64)
        self.sync_slice = self.sync_vars = _EMPTY_I64
        self.sync_all = np.zeros(0, dtype=bool)
        self.sync_var_start = np.zeros(1, dtype=np.int64)
        self.instant_slice = _EMPTY_I64
        self.flow_thread = np.zeros(0, dtype=np.int32)
        self.flow_phase = np.zeros(0, dtype=np.int8)
        self.flow_id = self.flow_ts = self.flow_slice = self.flow_ordinal = _EMPTY_I64
        self.flow_other_ids = []
        self.async_name = self.async_cat = self.async_thread = np.zeros(0, dtype=np.int32)
        self.async_start = self.async_end = self.async_ordinal = _EMPTY_I64
        self.async_call = np.zeros(0, dtype=bool)
        self.async_end_ordinal = _EMPTY_I64
        self.async_process = np.zeros(0, dtype=np.int32)
        self.async_ps = {}
        self.call_stats = callstats.CallStats()
        self.line_thread = self.line_name = np.zeros(0, dtype=np.int32)
        self.line_start = self.line_end = self.line_ordinal = _EMPTY_I64
        self.counter_series_table = []
        self.counter_series = np.zeros(0, dtype=np.int32)
        self.counter_value = self.counter_ts = np.zeros(0)
        self.counter_is_int = np.zeros(0, dtype=bool)
        self.layer = self.shape = None
        self.layers, self.shape_labels = [], []
        self.pids = []
        self.named_threads = {}   # thread key -> its thread_name, every named thread
        self.process_names, self.process_labels = {}, {}
        self.collectives = []
        self.unplaced = []
        self.ps_ordinal = self.ps_value = _EMPTY_I64
        self.extent = (float("inf"), float("-inf"), set())
        # "all"; "calls": a load for a reader that binds only the custom-op calls'
        # pairs and keeps only max_flow_id of the flows (Builder(links="calls")); "pairs":
        # every pair, no flow step read (max_flow_id None: xprof stats)
        self.links_bound = "all"
        # False: a load that read no dependency records nor sync points (Builder(records=))
        self.records_read = True
        self._max_flow_id = None
        self.events = 0
        self.skipped_deps = 0   # dependency records that were not integer lists (skipped)
        self.settings = {}
        self.top = {}
        self._nesting = None   # (parent, depth, overlapping), on first use
        self.python_lines = None   # the Python-line samples (linesamples.LineSamples)

    # Nesting is computed once, when a reader first asks (flow binding, a query by
    # parent or depth): explain, diff and the report never do, and on a thread whose
    # slices overlap their parents' ends it is a Python walk (0.34 s of a 1M-op explain)
    @property
    def parent(self):
        """Per slice, the row of the slice it starts inside, or -1 (int32)."""
        return self._nested()[0]

    @property
    def depth(self):
        """Per slice, its nesting depth, 0 at top level (int32)."""
        return self._nested()[1]

    @property
    def overlapping(self):
        """Per slice, True when it ends after its parent (it parents nobody)."""
        return self._nested()[2]

    def _nested(self):
        if self._nesting is None:
            self._nesting = slices.nesting(self.thread, self.start, self.end)
        return self._nesting

    @property
    def max_flow_id(self):
        if self.links_bound == "pairs":   # a load that read no flow step
            return None
        if self._max_flow_id is not None:   # a load that bound only the calls
            return self._max_flow_id
        big = [i for i in self.flow_other_ids if type(i) is int]   # beyond 2^62, negative
        return max([int(self.flow_id.max()) if len(self.flow_id) else 0, 0] + big)

    @max_flow_id.setter
    def max_flow_id(self, value):
        self._max_flow_id = value

    def flow_key(self, i):
        """The id of flow step ``i`` as the file has it (:func:`.rules.id_key`'s key)."""
        ident = int(self.flow_id[i])
        return ident if ident >= 0 else self.flow_other_ids[-1 - ident]

    @property
    def call_span(self):
        """``(first, last)`` ns of the custom-op call spans, or None without any."""
        if not self.async_call.any():
            return None
        return (int(self.async_start[self.async_call].min()),
                int(self.async_end[self.async_call].max()))

    @property
    def has_dependencies(self):
        return len(self.dep_slice) > 0

    def thread_name(self, i):
        pid, tid, name = self.threads[i]
        return name if name else f"thread {tid}" + (f" (pid {pid})" if pid not in (0, None) else "")

    def process_name(self, pid):
        """The name of process ``pid`` (a key of ``pids``), or None."""
        return self.process_names.get(pid)

    def process_rank(self, pid):
        """The rank process ``pid`` belongs to (:func:`.rules.rank_of`), or None."""
        return rank_of(self.process_names.get(pid, ""), self.process_labels.get(pid, ""))

    def thread_process(self):
        """Per thread (index of ``threads``), the index of its process in ``pids``."""
        at = {p: k for k, p in enumerate(self.pids)}
        return np.array([at.get(id_key(pid), -1) for pid, _, _ in self.threads],
                        dtype=np.int32)

    def move_clocks(self, shift_of_pid):
        """Move each process's times back by ``shift_of_pid[pid]`` ns (several files
        merged, :mod:`.merging`): slices, Python-line samples, async pairs, flow steps
        and the dependency records' push and ready times."""
        if not shift_of_pid or not any(shift_of_pid.values()):
            return
        by_thread = np.array([shift_of_pid.get(pid, 0) for pid, _, _ in self.threads] or [0],
                             dtype=np.int64)
        self.start = self.start - by_thread[self.thread]
        self.end = self.end - by_thread[self.thread]
        if len(self.dep_slice):
            moved = by_thread[self.thread[self.dep_slice]]
            self.dep_push, self.dep_ready = self.dep_push - moved, self.dep_ready - moved
        if len(self.line_thread):
            self.line_start = self.line_start - by_thread[self.line_thread]
            self.line_end = self.line_end - by_thread[self.line_thread]
        if len(self.flow_thread):
            self.flow_ts = self.flow_ts - np.where(self.flow_thread >= 0,
                                                   by_thread[self.flow_thread], 0)
        if len(self.async_process):
            by_process = np.array([shift_of_pid.get(p, 0) for p in self.pids] or [0],
                                  dtype=np.int64)
            moved = np.where(self.async_process >= 0, by_process[self.async_process], 0)
            self.async_start, self.async_end = self.async_start - moved, self.async_end - moved


def settings_of(top):
    """``otherData.settings`` of a trace's top-level keys, as a dict (empty if absent)."""
    other = top.get("otherData") if isinstance(top, dict) else None
    found = other.get("settings") if isinstance(other, dict) else None
    return dict(found) if isinstance(found, dict) else {}


class Builder(builder.Builder):
    """The :class:`Trace` built batch by batch (:mod:`.builder`: ``feed`` each batch of
    decoded events, ``finish`` for the ``Trace``); ``links``, ``records``, ``keys``:
    what the load keeps."""

    def __init__(self, links="all", records=True, keys=False):
        super().__init__(Trace(), links, records, keys)


def from_events(events, builder=None):
    """A :class:`Trace` of an in-memory list of events (tests, callers with events)."""
    b = builder if builder is not None else Builder(keys=True)
    b.feed(list(events))
    return b.finish()


def open_reader(paths):
    """The reader of ``paths``: a ``TraceReader``, or for several paths the merged
    inputs (:mod:`.merging`); both have ``batches()``, ``top``, ``truncated`` and the
    bytes read and to read."""
    if isinstance(paths, (list, tuple)) and len(paths) == 1:
        paths = paths[0]
    if isinstance(paths, (list, tuple)):
        from .merging import MergedInputs

        return MergedInputs(paths)
    return TraceReader(os.fspath(paths))


def load(paths=None, on_batch=None, links="all", records=True, keys=True, reader=None):
    """``(trace, reader)`` of the trace file at ``paths`` (a path, or a list of paths
    merged as :mod:`.merging` says; or the ``reader`` of :func:`open_reader`), streamed
    once (raises TraceError); ``on_batch()`` is called after each batch. ``links``,
    ``records``, ``keys``: what the load keeps (:mod:`.builder`); the reader has the
    file's ``top`` keys and ``truncated``."""
    if reader is None:
        reader = open_reader(paths)
    b = Builder(links=links, records=records, keys=keys)
    was = gc.isenabled()
    gc.disable()   # millions of short-lived dicts, no cycles
    try:
        for batch, _ in reader.batches():
            b.feed(Batch(batch))
            batch = None   # freed before the next batch is decoded (one batch alive)
            if on_batch is not None:
                on_batch()
    finally:
        if was:
            gc.enable()
    tl = b.finish()
    if isinstance(reader, TraceReader):
        tl.settings = settings_of(reader.top)
    else:
        reader.finish(tl)
        tl.settings = settings_of(reader.inputs[0].top) if reader.inputs else {}
    tl.top = reader.top
    return tl, reader
