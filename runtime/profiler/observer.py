"""The profiler's port: the one object everything that records calls.

The engine, the NDArray layer, custom operators and the profiling objects
(:mod:`.objects`) never touch the recorder's buffers or the record layout: they call
:data:`observer`, which builds the records (:mod:`.records`) and appends them to the
calling thread's buffer (:mod:`.recorder`). Each method records on the calling thread,
which is the thread the event belongs to.

``flags`` are the port's switches, plain attributes checked on hot paths: ``recording``
(anything is recorded), ``api`` (API slices), ``mem`` (memory log). The engine is told
separately, by the profiler state, through ``engine.observer`` (this object, or None)
and ``engine.profile_mask`` (which op modes it wants timed).

Hot-path form. A plain op or API slice is the bulk of every profile, and a Python call
per event costs more than the record itself. So the observer also exposes the two
attributes that method would use, and the engine and ``NDArray`` scalar path inline it::

    observer.sink.add_slice((observer.op_keys[name], t0, t1))   # == observer.op(name, ...)

``sink`` is the calling thread's recorder handle, ``op_keys``/``api_keys`` give a
name's slice key on first use. Only this module knows what they are.
"""
from time import perf_counter_ns

from . import recorder as R, records

OPERATOR, CUSTOM_OPERATOR, API = records.OPERATOR, records.CUSTOM_OPERATOR, records.API


class Flags:
    """Checked by the NDArray layer on every call; plain attributes for speed."""

    __slots__ = ("api", "mem", "recording")

    def __init__(self):
        self.api = self.mem = self.recording = False


flags = Flags()


class CallNames:
    """The strings and slice key one custom operator's events use, built once per op
    type: ``prefix`` (``"<op_type>::"``) and the key of ``<op_type>::pure_python``."""

    __slots__ = ("prefix", "pure_key")

    def __init__(self, name):
        self.prefix = name + "::"
        self.pure_key = R.key_ids(CUSTOM_OPERATOR)[self.prefix + records.PURE_PYTHON]


class Observer:
    """See the module docstring. One instance, :data:`observer`."""

    __slots__ = ("op_keys", "api_keys", "sink", "mask", "_call_names")

    def __init__(self):
        self.op_keys = R.key_ids(OPERATOR)
        self.api_keys = R.key_ids(API)
        self.sink = R.local   # the calling thread's buffer: .add (a record), .add_slice
        self.mask = 0         # op modes being profiled (set with the engine's mask)
        self._call_names = {}

    # -- the engine ------------------------------------------------------------------------
    def op(self, name, t0, t1):
        """A plain op ran on this thread from ``t0`` to ``t1`` (the engine inlines this)."""
        self.sink.add_slice((self.op_keys[name], t0, t1))

    def op_with(self, name, tag, attrs, t_push, t0, t1):
        """An op with attributes (``attrs``), or a custom operator's sub-operator
        (``tag``: its :class:`Call`), pushed at ``t_push``, ran from ``t0`` to ``t1``."""
        if tag is None:
            self.sink.add(records.slice_with_args(name, OPERATOR, t0, t1, attrs))
        else:
            # the call's fields, not the call: a tuple of plain values is untracked by
            # the garbage collector at its first pass, so recorded events never make
            # the collector walk the heap (keeping the call object measured +8 us per
            # call)
            self.sink.add((records.SUB_OPERATOR, tag.prefix + name, CUSTOM_OPERATOR, t0, t1,
                           t_push, tag.tid, tag.t_start, tag.name))

    # -- the NDArray layer -----------------------------------------------------------------
    def api(self, name, t0):
        """An API call (``mx.nd.<name>``, a sync point) from ``t0`` to now."""
        self.sink.add_slice((self.api_keys[name], t0, perf_counter_ns()))

    # -- custom operators --------------------------------------------------------------------
    def call_names(self, name):
        """The :class:`CallNames` of custom operator ``name`` (made on first use)."""
        names = self._call_names.get(name)
        if names is None:
            names = self._call_names[name] = CallNames(name)
        return names

    def call_begins(self, call):
        """A custom-operator call's Python code starts on this (pool) thread. Stamps
        the call with this thread's track and the start time its sub-operators'
        flow arrows begin from, and whether the call is profiled."""
        call.tid = R.local.buf.tid
        call.profiled = flags.recording and bool(self.mask & call.mode)
        call.t_start = perf_counter_ns()

    def call_ends(self, call):
        """The call's Python code returned (or raised): its ``<op>::pure_python`` slice."""
        t1 = perf_counter_ns()
        if call.profiled:
            self.sink.add_slice((call.pure_key, call.t_start, t1))

    # -- profiling objects (mx.profiler.Event, Task, Frame, Counter, Marker) ---------------
    def slice(self, name, cat, t0, t1):
        """A complete slice on this thread."""
        self.sink.add_slice((R.key_ids(cat)[name], t0, t1))

    def counter(self, name, cat, value, t=None):
        self.sink.add(records.counter(name, cat, perf_counter_ns() if t is None else t,
                                      value))

    def instant(self, name, cat, scope, t=None):
        self.sink.add(records.instant(name, cat, perf_counter_ns() if t is None else t,
                                      scope))

    def async_begin(self, name, cat, t, ident):
        self.sink.add(records.async_begin(name, cat, t, ident))

    def async_end(self, name, cat, t, ident):
        self.sink.add(records.async_end(name, cat, t, ident))


observer = Observer()
