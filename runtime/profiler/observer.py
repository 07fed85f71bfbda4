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
    op.t_push, op.pusher = perf_counter_ns(), observer.sink.tid  # == observer.pushed_by()

``sink`` is the calling thread's recorder handle (``tid``: its track), ``op_keys``/``api_keys`` give a
name's slice key on first use. Only this module knows what they are.
"""
from time import perf_counter_ns

from ..engine.base import tags_set as _tags_set, thread_state as _thread_state
from . import memory as _memory, recorder as R, records, sampler as _sampler
from .flags import Flags, flags  # noqa: F401 - the port's switches, re-exported

OPERATOR, CUSTOM_OPERATOR, API = records.OPERATOR, records.CUSTOM_OPERATOR, records.API
_sub_operator, _op_dep, _call_span = records.sub_operator, records.op_dep, records.call_span
_call_here, _SUB_ALONE = records.call_here, records.SUB_ALONE
COMMUNICATION = records.COMMUNICATION


class SubNames(dict):
    """sub-operator name -> ``"<op_type>::<name>"``, one op type's, each made on first
    use: recording a sub-operator looks its event name up (one C subscript) instead of
    concatenating a new string per record."""

    __slots__ = ("prefix",)

    def __missing__(self, name):
        full = self[name] = self.prefix + name
        return full


class CallNames:
    """The strings and slice key one custom operator's events use, built once per op
    type: ``prefix`` (``"<op_type>::"``), ``pure_name`` (``<op_type>::pure_python``)
    and its slice key ``pure_key``, ``subs`` (its sub-operators' event names)."""

    __slots__ = ("prefix", "pure_name", "pure_key", "subs")

    def __init__(self, name):
        self.prefix = name + "::"
        self.pure_name = self.prefix + records.PURE_PYTHON
        self.pure_key = R.key_ids(CUSTOM_OPERATOR)[self.pure_name]
        self.subs = SubNames()
        self.subs.prefix = self.prefix


class Observer:
    """See the module docstring. One instance, :data:`observer`.

    ``stamps`` (class attribute): the engine stamps queued ops with their push and
    ready times and pusher (read by the engine only where it already tests for an
    observer). :func:`dependency_records` is the benchmarks' switch for it."""

    stamps = True

    __slots__ = ("op_keys", "shaped_keys", "api_keys", "sink", "mask", "call_spans",
                 "_call_names", "mem_log", "slowed")

    def __init__(self):
        # the memory log's hot path, as the NDArray layer inlines it: ``mem_log((device,
        # nbytes, t_ns))`` at an allocation, ``mem_log((device, -nbytes, -1))`` at its
        # release (see :mod:`.memory`; list.extend of a tuple: atomic, no lock)
        self.mem_log = _memory.log.extend
        self.op_keys = R.key_ids(OPERATOR)
        self.shaped_keys = R.shaped_keys   # (name, input shapes) -> key (the engine inlines)
        self.api_keys = R.key_ids(API)
        self.sink = R.local   # the calling thread's buffer: .add (a record), .add_slice
        self.mask = 0         # op modes being profiled (set with the engine's mask)
        self.call_spans = True   # record a span per custom-op call (benchmarks turn it off)
        self._call_names = {}
        # xprof run --slow (runtime/slow.py): an op's start (its record's t0) -> the extra
        # ns it was given; the dump marks those events (args.slowed_ns)
        self.slowed = {}

    # -- the engine ------------------------------------------------------------------------
    def op(self, name, t0, t1):
        """A plain op ran on this thread from ``t0`` to ``t1`` (the engine inlines this)."""
        self.sink.add_slice((self.op_keys[name], t0, t1))

    def op_dep(self, name, t0, t1, t_push, t_ready, pusher, reads, writes, attrs=None):
        """An engine op ran on this thread from ``t0`` to ``t1``: every op's one record,
        whatever pushed it (docs/dependencies.md). Pushed at ``t_push`` by the thread
        with track ``pusher`` (None for both: pushed and run at once here), ready at
        ``t_ready``, reading and writing the engine variables ``reads``/``writes`` (kept
        as ``id()``s only: a record never keeps an array alive). ``attrs``: None, its
        input shapes as a tuple of shapes (``ndarray.with_shapes``), or a dict of
        attributes (a Gluon layer's ``{"name": "conv0"}``, a bulk segment's nodes,
        maybe with ``"Input Dims"``). The attributes are part of the record's slice key
        (:func:`args_key`), so the record holds integers only besides its name and
        category and the dump writes each distinct set of attributes once."""
        # Variables: a tuple display up to three (nearly every op: one to three, a
        # FullyConnected's data, weight and bias); tuple(map(id, ...)) measured ~3,000
        # instructions (callgrind), a display of three ~400. The key: an attrs dict (a
        # Gluon layer's op) is looked up by a plain tuple of its items, equal to the
        # stored OpArgs key and much cheaper to build than it (a tuple subclass's
        # constructor); only its first use stores the OpArgs (:meth:`attrs_key`).
        n = len(reads)
        if attrs is None:
            key = self.op_keys[name]
        elif type(attrs) is tuple:
            key = self.shaped_keys[(name, attrs)]
        else:
            key = self.dict_key(name, attrs)
        m = len(writes)
        self.sink.add(_op_dep(name, OPERATOR, t0, t1, t_push, t_ready, pusher,
                              id(reads[0]) if n == 1 else
                              (id(reads[0]), id(reads[1])) if n == 2 else
                              (id(reads[0]), id(reads[1]), id(reads[2])) if n == 3 else
                              tuple(map(id, reads)),
                              id(writes[0]) if m == 1 else
                              (id(writes[0]), id(writes[1])) if m == 2 else
                              tuple(map(id, writes)), key))

    def run_op(self, fn, args, name, t_push, op, reads, writes, attrs):
        """``fn(*args)``, timed, and its :meth:`op_dep` record: the engine's profiled run
        of an op that is not a custom operator's sub-operator (``op`` None: pushed and
        run at once here: no ready stamp or pusher, the variables given; else the
        queued op's). Returns the exception ``fn`` raised, or None. Where the extension
        is built, ``_oprecord``'s C method does the same in one call."""
        t0 = perf_counter_ns()
        exc = None
        try:
            fn(*args)
        except BaseException as e:  # noqa: BLE001 - the engine keeps it for the sync point
            exc = e
        if op is None:
            self.op_dep(name, t0, perf_counter_ns(), t_push, None, None, reads, writes,
                        attrs)
        else:
            self.op_dep(name, t0, perf_counter_ns(), t_push, op.t_ready, op.pusher,
                        op.reads, op.writes, attrs)
        return exc

    def dict_key(self, name, attrs):
        """The slice key of op ``name`` with the attributes dict ``attrs`` (also the
        native record's way to it: :mod:`._oprecord`)."""
        key = self.shaped_keys.get((name, tuple(attrs.items())))
        return self.attrs_key(name, attrs) if key is None else key

    def attrs_key(self, name, attrs):
        """The slice key of op ``name`` with attributes ``attrs`` (None, a tuple of input
        shapes, or a dict, stored as its items: :class:`~.recorder.OpArgs`)."""
        if attrs is None:
            return self.op_keys[name]
        return self.shaped_keys[(name, attrs if type(attrs) is tuple
                                 else R.OpArgs(attrs.items()))]

    def op_with(self, name, tag, attrs, t_push, t0, t1, t_ready=None, reads=(), writes=()):
        """A custom operator's sub-operator (``tag``: its :class:`Call`), pushed at
        ``t_push``, ready at ``t_ready``, ran from ``t0`` to ``t1``, with its dependency
        record; ``attrs`` are not kept (its name says whose it is)."""
        # the call's fields, not the call: plain values, so recorded events never make
        # the collector walk the heap (keeping the call object measured +8 us per
        # call)
        tid, t_call = tag.tid, tag.t_start
        if 0 < t_push < t_call:   # pushed while its operator was created, run after
            tid, t_call = tag.setup_tid, tag.setup_t0   # the call began: the creation's
        # (packed on this thread's list, records.SUB_ALONE_FIELDS: no tuple kept)
        self.sink.pack((
            tag.name, name, t0, t1, t_push, tid, t_call, t_ready,
            id(reads[0]) if len(reads) == 1 else tuple(map(id, reads)),
            id(writes[0]) if len(writes) == 1 else tuple(map(id, writes)), _SUB_ALONE))
        tag.subs.append(t1 - t0)   # list.append: atomic under the GIL (several workers)

    @staticmethod
    def sub_here(name, tag, t0, t1, reads, writes):
        """:meth:`op_with` for a sub-operator run at once on the thread that pushed it,
        which is the thread whose tag it is (NaiveEngine: the call's, or its
        creation's): pushed at ``t0``, never waited. A call run wholly on this thread
        (``tag.here``, see :meth:`call_begins`) keeps it as five values in its own
        list, its one record's (``records.SUB_HERE_FIELDS``); otherwise (a creation's)
        it is recorded on the list ``call_begins``/``setup_begins`` took from this
        thread (``tag.events``), its flow from the tag's own track and start."""
        here = tag.here
        if here is not None:
            here += (name, t0, t1, id(reads[0]) if len(reads) == 1 else tuple(map(id, reads)),
                     id(writes[0]) if len(writes) == 1 else tuple(map(id, writes)))
            return
        tag.events.append(_sub_operator(
            tag.names.subs[name], CUSTOM_OPERATOR, t0, t1, t0, tag.tid, tag.t_start,
            tag.name, None, id(reads[0]) if len(reads) == 1 else tuple(map(id, reads)),
            id(writes[0]) if len(writes) == 1 else tuple(map(id, writes))))
        tag.subs.append(t1 - t0)

    def _op_plain(self, name, t0, t1, t_push, t_ready, pusher, reads, writes, attrs=None):
        """:meth:`op_dep` without the dependency record: the plain slice (key, t0, t1)
        the engine recorded before dependency records existed (:func:`dependency_records`)."""
        self.sink.add_slice((self.attrs_key(name, attrs), t0, t1))

    def sync(self, name, t0, var=None):
        """A sync point on this thread waited from ``t0`` to now for ``var`` (None: for
        every op pushed, ``WaitForAll``)."""
        self.sink.add(records.sync(name, OPERATOR, t0, perf_counter_ns(),
                                   None if var is None else (id(var),)))

    @staticmethod
    def pushed_by():
        """(now, this thread's track): stamped on an op when it is pushed (the engine
        inlines it as ``perf_counter_ns()`` and ``observer.sink.tid``: a Python call per
        queued op measured ~1,800 instructions under callgrind)."""
        return perf_counter_ns(), R.local.tid

    # -- the NDArray layer -----------------------------------------------------------------
    def api(self, name, t0):
        """An API call (``mx.nd.<name>``, a sync point) from ``t0`` to now."""
        self.sink.add_slice((self.api_keys[name], t0, perf_counter_ns()))

    @staticmethod
    def allocation_row(nbytes, device, role):
        """An allocation's row of the memory CSV (called while ``flags.mem_rows``)."""
        _memory.add_row(nbytes, device, role)

    # -- custom operators --------------------------------------------------------------------
    def call_names(self, name):
        """The :class:`CallNames` of custom operator ``name`` (made on first use)."""
        names = self._call_names.get(name)
        if names is None:
            names = self._call_names[name] = CallNames(name)
        return names

    def call_pushed(self):
        """A custom-operator call is being pushed (on the caller's thread): the push
        time its span starts at, or 0 when no span will be recorded."""
        return perf_counter_ns() if flags.recording and self.call_spans else 0

    def call_begins(self, call, here=False):
        """A custom-operator call's Python code starts on this (pool) thread. Stamps
        the call with this thread's track and the start time its sub-operators'
        flow arrows begin from, and whether the call is profiled. A profiled call with
        its dependency stamps is recorded as one packed record at its end
        (:meth:`call_done`, ``records.call_here``), in this thread's ``packed`` list
        (``call.pend``): its ``pure_python`` slice and its span, and, when ``here``
        (the call runs at once on the thread that pushed it: NaiveEngine), the
        sub-operators its Python code runs here (kept in ``call.here`` meanwhile,
        :meth:`sub_here`; those its creation ran are recorded as they ran)."""
        call.profiled = profiled = flags.recording and (self.mask & call.mode) != 0
        if here and call.pend is not None:   # created just now on this thread (see
            if profiled and call.t_push:     # setup_begins): its track and lists are set
                call.here = []
            else:
                call.pend = None
        else:
            buf = R.local.buf
            call.pend = buf.packed if profiled and call.t_push else None
            if here and call.pend is not None:
                call.here = []
            call.tid = buf.tid
            call.events = buf.events   # (call_ends records here: no second thread-local read)
        call.t_start = perf_counter_ns()
        if flags.lines and profiled:   # the sampler samples this thread meanwhile
            call.sample = _sampler.enter(call.name, call.t_start)

    def setup_begins(self, setup):
        """A custom operator is being created on this (the caller's) thread: stamps the
        ``operator.Call`` tag of the call it is created for with this thread's track
        (its sub-operators' pusher) and the start of the creation (its Setup time)."""
        buf = R.local.buf
        setup.tid = setup.setup_tid = buf.tid   # (kept once the call begins)
        setup.events = buf.events   # (sub_here records its sub-operators run here)
        setup.pend = buf.packed     # (its call, if it runs here, is packed there)
        setup.t_start = setup.setup_t0 = perf_counter_ns()
        if flags.lines:
            setup.sample = _sampler.enter(setup.name + _sampler.SETUP_SUFFIX, setup.t_start)

    @staticmethod
    def setup_ends(setup):
        """The creation begun by :meth:`setup_begins` returned (or raised)."""
        if setup.sample is not None:
            _sampler.leave(setup.sample, perf_counter_ns())
            setup.sample = None

    @staticmethod
    def call_waited(t0):
        """This thread waited at a sync point (``wait_to_read``, ``asnumpy``,
        ``asscalar``, ``waitall``) from ``t0`` to now: inside a profiled custom-op
        call's Python code, that is the call's Blocked time."""
        call = _thread_state.tag if _tags_set else None
        if call is not None and call.profiled:
            call.blocked += perf_counter_ns() - t0

    def call_ends(self, call):
        """The call's Python code returned (or raised): its ``<op>::pure_python`` slice."""
        t1 = call.t_return = perf_counter_ns()
        if call.sample is not None:
            _sampler.leave(call.sample, t1)
            call.sample = None
        if call.profiled and call.pend is None:   # (a packed call: in its one record)
            if call.t_push:   # with the dependency record of the call as the engine saw it
                names = call.names
                call.events.append(_op_dep(names.pure_name, CUSTOM_OPERATOR, call.t_start,
                                           t1, call.t_push, call.t_ready, call.pusher,
                                           call.reads, call.writes, names.pure_key))
            else:
                self.sink.add_slice((call.names.pure_key, call.t_start, t1))

    def call_done(self, call, events=None):
        """The call's outputs are ready (or it failed): its span, from the push to now,
        on the thread that completed it (see ``records.call_span``); ``events``: that
        thread's record list when the caller has it (``call.events``: the call ran
        there). A packed call (:meth:`call_begins`) is recorded as one record instead,
        in the list of the thread that ran its Python code (``records.call_here``: its
        ``pure_python`` slice, its span and the sub-operators it ran there, unpacked at
        the next snapshot)."""
        if call.profiled:
            pend = call.pend
            if pend is not None:   # (one extend: a snapshot takes whole calls only)
                pend += _call_here(
                    call.here, call.name, call.t_push, call.t_ready, call.t_start,
                    call.t_return, perf_counter_ns(), call.blocked, call.setup, call.pusher,
                    call.reads, call.writes, call.names.pure_key, call.t_span,
                    sum(subs) if (subs := call.subs) else 0)
            elif call.t_span:
                (self.sink.add if events is None else events.append)(_call_span(
                    call.name, CUSTOM_OPERATOR, call.t_span, call.t_ready, call.t_start,
                    call.t_return, perf_counter_ns(), call.blocked, sum(call.subs),
                    call.setup))

    # -- the distributed kvstores ------------------------------------------------------------
    def collective(self, name, t0, t1, args, phases):
        """A kvstore collective ran on this (the comm) thread from ``t0`` to ``t1``: an
        operator slice with its Kineto arguments ``args`` (a dict), and inside it each
        phase ``(phase name, t0, t1)`` as a slice of category ``communication``."""
        self.sink.add(records.slice_with_args(name, OPERATOR, t0, t1, args))
        keys = R.key_ids(COMMUNICATION)
        for phase, p0, p1 in phases:
            self.sink.add_slice((keys[phase], p0, p1))

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


def _native_op_dep():
    """:meth:`Observer.op_dep` built in C (``_oprecord.c``: the same record in one C call,
    ~6,600 instructions an op less), or None where the extension was not built."""
    try:
        from ._oprecord import OpDep
    except ImportError:
        return None
    # (a class attribute that is not a descriptor: called as observer.op_dep(name, ...))
    return OpDep(records.OP_DEP, OPERATOR, R.local, observer.op_keys, observer.shaped_keys,
                 observer.dict_key)


# (the Python methods: where the extension is not built; the tests' reference)
PYTHON_OP_DEP, PYTHON_RUN_OP = Observer.op_dep, Observer.run_op
NATIVE_OP_DEP = _native_op_dep()
if NATIVE_OP_DEP is not None:
    Observer.op_dep, Observer.run_op = NATIVE_OP_DEP, NATIVE_OP_DEP.run_op
_WITH_DEPS = (Observer.op_dep, Observer.sync, Observer.run_op)


def dependency_records(on):
    """Benchmark knob (``benchmarks/bench_profiler.py``, ``bench_instructions.py``),
    never used by the runtime: ``on=False`` makes the engine record what it recorded
    before dependency records (docs/dependencies.md): a plain slice per op, no push or
    ready stamps, no pusher, no variables, no sync-point records. It swaps the
    observer's methods on the class and clears ``Observer.stamps``, so the switch costs
    nothing where it is not used; the engine still makes its one observer call per op
    (custom-operator calls keep their records: the benchmarks' loop has none)."""
    Observer.op_dep, Observer.sync, Observer.run_op = _WITH_DEPS if on else (
        Observer._op_plain, lambda self, name, t0, var=None: None, PYTHON_RUN_OP)
    Observer.stamps = bool(on)
