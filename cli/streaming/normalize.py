"""Normalize a Chrome trace, streaming: sorted, small ids, named tracks, Custom Operator on its own tracks.

Why: traces from MXNet (64-bit hashed pids/tids and ids, B/E pairs), PyTorch
(string pids) or a mix of threads load differently, or not at all, in the
viewers.  ``xprof trace`` rewrites them into one shape that both Perfetto and
catapult read the same way.

Why streaming: a trace can hold millions of events.  :class:`Normalizer` is
fed the reader's batches and keeps, per event, a few numbers in compact
columns (time, duration, thread, category, name, id codes: ~80 bytes) and
the event itself as JSON bytes without its pid, tid and integer id, which are
the only fields rewritten; no event dict outlives its batch (a ``B`` waits
for its ``E``).  Sorting, filtering and flow binding are numpy work on the
columns; :meth:`Normalizer.chunks` then writes the events in order, adding
the new pid/tid/id in front of each stored body.  Each item also gets a
*plain* code (see ``_PLAIN``): whether its output passes every checker rule
about its own fields, so that ``xprof trace`` checks it from the columns
(:meth:`Normalizer.output_columns`) instead of decoding it again.

What changes:

* ``B``/``E`` pairs (matched per thread in file order) become ``X`` events
  (the B's fields, ``dur`` = E.ts - B.ts, args merged); unmatched ones are
  dropped and counted in the notes;
* events are sorted by ``ts``; at equal ts, an ``f`` without ``bp`` comes
  first (it binds to the *next* slice, which must not already have begun),
  then longer ``X`` before shorter (parents before children), then file order;
* pids and tids become small integers in order of first appearance; every
  process and thread gets a name (existing names are kept; unnamed ones are
  called ``process <old pid>`` / ``thread <old tid>``); integer async and
  flow ids are renumbered too (JavaScript cannot hold 64-bit ids);
* thread-bound events of the ``Custom Operator`` domain move to a separate
  thread per original thread, named ``<thread name> · Custom Operator``.
  A flow step binds to a slice on its own track, so each flow event (s/t/f)
  moves to the track of the slice it binds to (rules in ``slices.py``), the
  innermost *kept* slice: filters keep an arrow whose ends are inside kept
  slices, and drop it whole (with a note) only when an end binds to no kept
  slice;
* counters lose their (meaningless) tid; global and process instants too.

Filters: ``domains`` (category, exact), ``name_glob`` (fnmatch, case
sensitive), and a window ``[since_ms, until_ms]`` measured from the first
event's ts; a slice or async pair is kept if it overlaps the window.  Flow
events are not judged by their own cat or name, only by their slices.
"""
from __future__ import annotations

from array import array
import fnmatch
import json
import math
import sys

import numpy as np
import orjson

from xprof.traces.names import CUSTOM_OPERATOR

from xprof.traces.rules import OpenSlices, TIME_MAX_US as TIME_MAX, finite_number as _num, \
    id_key, to_ns
from xprof.traces.slices import SliceTree, binds_to_next
from xprof.mxcli.streaming.normalize_columns import _group, _heads, _np, _unique_in_order

CUSTOM_OP = CUSTOM_OPERATOR
LANE_SUFFIX = " · " + CUSTOM_OPERATOR
CHUNK = 4096  # events per output chunk (and per output-check batch)

# kind codes
_OTHER, _X, _FLOW_ENCLOSING, _FLOW_NEXT, _ASYNC_B, _ASYNC_E = range(6)
# flag bits (_LANE_ELIGIBLE: an instant on a thread; it moves to the Custom Operator
# lane as X events do when its cat is that, see Normalizer.finish)
_THREAD_BOUND, _LANE_ELIGIBLE, _HAS_TID = 1, 2, 4
_INF = math.inf
_NOT_TEXT = object()  # stands for a cat or name that is not a string (Normalizer._label)
_NEWLINE = orjson.Fragment(b"\n")  # written as is between two bodies (see Normalizer._store)
# An item's "plain" code (see Normalizer.feed): its phase letter when the output event passes
# every checker rule about its own fields, "F" for an f that binds to the next slice, 0 when
# the output check must decode the event (checker.py, Checker.check_columns)
_PLAIN = {ph: ord(ph) for ph in "XCiIbnestf"}
_PLAIN_F_NEXT = ord("F")


def _key(value):
    """The key of a pid/tid/id (``rules.id_key``: the equality every reader uses), tagged
    for display: a string id is the viewers' own label for its track (see _fallback_name)."""
    key = id_key(value)
    return ("s", key) if type(key) is str else ("v", key)


def dumps(value):
    """JSON bytes of a decoded value, whatever the reader let through.

    orjson refuses integers beyond 64 bits and nesting deeper than 254; the
    standard library writes both (the output check then reports the big
    integers); the recursion limit is raised for the C encoder meanwhile.
    """
    try:
        return orjson.dumps(value)
    except (orjson.JSONEncodeError, TypeError):
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 5000))
        try:
            return json.dumps(value, separators=(",", ":"), ensure_ascii=False,
                              allow_nan=False).encode("utf-8", "surrogatepass")
        finally:
            sys.setrecursionlimit(limit)


class _Meta:
    def __init__(self):
        self.process_name = {}
        self.thread_name = {}
        self.process_sort = {}
        self.thread_sort = {}
        self.process_labels = {}

    def add(self, ev):
        name = ev.get("name")
        args = ev.get("args") if type(ev.get("args")) is dict else {}
        pid = _key(ev.get("pid"))
        thread = (pid, _key(ev.get("tid")))
        if name == "process_name" and isinstance(args.get("name"), str) and args["name"]:
            self.process_name[pid] = args["name"]
        elif name == "thread_name" and isinstance(args.get("name"), str) and args["name"]:
            self.thread_name[thread] = args["name"]
        elif name == "process_sort_index" and _num(args.get("sort_index")):
            self.process_sort[pid] = args["sort_index"]
        elif name == "thread_sort_index" and _num(args.get("sort_index")):
            self.thread_sort[thread] = args["sort_index"]
        elif name == "process_labels" and isinstance(args.get("labels"), str):
            self.process_labels[pid] = args["labels"]


def _async_plain(ev, key):
    """Whether an async event (b/n/e) passes every per-event rule: a cat and a name, and an
    id that the output renumbers (an integer, or a value no viewer takes)."""
    cat, id_ = key
    name = ev.get("name")
    return (id_ is not None and type(id_) is not str and "id2" not in ev
            and type(cat) is str and cat != "" and type(name) is str and name != "")


def _first_rank(codes, start):
    """Each code's rank by first appearance in ``codes`` (numbered from ``start``)."""
    if not len(codes):
        return codes
    uniq, first = np.unique(codes, return_index=True)
    rank = np.empty(int(uniq.max()) + 1, np.int32)
    rank[uniq[np.argsort(first, kind="stable")]] = np.arange(start, start + len(uniq))
    return rank[codes]


def _display(value):
    return repr(value[1]) if value[0] == "s" else str(value[1])


def _fallback_name(kind, old):
    """A string pid/tid is the viewers' own label for the track; otherwise '<kind> <old id>'."""
    if old[0] == "s" and old[1]:
        return old[1]
    return f"{kind} {_display(old)}"


class Normalizer:
    """Feed batches with :meth:`feed`; :meth:`finish` filters, binds and sorts; then
    :meth:`header` and :meth:`chunks` give the output's bytes (see the module docstring)."""

    def __init__(self):
        self.meta = _Meta()
        self.dropped = 0
        self.read = 0
        self.categories = set()   # every string cat of the input (for --domain's error)
        self.notes = []
        self.order = None
        self._seq = 0
        self._threads = {}        # (pid, tid) as given -> thread code
        self._thread_keys = []    # thread code -> (pid key, tid key)
        self._thread_pid = array("q")  # thread code -> pid code
        self._pids = {}           # pid key -> pid code
        self._flow_ids, self._int_ids = {}, {}
        self._open_b = OpenSlices()   # thread code -> open B: (seq, B event, tid)
        self._open_async = {}     # (cat key, id key) -> [item]
        # one entry per item (a timed event; a B/E pair is one X item)
        # (dur: an X's duration, 0 for other items; the end is ts + dur)
        self.cols = {"seq": array("q"), "ts": array("d"), "dur": array("d"),
                     "thread": array("i"), "label": array("i")}
        self._codes = bytearray()  # per item: kind | flags << 3
        self._plain = bytearray()  # per item: its plain code (see _PLAIN)
        self._out = None           # after finish: per item ts, dur, label, plain (output check)
        self._labels = {}          # (cat, name) -> label code
        # entries only for some items: (item, code)
        self._flow_item, self._flow_code = array("q"), array("q")   # flow steps: flow id code
        self._id_item, self._id_code = array("q"), array("q")       # integer ids: id code
        self._pairs = array("q")                                    # async b, e, b, e, ...
        # every event's JSON without pid/tid/int id, one blob per batch (orjson's bytes
        # keep a 4 KiB buffer each, and one growing buffer would be copied as it grows):
        # a batch's bodies with a newline between two of them (see _store)
        self._blobs = []
        self._blob_start = array("q", [0])   # blob -> its offset (the blobs as one run of bytes)
        self._blob_item = array("q")         # blob -> its first item
        self._body_end = array("q")          # item -> the offset just past its body
        self._size = 0

    # -- reading ----------------------------------------------------------------------
    def _thread(self, pid, tid):
        """The code of thread (pid, tid); a list or object as pid/tid is keyed by its repr."""
        try:
            raw = (pid, tid)
            code = self._threads.get(raw)
        except TypeError:
            raw = (_key(pid), _key(tid))
            code = self._threads.get(raw)
        if code is None:
            pk, tk = _key(pid), _key(tid)
            code = self._threads[raw] = len(self._thread_keys)
            self._thread_keys.append((pk, tk))
            self._thread_pid.append(self._pids.setdefault(pk, len(self._pids)))
        return code

    def _label(self, cat, name):
        """The code of a (cat, name) pair, numbered in order of first appearance: one
        lookup per event for both; the filters and the Custom Operator lane are
        decided per label in :meth:`finish`."""
        try:
            key = (cat, name)
            code = self._labels.get(key)
        except TypeError:   # an object or array as cat or name: only strings are matched
            key = (cat if type(cat) is str else _NOT_TEXT, name if type(name) is str else _NOT_TEXT)
            code = self._labels.get(key)
        if code is None:
            code = self._labels[key] = len(self._labels)
            if type(cat) is str:
                self.categories.add(cat)
        return code

    def feed(self, events):
        """Take one batch of decoded events (their dicts are modified and not kept)."""
        c = self.cols
        a_seq, a_ts, a_dur, a_thread, a_label = (
            c["seq"].append, c["ts"].append, c["dur"].append, c["thread"].append,
            c["label"].append)
        a_code, a_plain = self._codes.append, self._plain.append
        time_max = TIME_MAX
        labels, open_b, threads = self._labels, self._open_b, self._threads
        flow_ids, int_ids, open_async = self._flow_ids, self._int_ids, self._open_async
        a_flow_item, a_flow_code = self._flow_item.append, self._flow_code.append
        a_id_item, a_id_code = self._id_item.append, self._id_code.append
        bodies = []
        a_body = bodies.append
        item = len(self._codes)
        inf = _INF
        self.read += len(events)
        for seq, ev in enumerate(events, self._seq):
            if type(ev) is not dict:
                self.dropped += 1
                continue
            ph = ev.get("ph")
            ts = ev.get("ts")
            if ph == "M" or not ((type(ts) is float and -inf < ts < inf)
                                 or (type(ts) is int and -1e308 < ts < 1e308)):
                cat = ev.get("cat")
                if type(cat) is str:
                    self.categories.add(cat)
                if ph == "M":
                    self.meta.add(ev)
                else:
                    self.dropped += 1
                continue
            pid = ev.pop("pid", None)
            tid = ev.pop("tid", None)
            try:
                thread = threads.get((pid, tid))
            except TypeError:
                thread = None
            if thread is None:
                thread = self._thread(pid, tid)
            item_seq = seq
            # plain: what the output check may skip decoding (an event's own fields pass the
            # checker's rules; its new pid, tid and integer id always do); this mirrors
            # Checker.check_batch's fast path, and tests/cli/test_trace_check_columns.py
            # shows both checks agree on arbitrary input
            if ph == "X":
                kind = _X
                dur = ev.get("dur")
                if (type(dur) is float and -inf < dur < inf) or (type(dur) is int and -1e308 < dur < 1e308):
                    plain = 88 if tid is not None and 0 <= dur < time_max else 0   # "X"
                    dur = float(dur)
                else:
                    dur = 0.0
                    plain = 0
                flags = _THREAD_BOUND
            elif ph == "B":
                open_b.begin(thread, (seq, ev, tid))
                continue
            elif ph == "E":   # closes its thread's last open B (rules.OpenSlices)
                begun = open_b.end(thread)
                if begun is None or ts < begun[1]["ts"]:   # no B, or the pair runs backwards
                    self.dropped += 1 if begun is None else 2
                    continue
                item_seq, b, tid = begun
                x = {k: v for k, v in b.items() if k not in ("ph", "dur", "args")}
                x["ph"] = "X"
                x["dur"] = ts - b["ts"]
                args = {}
                for part in (b.get("args"), ev.get("args")):
                    if type(part) is dict:
                        args.update(part)
                if args:
                    x["args"] = args
                ev, ts = x, b["ts"]
                kind = _X
                dur = float(x["dur"]) if _num(x["dur"]) else 0.0
                plain = 88 if tid is not None and dur < time_max else 0   # "X" (dur >= 0 here)
                flags = _THREAD_BOUND
            elif ph == "s" or ph == "t" or ph == "f":
                bp = ev.get("bp")
                kind = _FLOW_NEXT if binds_to_next(ph, bp) else _FLOW_ENCLOSING
                dur = 0.0
                fk = ev.get("id", ev.get("id2"))
                plain = ((_PLAIN_F_NEXT if kind == _FLOW_NEXT else _PLAIN[ph])
                         if (tid is not None and fk is not None and type(fk) is not str
                             and (bp is None or bp == "e") and "id2" not in ev) else 0)
                try:
                    code = flow_ids.get(fk)
                except TypeError:   # an object or array as id: keyed by its repr
                    fk = _key(fk)
                    code = flow_ids.get(fk)
                if code is None:
                    code = flow_ids[fk] = len(flow_ids)
                a_flow_item(item)
                a_flow_code(code)
                flags = _THREAD_BOUND
            elif ph == "b" or ph == "e":
                kind = _ASYNC_B if ph == "b" else _ASYNC_E
                dur = 0.0
                flags = _THREAD_BOUND
                akey = (ev.get("cat"), ev.get("id", ev.get("id2")))
                plain = _PLAIN[ph] if _async_plain(ev, akey) else 0
                try:
                    hash(akey)
                except TypeError:
                    akey = (_key(akey[0]), _key(akey[1]))
                if ph == "b":
                    stack = open_async.get(akey)
                    if stack is None:
                        open_async[akey] = [item]
                    else:
                        stack.append(item)
                else:
                    stack = open_async.get(akey)
                    if stack:
                        begin = stack.pop()
                        if not stack:
                            del open_async[akey]
                        self._pairs.append(begin)
                        self._pairs.append(item)
            else:
                kind = _OTHER
                dur = 0.0
                flags = 0
                plain = 0
                if ph == "i" or ph == "I":
                    scope = ev.get("s", "t")
                    if scope != "g" and scope != "p":
                        flags = _THREAD_BOUND | _LANE_ELIGIBLE
                        if scope == "t" and tid is not None:
                            plain = _PLAIN[ph]
                    else:
                        plain = _PLAIN[ph]
                elif ph == "C":
                    args = ev.get("args")
                    if type(args) is dict and args:
                        plain = 67   # "C"
                        for value in args.values():
                            if not ((type(value) is int or type(value) is float) and -inf < value < inf):
                                plain = 0
                                break
                else:
                    flags = _THREAD_BOUND
                    if ph == "n" and _async_plain(ev, (ev.get("cat"), ev.get("id"))):
                        plain = 110   # "n"
            if tid is not None:
                flags |= _HAS_TID
            idv = ev.get("id")
            if idv is not None and type(idv) is not str:
                # integers (JavaScript rounds them beyond 2^53) and ids no viewer takes
                # (1.5, [1], true) get small integers; strings stay
                del ev["id"]
                try:  # keyed like the async and flow pairing above (1 and 1.0 are one id)
                    ik = idv
                    code = int_ids.get(ik)
                except TypeError:
                    ik = _key(idv)
                    code = int_ids.get(ik)
                if code is None:
                    code = int_ids[ik] = len(int_ids)
                a_id_item(item)
                a_id_code(code)
            cat = ev.get("cat")
            name = ev.get("name")
            try:
                label = labels.get((cat, name))
            except TypeError:
                label = None
            if label is None:
                label = self._label(cat, name)
            if plain:
                args = ev.get("args")
                if not (0 <= ts < time_max and (cat is None or type(cat) is str)
                        and (name is None or type(name) is str)
                        and (args is None or type(args) is dict)):
                    plain = 0
            a_seq(item_seq)
            a_ts(ts)
            a_dur(dur)
            a_thread(thread)
            a_label(label)
            a_code(kind | flags << 3)
            a_plain(plain)
            a_body(ev)
            item += 1
        self._seq += len(events)
        if bodies:
            self._store(bodies)

    def _store(self, bodies):
        """Keep the JSON of a batch's bodies as one blob, ``body,\\n,body,\\n,...,body``.

        One orjson call for the batch costs half of one call per event. The
        newlines mark where a body ends: compact JSON never holds a raw newline
        (strings escape it), so numpy finds them, and a body starts 3 bytes after
        the end of the one before. The blob is a slice of what orjson returns:
        its bytes keep the spare room of orjson's buffer, about twice their length.
        """
        try:
            between = [_NEWLINE] * (2 * len(bodies) - 1)
            between[::2] = bodies
            blob = orjson.dumps(between)[1:-1]
        except (orjson.JSONEncodeError, TypeError):   # big integers, deep nesting
            blob = b",\n,".join([dumps(ev) for ev in bodies])
        newlines = np.flatnonzero(np.frombuffer(blob, np.uint8) == 10)
        ends = np.concatenate([newlines - 1, [len(blob)]]) + self._size
        self._blob_item.append(len(self._body_end))
        self._body_end.frombytes(ends.astype(np.int64).tobytes())
        self._blobs.append(blob)
        self._size += len(blob)
        self._blob_start.append(self._size)

    # -- deciding -------------------------------------------------------------------------
    def finish(self, domains=(), since_ms=None, until_ms=None, name_glob=None):
        """Filter, bind flows, sort; returns the notes (what was dropped and why)."""
        notes = self.notes
        unmatched = sum(1 for _ in self._open_b.left_open())
        self._open_b = OpenSlices()
        if unmatched:
            notes.append(f"dropped {unmatched} B event{'' if unmatched == 1 else 's'} that never ended")
        if self.dropped:
            notes.append(f"dropped {self.dropped} malformed or unmatched event"
                         f"{'' if self.dropped == 1 else 's'}")
        label = _np(self.cols.pop("label"))
        keys = list(self._labels)   # label code -> (cat, name)

        def of_label(test):
            """Per item: whether its (cat, name) passes ``test``."""
            return np.array([test(cat, name) for cat, name in keys] + [False], bool)[label]

        c = {k: _np(v) for k, v in self.cols.items()}
        with np.errstate(over="ignore"):
            c["end"] = c["ts"] + c["dur"]
        codes = np.frombuffer(self._codes, np.uint8)
        kind, flags = codes & 7, codes >> 3
        del codes
        n = len(kind)
        pairs = _np(self._pairs).reshape(-1, 2)
        c["end"][pairs[:, 0]] = c["ts"][pairs[:, 1]]  # an async pair is judged by its whole span
        keep = np.ones(n, bool)
        if n:
            if domains:
                keep &= of_label(lambda cat, name: type(cat) is str and cat in domains)
            if name_glob is not None:
                keep &= of_label(lambda cat, name: type(name) is str
                                 and fnmatch.fnmatchcase(name, name_glob))
            if since_ms is not None or until_ms is not None:
                t0 = c["ts"].min()
                lo = -_INF if since_ms is None else t0 + since_ms * 1000.0
                hi = _INF if until_ms is None else t0 + until_ms * 1000.0
                keep &= ~((c["end"] < lo) | (c["ts"] > hi))
            keep[pairs[:, 1]] = keep[pairs[:, 0]]  # an async e is kept with its b
        # X events and instants on a thread move to their thread's Custom Operator lane
        lane = (((flags & _LANE_ELIGIBLE) != 0) | (kind == _X)) & of_label(lambda cat, name: cat == CUSTOM_OP)
        keep, lane = self._bind_flows(c, kind, keep, lane)
        kept = np.flatnonzero(keep).astype(np.int32 if n < 2 ** 31 else np.int64)
        del keep
        k = kind[kept]
        ts = c["ts"][kept]
        sec = np.where(k == _X, ts - c["end"][kept], np.where(k == _FLOW_NEXT, -_INF, 0.0))
        order = np.lexsort((c["seq"][kept], sec, ts))
        # what the output check reads instead of decoding plain events (output_columns)
        self._out = (c["ts"], c["dur"], label, np.frombuffer(self._plain, np.uint8), keys)
        del ts, sec, c, label
        self.order = order = kept[order]
        del kept
        threads = _np(self.cols["thread"]).copy()
        pid_of_thread = _np(self._thread_pid)
        elsewhere = pairs[pid_of_thread[threads[pairs[:, 1]]] != pid_of_thread[threads[pairs[:, 0]]]]
        moved = len(elsewhere)
        if moved:  # an async pair lives on one process track: the e follows its b
            threads[elsewhere[:, 1]] = threads[elsewhere[:, 0]]
            notes.append(f"moved {moved} async end{'' if moved == 1 else 's'} to the process of "
                         f"{'its' if moved == 1 else 'their'} begin (Perfetto pairs async events per process)")
        thread = threads[order]
        del threads
        self.cols = None  # the columns are done with; the bodies stay for chunks()
        pid_codes = pid_of_thread[thread] if len(thread) else thread
        self.pid_out = _first_rank(pid_codes, 0)
        self._pid_tracks = _unique_in_order(pid_codes)
        del pid_codes
        f = flags[order]
        has_tid = ((f & _THREAD_BOUND) != 0) & ((f & _HAS_TID) != 0)
        del f
        tkey = thread.astype(np.int64) * 2 + lane[order]
        del thread
        self.tid_out = np.full(len(order), -1, np.int32)
        self.tid_out[has_tid] = _first_rank(tkey[has_tid], 1)
        self._tid_tracks = _unique_in_order(tkey[has_tid])
        del tkey, has_tid
        id_items = _np(self._id_item)
        idc = np.full(n, -1, np.int64)
        idc[id_items] = _np(self._id_code)
        idc = idc[order]
        k = kind[order]
        is_flow = (k == _FLOW_ENCLOSING) | (k == _FLOW_NEXT)
        self.id_out = np.full(len(order), -1, np.int32)
        for mask in (is_flow & (idc >= 0), ~is_flow & (idc >= 0)):
            self.id_out[mask] = _first_rank(idc[mask], 1)
        self._codes = None
        return notes

    def _bind_flows(self, c, kind, keep, lane):
        steps = _np(self._flow_item)
        if not len(steps):
            return keep, lane
        flow = _np(self._flow_code)
        bound = np.full(len(steps), -1, np.int64)
        xs = np.flatnonzero((kind == _X) & keep)
        x_by_thread = _group(xs, c["thread"][xs])
        for thread, at in _group(np.arange(len(steps)), c["thread"][steps]).items():
            slices = x_by_thread.get(thread)
            if slices is None:
                continue
            st = steps[at]
            tree = SliceTree(slices, c["ts"][slices], c["end"][slices], c["seq"][slices])
            ts = to_ns(c["ts"][st])
            bound[at] = np.where(kind[st] == _FLOW_NEXT, tree.next_at_or_after(ts), tree.enclosing(ts))
        unbound = np.bincount(flow, weights=(bound < 0), minlength=len(self._flow_ids))
        ok = unbound[flow] == 0
        keep[steps] = ok
        lane[steps[ok]] = lane[bound[ok]]
        dropped = int(np.count_nonzero(unbound[np.unique(flow)] > 0))
        if dropped:
            why = ("no kept slice encloses it (filtered out, or not in the input)"
                   if not np.all(keep[kind == _X]) else "no slice encloses it in the input")
            self.notes.append(f"dropped {dropped} flow arrow{'' if dropped == 1 else 's'} with a "
                              f"start or end that binds to no slice: {why}")
        return keep, lane

    # -- writing ----------------------------------------------------------------------------
    def header(self):
        """The metadata events: a name for every process and thread of the output."""
        meta = self.meta
        pid_keys = {code: key for key, code in self._pids.items()}
        pid_rank = {code: r for r, code in enumerate(self._pid_tracks)}
        out = []
        for code in self._pid_tracks:
            old, pid = pid_keys[code], pid_rank[code]
            name = meta.process_name.get(old)
            if name is None:
                name = _fallback_name("process", old)
            out.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": name}})
            if old in meta.process_sort:
                out.append({"name": "process_sort_index", "ph": "M", "pid": pid,
                            "args": {"sort_index": meta.process_sort[old]}})
            if old in meta.process_labels:
                out.append({"name": "process_labels", "ph": "M", "pid": pid,
                            "args": {"labels": meta.process_labels[old]}})
        for tid, tkey in enumerate(self._tid_tracks, start=1):
            thread, lane = divmod(tkey, 2)
            old_pid, old_tid = self._thread_keys[thread]
            base = meta.thread_name.get((old_pid, old_tid))
            if base is None:
                base = _fallback_name("thread", old_tid)
            pid = pid_rank[self._thread_pid[thread]]
            out.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                        "args": {"name": base + LANE_SUFFIX if lane else base}})
            if (old_pid, old_tid) in meta.thread_sort:
                out.append({"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid,
                            "args": {"sort_index": meta.thread_sort[(old_pid, old_tid)]}})
        return out

    def count(self):
        return len(self.order)

    def chunks(self):
        """The sorted events as JSON bytes, ``CHUNK`` at a time: ``(first index, count, bytes)``,
        the events of a chunk separated by ``,\\n``.

        Each stored body gets the new pid, tid and integer id in front of its fields.
        """
        for start in range(0, len(self.order), CHUNK):
            stop = start + CHUNK
            bodies = self._bodies(self.order[start:stop])
            pieces = [None] * (2 * len(bodies))
            pieces[::2] = _heads(self.pid_out[start:stop], self.tid_out[start:stop],
                                 self.id_out[start:stop])
            pieces[1::2] = bodies
            pieces[0] = pieces[0][2:]   # no ",\n" before the chunk's first event
            yield start, len(bodies), b"".join(pieces)

    def _bodies(self, ks):
        """The stored bodies of items ``ks``, each without its leading ``{``."""
        blobs = self._blobs
        ends, blob_start, blob_item = _np(self._body_end), _np(self._blob_start), _np(self._blob_item)
        b = np.searchsorted(blob_item, ks, side="right") - 1
        begin = np.where(ks == blob_item[b], blob_start[b], ends[ks - 1] + 3)  # see _store
        at = begin - blob_start[b] + 1   # a body always holds ts: after its "{"
        return [blobs[i][s:e] for i, s, e in zip(b.tolist(), at.tolist(),
                                                 (ends[ks] - blob_start[b]).tolist())]

    def event_json(self, position):
        """The JSON of the output's event at ``position`` (as :meth:`chunks` writes it)."""
        at = slice(position, position + 1)
        head = _heads(self.pid_out[at], self.tid_out[at], self.id_out[at])[0]
        return head[2:] + self._bodies(self.order[at])[0]

    def output_columns(self, start, stop):
        """What the output check needs of the output's events ``[start, stop)`` besides
        their JSON: ``plain`` (uint8, see ``_PLAIN``: 0 where the event must be decoded),
        ``ts``, ``dur``, ``pid``, ``tid``, ``id`` (-1: none) and ``label`` (an index into
        ``labels``, the ``(cat, name)`` pairs), for :meth:`Checker.check_columns`."""
        ts, dur, label, plain, labels = self._out
        ks = self.order[start:stop]
        return {"plain": plain[ks], "ts": ts[ks], "dur": dur[ks], "pid": self.pid_out[start:stop],
                "tid": self.tid_out[start:stop], "id": self.id_out[start:stop],
                "label": label[ks], "labels": labels}

    @staticmethod
    def top(top):
        """The output's top-level keys besides traceEvents."""
        top = dict(top or {})
        top.pop("traceEvents", None)
        unit = top.pop("displayTimeUnit", "ms")
        doc = {"displayTimeUnit": unit if unit in ("ms", "ns") else "ms"}
        other = top.pop("otherData", None)
        doc.update(top)
        doc["otherData"] = dict(other) if isinstance(other, dict) else {}
        doc["otherData"]["normalized_by"] = "xprof trace"
        return doc
