"""Strict checker for the Chrome Trace Event Format, fed one event at a time.

"Valid" means the trace loads the same in Perfetto and in catapult
(chrome://tracing).  Anything either viewer rejects, or reads differently
from the other, is an *error*; phases that only one of them understands are
*warnings* (the trace loads, but the two viewers show different things).

Memory: no event object is kept.  Per thread the checker holds the stack of
open ``B`` events and, because ``X`` events may come in any order (the xprof
runtime writes them when they end, children before parents) and nesting can
only be judged once a thread's slices are sorted, compact arrays of its
slices and flow steps: 24 bytes per slice, 17 per flow step, against roughly
100 bytes of JSON per event.  Per async key it keeps the open ``b`` stack and
the set of flow ids seen.  Names of events reported by the nesting and flow
checks are not kept; ``validate`` recovers them with a second pass over the
file, only when there is something to report.

Time is compared in integer nanoseconds (``rint(ts_us * 1000)``, end =
start + rint(dur * 1000)), as Perfetto does, so a child ending at
``12.345 + 1.2`` is not "later" than a parent ending at ``12.0 + 1.545``.

Phase policy (see docs/cli-readers.md):

* understood by both viewers: ``B E X i I C b n e s t f M`` — checked fully;
* warning only: ``P`` (samples) ``O N D`` (object snapshots/lifetime) ``(``
  ``)`` (context) ``V v`` (memory dumps) ``c`` (clock sync) ``S T p F``
  (legacy async) are catapult-only, Perfetto drops them; ``R`` (mark) is a
  navigation mark in catapult but an ordinary instant in Perfetto;
* anything else is an error.

Slice nesting and flow binding follow the rules of ``slices.py`` (shared
with ``xprof trace``).  A flow step with nothing to bind to is dropped by
both viewers, so it is an error here.
"""
from __future__ import annotations

from array import array
import math

import numpy as np

from xprof.traces import slices
from xprof.traces.rules import OpenSlices, TIME_MAX_US as TIME_MAX, short_repr, thread_key
from xprof.mxcli.streaming.checker_values import _MAX_SAFE, _find_big_int, _thread_label

ERROR = "error"
WARNING = "warning"


_U32 = 2 ** 32
_INF = math.inf

FULL_PHASES = frozenset("BEXiICbnestfM")
ONE_VIEWER = {
    "P": "sample events are shown by catapult only; Perfetto ignores them",
    "O": "object snapshots are shown by catapult only; Perfetto ignores them",
    "N": "object-created events are shown by catapult only; Perfetto ignores them",
    "D": "object-destroyed events are shown by catapult only; Perfetto ignores them",
    "(": "context events are understood by catapult only; Perfetto ignores them",
    ")": "context events are understood by catapult only; Perfetto ignores them",
    "V": "memory dumps are shown by catapult only; Perfetto ignores them",
    "v": "memory dumps are shown by catapult only; Perfetto ignores them",
    "c": "clock sync events are understood by catapult only; Perfetto ignores them",
    "S": "legacy async events (S/T/p/F) are shown by catapult only; use b/n/e",
    "T": "legacy async events (S/T/p/F) are shown by catapult only; use b/n/e",
    "p": "legacy async events (S/T/p/F) are shown by catapult only; use b/n/e",
    "F": "legacy async events (S/T/p/F) are shown by catapult only; use b/n/e",
    "R": "mark events are a navigation mark in catapult but an instant in Perfetto",
}
_METADATA_NAME = ("process_name", "thread_name")
_METADATA_SORT = ("process_sort_index", "thread_sort_index")
_METADATA_OTHER = ("process_labels", "process_uptime_seconds", "num_cpus",
                   "trace_buffer_overflow")
# Rules whose every violation `xprof trace` repairs (normalize.py): pids and tids are
# renumbered to small integers (strings, out of range, missing pid), integer ids too,
# B/E pairs become X events (their names/cats come from the B), a truncated array is
# written whole, displayTimeUnit is set to ms, lone surrogates are written as U+FFFD,
# an async end moves to the process of its begin.
RULES_TRACE_REPAIRS = frozenset({"pid", "pid-missing", "tid", "id-beyond-2^53", "e-name", "e-cat",
                                 "truncated", "display-time-unit", "lone-surrogate", "async-e-pid"})
# flow_kind of an f that binds to the next slice (slices.binds_to_next): "F"
_TO_NEXT = ord("F")
# phases whose event lives on a thread track and therefore needs a tid
_THREAD_PHASES = frozenset("BEXstf")


def _column_roles():
    """Per phase byte, what check_columns records: 1 a slice, 2 a flow step, 3 an async
    step (b/e; n pairs nothing), 0 nothing (counters, instants)."""
    roles = np.zeros(256, np.uint8)
    roles[ord("X")] = 1
    roles[[ord(c) for c in "stfF"]] = 2
    roles[[ord("b"), ord("e")]] = 3
    return roles


_COLUMN_ROLE = _column_roles()


class Violation(tuple):
    """``(index, ph, name, severity, message, rule)``; index is -1 for file-level problems.

    ``rule`` names the check (``pid``, ``nesting``, ...: see :data:`RULES_TRACE_REPAIRS`
    and the ``_add`` calls); it groups the per-rule summary of ``xprof validate``.
    """

    __slots__ = ()

    def __new__(cls, index, ph, name, severity, message, rule=""):
        return tuple.__new__(cls, (index, ph, name, severity, message, rule))

    index = property(lambda self: self[0])
    ph = property(lambda self: self[1])
    name = property(lambda self: self[2])
    severity = property(lambda self: self[3])
    message = property(lambda self: self[4])
    rule = property(lambda self: self[5])

    def as_dict(self):
        return {"index": self[0], "ph": self[1], "name": self[2],
                "severity": self[3], "message": self[4]}


class _Thread:
    # Raw microsecond floats are stored and converted to ns with numpy in
    # finish(): cheaper per event than rounding in Python.
    __slots__ = ("x_ts", "x_dur", "x_index", "be_begin", "be_end", "be_index",
                 "flow_ts", "flow_index", "flow_kind")

    def __init__(self):
        self.x_ts = array("d")
        self.x_dur = array("d")
        self.x_index = array("q")
        self.be_begin = array("d")
        self.be_end = array("d")
        self.be_index = array("q")  # event index of the B
        self.flow_ts = array("d")
        self.flow_index = array("q")
        self.flow_kind = bytearray()  # the phase letter; upper case when it binds to the next slice


def _hashable(value):
    """pid/tid/cat values as dict keys even when malformed (lists, objects)."""
    return value if value is None or type(value) in (int, str, float, bool) else short_repr(value)


def _describe(value):
    if isinstance(value, str):
        return f"the string {short_repr(value)}"
    if value is None:
        return "null"
    return short_repr(value)


def _short(value):
    """A number for a message: huge integers as their digit count, not 400 digits."""
    if type(value) is int and abs(value) > 10 ** 30:
        return f"an integer of {len(str(abs(value)))} digits"
    return _describe(value)


def _id_key(ev):
    """The identity of an async/flow event's id (id or id2), or an error message."""
    has_id = "id" in ev
    id2 = ev.get("id2")
    if has_id and id2 is not None:
        return None, "has both id and id2 (use one)"
    if has_id:
        v = ev["id"]
        if type(v) is int or type(v) is str:
            return v, None
        return None, f"id must be an integer or a string, got {_describe(v)}"
    if id2 is not None:
        if type(id2) is dict and len(id2) == 1 and ("local" in id2 or "global" in id2):
            scope, v = next(iter(id2.items()))
            if type(v) is int or type(v) is str:
                return (scope, v), None
        return None, "id2 must be {\"local\": id} or {\"global\": id}"
    return None, "id is missing"


class Checker:
    """Feed events with :meth:`check` (or :meth:`check_batch`), then call :meth:`finish`."""

    def __init__(self):
        self.violations = []
        self.events = 0
        self.errors = 0
        self.warnings = 0
        self._threads = {}
        self._open_b = OpenSlices()   # thread key -> open B: (index, name, cat, ts)
        self._async = {}
        self._flows_open = {}  # flow id -> (index, cat, name)
        self._flows_done = set()

    # -- reporting ------------------------------------------------------------
    def _add(self, rule, index, ph, name, severity, message):
        if severity == ERROR:
            self.errors += 1
        else:
            self.warnings += 1
        if not isinstance(name, str):
            name = "" if name is None else short_repr(name)
        if not isinstance(ph, str):
            ph = "" if ph is None else short_repr(ph)
        self.violations.append(Violation(index, ph, name, severity, message, rule))

    def _err(self, rule, index, ev, message):
        self._add(rule, index, ev.get("ph"), ev.get("name"), ERROR, message)

    # -- per event ---------------------------------------------------------------
    def check_batch(self, first_index, events, maybe_big_ints=True):
        """Check consecutive events starting at index ``first_index``.

        Why two paths: a million events must be checked in about two seconds, so
        the loop below accepts the common valid shapes (X, C, b/e, s/t/f, i)
        with a handful of type tests and hands anything unusual — and every
        event of a batch that may hold integers beyond 2**53 — to
        :meth:`_check_full`, which knows every rule and words the messages.
        """
        threads = self._threads
        slow = self._check_full
        async_step = self._async_step
        flow_step = self._flow_step
        self.events += len(events)
        last_pid = last_tid = last_thread = None
        i = first_index - 1
        for ev in events:
            i += 1
            if maybe_big_ints or type(ev) is not dict:
                slow(i, ev, maybe_big_ints)
                continue
            get = ev.get
            ph = get("ph")
            ts = get("ts")
            pid = get("pid")
            name = get("name")
            cat = get("cat")
            args = get("args")
            if not ((type(ts) is float or type(ts) is int) and 0 <= ts < TIME_MAX
                    and type(pid) is int and 0 <= pid < _U32
                    and (name is None or type(name) is str)
                    and (cat is None or type(cat) is str)
                    and (args is None or type(args) is dict)):
                slow(i, ev, False)
                continue
            if ph == "X":
                dur = get("dur")
                tid = get("tid")
                if ((type(dur) is float or type(dur) is int) and 0 <= dur < TIME_MAX
                        and type(tid) is int and 0 <= tid < _U32):
                    if pid == last_pid and tid == last_tid:
                        thread = last_thread
                    else:
                        thread = threads.get((pid, tid))
                        if thread is None:
                            slow(i, ev, False)
                            continue
                        last_pid, last_tid, last_thread = pid, tid, thread
                    thread.x_ts.append(ts)
                    thread.x_dur.append(dur)
                    thread.x_index.append(i)
                    continue
            elif ph == "C":
                if args:
                    for value in args.values():
                        if not ((type(value) is int or type(value) is float) and -_INF < value < _INF):
                            break
                    else:
                        continue
            elif ph == "b" or ph == "e" or ph == "n":
                id_ = get("id")
                if (type(id_) is int or type(id_) is str) and cat and name and "id2" not in ev:
                    async_step(i, ph, ts, name, cat, id_, pid)
                    continue
            elif ph == "s" or ph == "f" or ph == "t":
                id_ = get("id")
                tid = get("tid")
                bp = get("bp")
                if ((type(id_) is int or type(id_) is str) and "id2" not in ev
                        and type(tid) is int and 0 <= tid < _U32 and (bp is None or bp == "e")):
                    thread = threads.get((pid, tid))
                    if thread is not None:
                        thread.flow_ts.append(ts)
                        thread.flow_index.append(i)
                        thread.flow_kind.append(_TO_NEXT if ph == "f" and bp is None else ord(ph))
                        flow_step(i, ph, name, cat, id_)
                        continue
            elif ph == "i" or ph == "I":
                scope = get("s")
                if scope == "g" or scope == "p":
                    continue
                if scope is None or scope == "t":
                    tid = get("tid")
                    if type(tid) is int and 0 <= tid < _U32:
                        continue
            slow(i, ev, False)

    def check_columns(self, first_index, ph, ts, dur, pid, tid, ids, label, labels):
        """Check consecutive events, given as columns, whose own fields are known to pass
        every rule: what is left are the rules across events (slices and flow steps per
        thread for nesting and binding, async pairs, flow ids).

        Why: ``xprof trace`` checks its output before it replaces anything, and reading
        a million events back as JSON costs more than writing them. Its reader already
        held each event and decided which ones are plain (``normalize.py``); the output's
        pid, tid and id are its own small integers. ``ph`` holds the phase letters as
        bytes (``F``: an ``f`` that binds to the next slice, as in ``flow_kind``), ``ids``
        -1 where there is none, ``label`` indexes ``labels``, a list of ``(cat, name)``.
        Same result as :meth:`check_batch` on the decoded events
        (tests/cli/test_trace_check_columns.py).
        """
        n = len(ph)
        self.events += n
        index = np.arange(first_index, first_index + n, dtype=np.int64)
        role = _COLUMN_ROLE[ph]
        for at in self._by_thread(np.flatnonzero(role == 1), pid, tid):
            thread = self._column_thread(int(pid[at[0]]), int(tid[at[0]]))
            thread.x_ts.frombytes(ts[at].tobytes())
            thread.x_dur.frombytes(dur[at].tobytes())
            thread.x_index.frombytes(index[at].tobytes())
        flows = np.flatnonzero(role == 2)
        for at in self._by_thread(flows, pid, tid):
            thread = self._column_thread(int(pid[at[0]]), int(tid[at[0]]))
            thread.flow_ts.frombytes(ts[at].tobytes())
            thread.flow_index.frombytes(index[at].tobytes())
            thread.flow_kind.extend(ph[at].tobytes())
        flow_step = self._flow_step
        for i, p, lab, id_ in zip(index[flows].tolist(), ph[flows].tobytes().lower().decode(),
                                  label[flows].tolist(), ids[flows].tolist()):
            cat, name = labels[lab]
            flow_step(i, p, name, cat, id_)
        steps = np.flatnonzero(role == 3)
        async_step = self._async_step
        for i, p, t, lab, id_, pd in zip(index[steps].tolist(), ph[steps].tobytes().decode(),
                                         ts[steps].tolist(), label[steps].tolist(),
                                         ids[steps].tolist(), pid[steps].tolist()):
            cat, name = labels[lab]
            async_step(i, p, t, name, cat, id_, pd)

    @staticmethod
    def _by_thread(positions, pid, tid):
        """``positions`` grouped by (pid, tid), each group in order."""
        if not len(positions):
            return []
        key = pid[positions].astype(np.int64) << 32 | tid[positions].astype(np.int64)
        order = np.argsort(key, kind="stable")
        cuts = np.flatnonzero(np.diff(key[order])) + 1
        return np.split(positions[order], cuts)

    def _column_thread(self, pid, tid):
        thread = self._threads.get((pid, tid))
        if thread is None:
            thread = self._threads[(pid, tid)] = _Thread()
        return thread

    def check(self, i, ev, maybe_big_ints=True):
        """Check one event (index ``i`` in traceEvents) with every rule."""
        self.events += 1
        self._check_full(i, ev, maybe_big_ints)

    def _check_full(self, i, ev, maybe_big_ints):
        if type(ev) is not dict:
            self._add("not-an-object", i, "", "", ERROR, f"event is not a JSON object but {type(ev).__name__}")
            return
        if maybe_big_ints:
            self._check_big_ints(i, ev)
        ph = ev.get("ph")
        if type(ph) is not str or ph not in FULL_PHASES:
            if type(ph) is str and ph in ONE_VIEWER:
                self._add("one-viewer-phase", i, ph, ev.get("name"), WARNING, ONE_VIEWER[ph])
                self._check_ts(i, ev)
                self._check_pid(i, ev, "pid")
            elif ph is None:
                self._err("ph", i, ev, "ph is missing (one phase character is required)")
            else:
                self._err("ph", i, ev, f"ph {_describe(ph)} is not a known phase "
                                 f"(allowed: {''.join(sorted(FULL_PHASES | set(ONE_VIEWER)))})")
            return
        if ph == "M":
            self._metadata(i, ev)
            return
        ts = ev.get("ts")
        if not ((type(ts) is float or type(ts) is int) and 0 <= ts < TIME_MAX):
            self._check_ts(i, ev)
            ts = None
        pid = ev.get("pid")
        if type(pid) is not int or not 0 <= pid < _U32:
            self._check_pid(i, ev, "pid")
        name = ev.get("name")
        if name is not None and type(name) is not str:
            self._err("name-type", i, ev, f"name must be a string, got {_describe(name)}")
        cat = ev.get("cat")
        if cat is not None and type(cat) is not str:
            self._err("cat-type", i, ev, f"cat must be a string, got {_describe(cat)}")
        args = ev.get("args")
        if args is not None and type(args) is not dict:
            self._err("args-type", i, ev, f"args must be an object, got {_describe(args)}")
        thread = None
        if ph in _THREAD_PHASES or (ph in "iI" and ev.get("s", "t") == "t"):
            tid = ev.get("tid")
            if type(tid) is not int or not 0 <= tid < _U32:
                self._check_pid(i, ev, "tid")
            key = thread_key(pid, tid)
            thread = self._threads.get(key)
            if thread is None:
                thread = self._threads[key] = _Thread()
        if ph == "X":
            dur = ev.get("dur")
            if not ((type(dur) is float or type(dur) is int) and 0 <= dur < TIME_MAX):
                if dur is None:
                    self._err("dur", i, ev, "dur is missing (required on X events)")
                else:
                    if type(dur) in (int, float) and TIME_MAX <= dur < _INF:
                        self._err("dur", i, ev, f"dur {_short(dur)} is beyond 2^63 ns "
                                                f"({TIME_MAX:.4g} us), which no viewer holds")
                    else:
                        self._err("dur", i, ev, f"dur must be a finite number >= 0, got {_short(dur)}")
            elif ts is not None:
                thread.x_ts.append(ts)
                thread.x_dur.append(dur)
                thread.x_index.append(i)
        elif ph == "B":
            if ts is not None:
                self._open_b.begin(key, (i, name, cat, ts))
        elif ph == "E":
            self._end(i, ev, key, thread, ts, name, cat)
        elif ph == "C":
            self._counter(i, ev, args)
        elif ph == "i" or ph == "I":
            scope = ev.get("s")
            if scope is not None and scope not in ("g", "p", "t"):
                self._err("instant-scope", i, ev, f"instant scope s must be 'g', 'p' or 't', got {_describe(scope)}")
        elif ph in "bne":
            key, problem = _id_key(ev)
            if problem:
                self._err("async-id", i, ev, f"async event {problem}")
            if not cat:
                self._err("async-cat", i, ev, "async event needs a cat (it groups the async track)")
            if not name:
                self._err("async-name", i, ev, "async event needs a name")
            if not problem and type(cat) is str and type(name) is str:
                self._async_step(i, ph, ts, name, cat, key, _hashable(pid))
        else:  # s t f
            key, problem = _id_key(ev)
            if problem:
                self._err("flow-id", i, ev, f"flow event {problem}")
            bp = ev.get("bp")
            if bp is not None and bp != "e":
                self._err("flow-bp", i, ev, f"bp must be absent or 'e', got {_describe(bp)}")
            if ts is not None:
                thread.flow_ts.append(ts)
                thread.flow_index.append(i)
                thread.flow_kind.append(_TO_NEXT if slices.binds_to_next(ph, bp) else ord(ph))
            if not problem:  # malformed cat/name compared by bounded reprs (they may nest deeply)
                self._flow_step(i, ph, _hashable(name), _hashable(cat), key)

    def _check_ts(self, i, ev):
        ts = ev.get("ts")
        if ts is None:
            self._err("ts", i, ev, "ts is missing (required except on M events)")
        elif type(ts) not in (int, float):
            self._err("ts", i, ev, f"ts must be a number, got {_describe(ts)}")
        elif 0 <= ts and ts >= TIME_MAX and ts < _INF:
            self._err("ts", i, ev, f"ts {_short(ts)} is beyond 2^63 ns ({TIME_MAX:.4g} us), "
                                   f"which no viewer holds")
        elif not 0 <= ts < _INF:
            self._err("ts", i, ev, f"ts must be a finite number >= 0, got {_short(ts)}")

    def _check_pid(self, i, ev, field):
        v = ev.get(field)
        if v is None:
            self._err(f"{field}-missing", i, ev, f"{field} is missing")
        elif type(v) is str:
            self._err(f"{field}", i, ev, f"{field} is {_describe(v)}; it must be an integer "
                             f"(Perfetto folds strings to 0 and merges their tracks)")
        elif type(v) is not int:
            self._err(f"{field}", i, ev, f"{field} must be an integer in [0, 2^32), got {_describe(v)}")
        elif not 0 <= v < _U32:
            self._err(f"{field}", i, ev, f"{field} {_short(v)} is outside [0, 2^32)"
                             + (" and beyond 2^53 (JavaScript rounds it)" if abs(v) > _MAX_SAFE else ""))

    def _check_big_ints(self, i, ev):
        for key, value in ev.items():
            if key == "pid" or key == "tid":
                continue  # reported with their own range message
            path = _find_big_int(value, key)
            if path is not None:
                rule = "id-beyond-2^53" if path == "id" and type(value) is int else "int-beyond-2^53"
                self._err(rule, i, ev, f"integer at {path} exceeds 2^53; JavaScript (catapult) rounds it")
                return

    def _end(self, i, ev, key, thread, ts, name, cat):
        begun = self._open_b.end(key)   # its thread's last open B (rules.OpenSlices)
        if begun is None:
            self._err("e-without-b", i, ev, "E without a matching B on this thread")
            return
        b_index, b_name, b_cat, b_ts = begun
        if name is not None and name != b_name:
            self._err("e-name", i, ev, f"E name {name!r} differs from its B's name {b_name!r} (event {b_index})")
        if cat is not None and cat != b_cat:
            self._err("e-cat", i, ev, f"E cat {cat!r} differs from its B's cat {b_cat!r} (event {b_index})")
        if ts is None:
            return
        if ts < b_ts:
            self._err("e-before-b", i, ev, f"E at ts {ts} is before its B at ts {b_ts} (event {b_index}); "
                             f"catapult aborts the import")
            return
        thread.be_begin.append(b_ts)
        thread.be_end.append(ts)
        thread.be_index.append(b_index)

    def _counter(self, i, ev, args):
        if type(args) is not dict:
            if args is None:
                self._err("counter-args", i, ev, "counter (C) without args; its values go in args")
            return
        if not args:
            self._add("counter-empty", i, "C", ev.get("name"), WARNING, "counter (C) with empty args draws nothing")
        for key, value in args.items():
            if type(value) not in (int, float) or not -_INF < value < _INF:
                self._err("counter-value", i, ev, f"counter value args.{key} must be a finite number, got {_describe(value)}")

    def _async_step(self, i, ph, ts, name, cat, id_key, pid):
        """Pair b/e per (cat, id) as a stack; e must carry the open b's name and pid."""
        if ph == "n":
            return
        key = (cat, id_key)
        stack = self._async.get(key)
        if ph == "b":
            if stack is None:
                self._async[key] = [(name, ts, i, pid)]
            else:
                stack.append((name, ts, i, pid))
            return
        if not stack:
            self._add("async-e-without-b", i, ph, name, ERROR, f"async end (e) without an open b for cat {cat!r} id {id_key!r}")
            return
        b_name, b_ts, b_index, b_pid = stack.pop()
        if not stack:
            del self._async[key]
        if pid != b_pid:
            self._add("async-e-pid", i, ph, name, ERROR,
                      f"async end on pid {pid!r} but its b (event {b_index}) is on pid {b_pid!r}; "
                      f"Perfetto keeps async tracks per process and leaves both ends unpaired")
        if name != b_name:
            self._add("async-e-name", i, ph, name, ERROR, f"async end name {name!r} differs from the open b's name "
                                          f"{b_name!r} (event {b_index}); the viewers pair them differently")
        if ts is not None and b_ts is not None and ts < b_ts:
            self._add("async-e-before-b", i, ph, name, ERROR, f"async end at ts {ts} is before its b at ts {b_ts} (event {b_index})")

    def _flow_step(self, i, ph, name, cat, key):
        """Flow ids are single-use: s opens, t continues, f closes; reuse is an error."""
        opened = self._flows_open.get(key)
        if ph == "s":
            if opened is not None:
                self._add("flow-id-reused", i, ph, name, ERROR,
                          f"flow id {key!r} started again while still open (since event {opened[0]})")
            elif key in self._flows_done:
                self._add("flow-id-reused", i, ph, name, ERROR, f"flow id {key!r} reused: a flow with this id already finished")
            else:
                self._flows_open[key] = (i, cat, name)
            return
        if opened is None:
            where = "after its flow finished" if key in self._flows_done else "without a flow start (s)"
            self._add("flow-orphan-step", i, ph, name, ERROR, f"flow {'step' if ph == 't' else 'end'} for id {key!r} {where}")
            return
        if cat != opened[1] or name != opened[2]:
            self._add("flow-cat-name", i, ph, name, ERROR,
                      f"flow {ph} has cat/name {short_repr(cat)}/{short_repr(name)} but its s (event {opened[0]}) has "
                      f"{short_repr(opened[1])}/{short_repr(opened[2])}; Perfetto keys flows by id, cat and name")
        if ph == "f":
            del self._flows_open[key]
            self._flows_done.add(key)

    def _metadata(self, i, ev):
        name = ev.get("name")
        pid = ev.get("pid")
        if not (type(pid) is int and 0 <= pid < _U32):
            self._check_pid(i, ev, "pid")
        if name in ("thread_name", "thread_sort_index"):
            tid = ev.get("tid")
            if not (type(tid) is int and 0 <= tid < _U32):
                self._check_pid(i, ev, "tid")
        args = ev.get("args")
        if name in _METADATA_NAME:
            value = args.get("name") if type(args) is dict else None
            if type(value) is not str or not value:
                self._err("metadata-name", i, ev, f"{name} needs a non-empty string args.name, got {_describe(value)}")
        elif name in _METADATA_SORT:
            value = args.get("sort_index") if type(args) is dict else None
            if type(value) not in (int, float) or not -_INF < value < _INF:
                self._err("metadata-sort-index", i, ev, f"{name} needs a numeric args.sort_index, got {_describe(value)}")
        elif name not in _METADATA_OTHER:
            self._add("metadata-unknown", i, "M", name, WARNING, f"metadata {_describe(name)} is not understood by either viewer")

    # -- file level ----------------------------------------------------------------
    def unnamed(self):
        """Event indices of violations found after the event was gone (nesting, flow binding)."""
        return {v[0] for v in self.violations if v[0] >= 0 and not v[2]}

    def fill_names(self, labels):
        """Complete those violations from ``{index: (ph, name)}`` gathered by a second pass."""
        def label(v):
            ph, name = labels[v[0]]
            return Violation(v[0], v[1] or ph, name, v[3], v[4], v[5])

        self.violations = [label(v) if v[0] in labels and not v[2] else v for v in self.violations]

    def check_top(self, top, truncated=False, lone_surrogates=0):
        """Checks on the top-level object (``displayTimeUnit``), the array's end, and the
        reader's count of strings with lone surrogate escapes (replaced by U+FFFD)."""
        if lone_surrogates:
            self._add("lone-surrogate", -1, "", "", ERROR,
                      f"{lone_surrogates} string{'' if lone_surrogates == 1 else 's'} hold a lone "
                      f"surrogate escape (such as \\ud800 without its pair): not Unicode; the "
                      f"readers show U+FFFD instead, viewers replace or reject it")
        if truncated:
            self._add("truncated", -1, "", "", ERROR, "the trace array is truncated (no closing ']'): "
                                          "Perfetto loads it, catapult does not")
        if "displayTimeUnit" in top and top["displayTimeUnit"] not in ("ms", "ns"):
            self._add("display-time-unit", -1, "", "", ERROR, f"displayTimeUnit must be 'ms' or 'ns', got "
                                          f"{_describe(top['displayTimeUnit'])}")

    def finish(self):
        """Run the whole-trace checks (open slices, nesting, flow binding); sort violations."""
        for _, (index, name, _, _) in self._open_b.left_open():
            self._add("b-never-ended", index, "B", name, ERROR, "B never ended (no matching E on its thread)")
        self._open_b = OpenSlices()
        for key, thread in self._threads.items():
            self._nesting(key, thread)
        for stack in self._async.values():
            for name, _, index, _ in stack:
                self._add("async-b-never-ended", index, "b", name, ERROR, "async b never ended (no matching e)")
        self._async = {}
        for key, (index, _, name) in self._flows_open.items():
            self._add("flow-unfinished", index, "s", name, WARNING, f"flow id {key!r} never finished (no f); no arrow is drawn")
        self._flows_open = {}
        self.violations.sort(key=lambda v: v[0])
        return self

    def _nesting(self, key, thread):
        def arr(a, dtype):
            return np.frombuffer(a, dtype=dtype) if len(a) else np.zeros(0, dtype)

        x_start = slices.to_ns(arr(thread.x_ts, np.float64))
        x_end = x_start + slices.to_ns(arr(thread.x_dur, np.float64))
        starts = np.concatenate([x_start, slices.to_ns(arr(thread.be_begin, np.float64))])
        ends = np.concatenate([x_end, slices.to_ns(arr(thread.be_end, np.float64))])
        index = np.concatenate([arr(thread.x_index, np.int64), arr(thread.be_index, np.int64)])
        order = slices.sort_order(starts, ends, index)
        s, e, idx = starts[order], ends[order], index[order]
        if slices.flat(s, e):
            roots_s, roots_e = s, e  # no slice starts inside another: all are top level
        else:
            parent, overlaps = slices.nest(s.tolist(), e.tolist())
            for k, p, excess in overlaps:
                self._add("nesting", int(idx[k]), "", "", ERROR,
                          f"slice overlaps the slice of event {int(idx[p])} on thread "
                          f"{_thread_label(key)}: it starts inside it but ends "
                          f"{excess / 1000:g} us after it (slices must nest)")
            roots = np.flatnonzero(np.asarray(parent) == slices.OUTSIDE)
            roots_s, roots_e = s[roots], e[roots]
        if thread.flow_index:
            self._bind_flows(thread, s, roots_s, roots_e, key)
        thread.x_ts = thread.x_dur = thread.x_index = None
        thread.be_begin = thread.be_end = thread.be_index = None

    def _bind_flows(self, thread, starts, roots_s, roots_e, key):
        """Each step must bind (slices.py): enclosed by a slice, i.e. by a top-level one,
        or, for an ``f`` without bp, some slice starts at or after it."""
        ts = slices.to_ns(np.frombuffer(thread.flow_ts, dtype=np.float64))
        kind = np.frombuffer(bytes(thread.flow_kind), dtype=np.uint8)
        enclosing = kind != _TO_NEXT
        j = np.searchsorted(roots_s, ts, side="right") - 1
        inside = (j >= 0) & (roots_e[np.maximum(j, 0)] >= ts) if len(roots_s) else np.zeros(len(ts), bool)
        has_next = (starts[-1] >= ts) if len(starts) else np.zeros(len(ts), bool)
        bad = np.nonzero(np.where(enclosing, ~inside, ~has_next))[0]
        for k in bad.tolist():
            ph = chr(kind[k]).lower()
            what = ("has no slice starting at or after its ts (f without bp binds to the next slice)"
                    if kind[k] == _TO_NEXT else "is not inside any slice")
            self._add("flow-binding", thread.flow_index[k], ph, "", ERROR,
                      f"flow {ph} {what} on thread {_thread_label(key)}; both viewers drop the arrow")
        thread.flow_ts = thread.flow_index = thread.flow_kind = None
