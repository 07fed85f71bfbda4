"""The profiler's record vocabulary: every kind of record the recorder stores.

This module is the one place that says what a record holds. The observer
(:mod:`.observer`) builds records with the constructors below, the encoder
(:mod:`.chrome`) writes each kind through the table it keys by :data:`KINDS`, and the
aggregator (:func:`.aggregate.aggregate_lists`) counts each kind by its ``stats`` rule.
Nothing else reads a record's fields by position.

Two shapes, both plain values (nothing for the garbage collector to walk):

* a **plain slice** (every operator and API call: nearly all of a profile) is three
  integers ``key, t0, t1`` appended to a thread's ``slices`` list, where ``key`` numbers a
  (name, category) pair (:func:`.recorder.key_ids`). ``SLICE_WIDTH`` integers per slice.
* every other record is a tuple ``(kind, name, cat, t, ...)``: the kind's code, then a
  name and category, then its first time stamp (integer ``perf_counter_ns``), then the
  kind's own fields. Tuples of str/int/float (an ``args`` dict of strings at most) are
  untracked by the cyclic collector at its first pass.

One more shape exists only between recording and the next snapshot: a **packed call**
(:func:`call_here`), the one record of a profiled custom-operator call, plain values
in the ``packed`` list of the thread that ran its Python code, unpacked into the kinds
above (:func:`unpack_calls`) when a snapshot is taken (``recorder.snapshot``): readers
never see it.

Adding a kind: a code, a :class:`Kind` entry in :data:`KINDS` (fields and stats rule) and
a constructor here; an encoder entry in :mod:`.chrome`; an observer method in
:mod:`.observer` (see docs/architecture.md, "to add X").
"""

# Category names the runtime records under: the strings ``xprof stats`` reads.
from xprof.traces.names import (API, COMMUNICATION, CUSTOM_OPERATOR,  # noqa: F401
                                DEVICE_STORAGE, EVENT, OPERATOR, PURE_PYTHON, XPROF)

# Position of the common head of every tuple record.
KIND, NAME, CAT, T = 0, 1, 2, 3

# Plain slices: a flat run of integers per slice in a thread's ``slices`` list.
SLICE_FIELDS = ("key", "t0", "t1")
SLICE_WIDTH = len(SLICE_FIELDS)

# Kind codes (small ints: compared on every record at dump time).
SLICE_WITH_ARGS, SUB_OPERATOR, COUNTER, INSTANT, ASYNC_BEGIN, ASYNC_END, OP_DEP, SYNC, \
    CALL_SPAN, LINE_SAMPLE = range(1, 11)

# Stats rules: how the aggregator counts a kind (the field right after T is the second
# field the rule reads).
SPAN = "span"                # a duration: fields t0, t1 at T and T + 1
SAMPLE = "sample"            # a counter value: fields t, value
OPEN = "open"                # async begin: fields t, id; pairs with CLOSE by (cat, name, id)
CLOSE = "close"              # async end: fields t, id; a duration from its OPEN
NONE = None                  # not in the statistics (instants)
CALL = "call"                # a custom-op call: the Custom Operator Calls section
                             # (xprof.traces.callstats), never a Time row


class Kind:
    """A record kind: its code, label, field names (after the kind code), stats rule,
    and how the trace shows it: ``phase`` is the Chrome event phase (``"X"``: a complete
    slice, with an ``args`` field if it has one; others become one event each, with
    ``keys`` mapping further fields to event keys). Kinds the trace shows in a way of
    their own (flow arrows, counter series) have an encoder of their own in
    :mod:`.chrome`; every other kind is written from this declaration alone."""

    __slots__ = ("code", "label", "fields", "stats", "phase", "keys")

    def __init__(self, code, label, fields, stats, phase, keys=None):
        self.code, self.label, self.fields, self.stats = code, label, fields, stats
        self.phase = phase
        self.keys = dict(keys or {})

    def __repr__(self):
        return f"<record kind {self.label}>"


KINDS = {k.code: k for k in (
    Kind(SLICE_WITH_ARGS, "slice with args", ("name", "cat", "t0", "t1", "args"), SPAN, "X"),
    Kind(SUB_OPERATOR, "custom-op sub-operator",
         ("name", "cat", "t0", "t1", "t_push", "call_tid", "call_t0", "call_name",
          "t_ready", "reads", "writes"), SPAN,
         "X"),   # and a flow arrow, and its dependency record (chrome.py)
    # An engine op with its dependency record (docs/dependencies.md): pushed at t_push by
    # the thread with track `pusher` (None: pushed and run at once by this thread),
    # ready (every dependency satisfied) at t_ready, variables read and written as
    # id()s (numbered densely per trace by the encoder); key: the slice key
    # of its name and category, or of its name and input shapes when operators are
    # profiled (recorder.shaped_keys: the trace's args["Input Dims"]), so the record
    # holds integers only besides its name and category. ``reads``/``writes``: one id()
    # or a tuple of them (:func:`var_ids`), here and in SUB_OPERATOR.
    Kind(OP_DEP, "op with dependencies",
         ("name", "cat", "t0", "t1", "t_push", "t_ready", "pusher", "reads", "writes",
          "key"),
         SPAN, "X"),
    # A sync point (WaitForVar / WaitForAll): the variables waited for (None: all). An
    # instant at its end with the wait's length in args (not a slice: the statistics of
    # ops stay those of ops).
    Kind(SYNC, "sync point", ("name", "cat", "t0", "t1", "vars"), NONE, "i"),
    Kind(COUNTER, "counter sample", ("name", "cat", "t", "value"), SAMPLE, "C"),
    Kind(INSTANT, "instant", ("name", "cat", "t", "scope"), NONE, "i", {"scope": "s"}),
    Kind(ASYNC_BEGIN, "async begin", ("name", "cat", "t", "id"), OPEN, "b", {"id": "id"}),
    Kind(ASYNC_END, "async end", ("name", "cat", "t", "id"), CLOSE, "e", {"id": "id"}),
    Kind(CALL_SPAN, "custom-op call",
         ("name", "cat", "t", "t_ready", "t_start", "t_return", "t_done", "blocked", "sub",
          "setup"), CALL,
         "b"),   # a b/e pair with the split as args (chrome.py)
    # A sample of a thread's Python stack (profiler/sampler.py), in the thread's lines
    # buffer: name = the custom-op call it runs (op name, "_backward_<op>", or None
    # outside a call), t = when it was taken, w = the time it stands for (ns since the
    # sampler's previous tick), call = the call's number (0: none), t_start = the call's
    # start, stack = (code, lineno, code, lineno, ...) leaf first, down to the user's
    # forward/backward/create_operator; stack None (and w 0): the call ended at t.
    # Folded into slices at dump (profiler/linefold.py).
    Kind(LINE_SAMPLE, "python line sample",
         ("name", "cat", "t", "w", "call", "t_start", "stack"), NONE, "X"),
)}


def position(code, field):
    """Where ``field`` stands in a record tuple of kind ``code`` (after the kind code):
    readers of records index them by these names, from the declarations above."""
    return 1 + KINDS[code].fields.index(field)


SUB_T_READY, SUB_READS, SUB_WRITES = (position(SUB_OPERATOR, f)
                                      for f in ("t_ready", "reads", "writes"))
SYNC_VARS = position(SYNC, "vars")


def var_ids(field):
    """The ``id()``s of a ``reads``/``writes`` field as a tuple. The field is the one
    variable's ``id()`` itself (an int: nearly every op reads and writes one) or a tuple
    of them: a 1-tuple per field would be one more object per record for the garbage
    collector to count and sweep (two per op, six per ``Custom`` call), measured in
    docs/performance.md."""
    return (field,) if type(field) is int else field


# -- constructors: every record is built by one of these (tests/profiler/test_records.py) --
def slice_with_args(name, cat, t0, t1, args):
    """A complete slice carrying an ``args`` dict (an op with attributes)."""
    return (SLICE_WITH_ARGS, name, cat, t0, t1, args)


def sub_operator(name, cat, t0, t1, t_push, call_tid, call_t0, call_name, t_ready=None,
                 reads=(), writes=()):
    """A custom operator's sub-operator: a slice, plus a flow arrow from the call's
    Python slice (on thread ``call_tid``, begun at ``call_t0``) at ``t_push``, and its
    dependency record (ready at ``t_ready``, variables as :func:`var_ids` fields)."""
    return (SUB_OPERATOR, name, cat, t0, t1, t_push, call_tid, call_t0, call_name, t_ready,
            reads, writes)


def op_dep(name, cat, t0, t1, t_push, t_ready, pusher, reads, writes, key):
    """An engine op and its dependency record (``reads``/``writes``: :func:`var_ids` fields;
    ``key``: the slice key of ``(name, cat)`` or of its name and input shapes)."""
    return (OP_DEP, name, cat, t0, t1, t_push, t_ready, pusher, reads, writes, key)


def sync(name, cat, t0, t1, var_ids):
    """A sync point that waited from ``t0`` to ``t1`` for ``var_ids`` (None: everything)."""
    return (SYNC, name, cat, t0, t1, var_ids)


def counter(name, cat, t, value):
    return (COUNTER, name, cat, t, value)


def instant(name, cat, t, scope):
    """An instant marker; ``scope`` is 'g' (global), 'p' (process) or 't' (thread)."""
    return (INSTANT, name, cat, t, scope)


def async_begin(name, cat, t, ident):
    return (ASYNC_BEGIN, name, cat, t, ident)


def async_end(name, cat, t, ident):
    return (ASYNC_END, name, cat, t, ident)


def call_span(name, cat, t_push, t_ready, t_start, t_return, t_done, blocked, sub, setup=0):
    """One custom-operator call: pushed at ``t_push``, its inputs written at ``t_ready``
    (the engine's ready stamp of the call), its Python code ran from ``t_start`` to
    ``t_return`` (``blocked`` ns of it at sync points), its outputs were ready at
    ``t_done``; ``sub`` is its sub-operators' summed run time (ns, those launched while
    the operator was created included) and ``setup`` the Python time of creating the
    operator (``create_operator``, the ``CustomOp``'s ``__init__``; 0 for a call that
    reused one)."""
    return (CALL_SPAN, name, cat, t_push, t_ready, t_start, t_return, t_done, blocked, sub,
            setup)


def call_split(ev):
    """``(latency, inputs, pool, python, blocked, tail, sub, setup)`` ns of a
    :func:`call_span` record; latency == inputs + pool + python + blocked + tail exactly
    (inputs + pool is Queued). The ready stamp is clamped into [push, start]: the two
    clocks are one (``perf_counter_ns``), so this only guards the sum."""
    _, _, _, t_push, t_ready, t_start, t_return, t_done, blocked, sub, setup = ev
    t_ready = t_push if t_ready < t_push else t_start if t_ready > t_start else t_ready
    return (t_done - t_push, t_ready - t_push, t_start - t_ready,
            t_return - t_start - blocked, blocked, t_done - t_return, sub, setup)


def line_sample(name, cat, t, w, call, t_start, stack):
    """A Python stack sample (see the kind's declaration)."""
    return (LINE_SAMPLE, name, cat, t, w, call, t_start, stack)


# -- a packed call: one record at record time, the kinds above at the next snapshot --------
# A packed call is a run of plain values in its thread's ``packed`` list: ``n_subs`` times
# the fields of a sub-operator its Python code ran at once on that thread
# (``observer.sub_here`` keeps these five values in the call's own list meanwhile), then
# the call's fields, ``n_subs`` last (so the list is read from its end). It holds what
# the call's pure-Python and span records and, for a call run at once (NaiveEngine:
# Python code, sub-operators and completion on one thread), its sub-operator records
# would. Recording extends lists and keeps no tuple: nothing of it stays for the
# garbage collector to track (with a tuple per record, a young-generation collection
# every ~5,000 profiled calls, docs/performance.md).
SUB_HERE_FIELDS = ("name", "t0", "t1", "reads", "writes")
SUB_HERE_WIDTH = len(SUB_HERE_FIELDS)
CALL_HERE_FIELDS = ("name", "t_push", "t_ready", "t_start", "t_return", "t_done",
                    "blocked", "setup", "pusher", "reads", "writes", "pure_key",
                    "t_span", "sub_ns", "n_subs")
CALL_HERE_WIDTH = len(CALL_HERE_FIELDS)
# A sub-operator run on another thread than its call's Python code (an engine worker),
# packed on that thread's list by ``observer.op_with`` as these values, ``SUB_ALONE``
# last (a call's last value, ``n_subs``, is never negative): the fields of
# :func:`sub_operator`, the call's name first and its own without the call's prefix.
SUB_ALONE = -1
SUB_ALONE_FIELDS = ("call_name", "name", "t0", "t1", "t_push", "call_tid", "call_t0",
                    "t_ready", "reads", "writes", "mark")
SUB_ALONE_WIDTH = len(SUB_ALONE_FIELDS)


def call_here(subs, name, t_push, t_ready, t_start, t_return, t_done, blocked, setup, pusher,
              reads, writes, pure_key, t_span, sub_ns):
    """The values of one packed custom-operator call, to extend the ``packed`` list of
    the thread that ran its Python code with (whose track its records take when
    unpacked): ``subs`` (a list, or None), the sub-operators its Python code ran on
    that thread, flat (:data:`SUB_HERE_FIELDS`), extended here with the call's fields:
    its dependency record (pushed at ``t_push`` by ``pusher``, ready at ``t_ready``,
    variables ``reads``/``writes``; ``pure_key``: the slice key of its
    ``<op>::pure_python``), its span's stamps (no span when ``t_span`` is 0), its
    creation's Python time (``setup`` ns) and the summed run time ``sub_ns`` of its
    sub-operators recorded on their own (run on engine workers, or by its creation)."""
    head = (name, t_push, t_ready, t_start, t_return, t_done, blocked, setup, pusher, reads,
            writes, pure_key, t_span, sub_ns)
    if not subs:
        return head + (0,)
    subs += head
    subs.append((len(subs) - CALL_HERE_WIDTH + 1) // SUB_HERE_WIDTH)
    return subs


class _FullNames(dict):
    """``(call name, sub name)`` -> ``"<call>::<sub>"``, made once: the unpacked records
    of many calls share one string per event name (hashed once, for the dump's keys)."""

    def __missing__(self, key):
        full = self[key] = key[0] + "::" + key[1]
        return full


_full_names = _FullNames()


def unpack_calls(values, tid):
    """The records the packed entries in ``values`` (a prefix of a ``packed`` list that
    ends where an entry ends) stand for, on the track ``tid`` of the thread that
    recorded them: per call, a sub-operator record for each of its sub-operators (run
    at once there, its flow arrow from the call's start), its ``<op>::pure_python`` op
    record, and its span (if it has one); per sub-operator packed alone
    (:data:`SUB_ALONE_FIELDS`), its record."""
    out = []   # (built from the end, each entry's records last first: reversed at the end)
    add = out.append
    full = _full_names
    at = len(values)
    while at:   # (an entry's last value says what it is)
        n_subs = values[at - 1]
        if n_subs == SUB_ALONE:   # a sub-operator run on this thread for a call elsewhere
            call_name, name, t0, t1, t_push, call_tid, call_t0, t_ready, r, w, _ = \
                values[at - SUB_ALONE_WIDTH:at]
            at -= SUB_ALONE_WIDTH
            add(sub_operator(full[call_name, name], CUSTOM_OPERATOR, t0, t1, t_push,
                             call_tid, call_t0, call_name, t_ready, r, w))
            continue
        (name, t_push, t_ready, t_start, t_return, t_done, blocked, setup, pusher, reads,
         writes, pure_key, t_span, sub_ns, _) = values[at - CALL_HERE_WIDTH:at]
        at -= CALL_HERE_WIDTH
        subs = []
        for _ in range(n_subs):
            sub, t0, t1, r, w = values[at - SUB_HERE_WIDTH:at]
            at -= SUB_HERE_WIDTH
            subs.append(sub_operator(full[name, sub], CUSTOM_OPERATOR, t0, t1, t0, tid,
                                     t_start, name, None, r, w))
            sub_ns += t1 - t0
        if t_span:
            add(call_span(name, CUSTOM_OPERATOR, t_span, t_ready, t_start, t_return, t_done,
                          blocked, sub_ns, setup))
        add(op_dep(full[name, PURE_PYTHON], CUSTOM_OPERATOR, t_start, t_return, t_push,
                   t_ready, pusher, reads, writes, pure_key))
        out += subs   # (last first: as read)
    out.reverse()
    return out


# Short aliases, as the recorder's docstring and older tests spell them.
XA, SUB, C, I, AB, AE = (SLICE_WITH_ARGS, SUB_OPERATOR, COUNTER, INSTANT, ASYNC_BEGIN,
                         ASYNC_END)
