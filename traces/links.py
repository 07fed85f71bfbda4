"""Flows and async pairs of a trace, bound once while the :class:`~.model.Trace` is built.

Why a module of its own: the links between slices (flow arrows ``s``/``t``/``f``, async
``b``/``e`` pairs) follow rules of their own (:mod:`.slices`' flow binding,
:func:`.rules.async_key` pairing) and reach the ``Trace`` as columns of their own; the
model's builder hands each batch's link events here (:meth:`Links.feed`) and the sorted
slices at its end (:meth:`Links.finish`).

Cost: a trace may hold an arrow per op call and an async pair per step (a third of the
events of xprof's own traces), so the flow steps are read a batch at a time (list
comprehensions and numpy, no statement per event) and kept as compact columns (no
tuple per event); async pairs are matched event by event (a stack per key), in a short
loop.
"""
from __future__ import annotations

from array import array

import numpy as np

from . import callstats, slices
from .rules import OpenSlices, TIME_MAX_US, async_key, id_key, ns, thread_key, to_ns_exact

FLOW_PHASES = {"s": 0, "t": 1, "f": 2}
_INT_LIMIT = 2 ** 62
_EXACT_US = 2 ** 53 / 1000   # an integer time (us) beyond it is inexact as float64 ns


def _table(index):
    out = [None] * len(index)
    for k, v in index.items():
        out[v] = k
    return out


class Links:
    """Collects a pass's flow steps and async pairs (:meth:`feed`), then writes them to a
    :class:`~.model.Trace` (:meth:`finish`); ``calls``: the custom-op calls' breakdown,
    from the pairs whose ``b`` carries a call's split (:func:`.callstats.is_call_args`).

    ``pairs``: ``"all"``, or ``"calls"`` (only the custom-op calls' pairs: explain and
    diff read no other); ``flows``: ``"bound"`` (every step, bound to its slice),
    ``"max"`` (only the largest integer flow id, ``Trace.max_flow_id``: a marked copy
    numbers its arrows above it) or None (no flow step read)."""

    def __init__(self, label_ids, pairs="all", flows="bound"):
        self._label_ids = label_ids   # (names, cats) -> their ids in the Trace's tables
        self._only_calls = pairs == "calls"
        self._flows_mode = flows
        self._max_flow_id = 0
        self.calls = callstats.CallStats()
        self._codes = {}          # thread key -> code (thread indices only at finish)
        # (thread code, ts ns, phase, binds to next, id, ordinal); an id that is not an
        # integer in [0, 2^62) as -1 - its code in _other_ids
        self._flows = (array("i"), array("q"), array("b"), array("b"), array("q"),
                       array("q"))
        self._other_ids = {}
        self._open = OpenSlices()   # async_key -> (ts, name, cat, thread code, ordinal, call args)
        # (name, cat, thread code, start ns, end ns, ordinal of the b, a call, ordinal
        # of the e)
        self._pairs = (array("i"), array("i"), array("i"), array("q"), array("q"),
                       array("q"), array("b"), array("q"))
        self._pair_ps = {}   # ordinal of the b -> its ps, where they are not ns * 1000

    def _code(self, pid, tid):
        try:
            key = (pid, tid)
            code = self._codes.get(key)
        except TypeError:   # an unhashable pid/tid
            key = thread_key(pid, tid)
            code = self._codes.get(key)
        if code is None:
            code = self._codes[key] = len(self._codes)
        return code

    def feed(self, flows, pairs, first):
        """A batch's link events, ``(position, event)`` each: ``flows`` its flow steps
        (``s``/``t``/``f``), ``pairs`` its async events (``b``/``e``); ``first`` the
        batch's first event's index in the file."""
        if flows:
            if self._flows_mode == "max":
                self._flow_max(flows)
            elif self._flows_mode == "bound":
                self._flow_steps(flows, first)
        if pairs:
            if self._only_calls:   # pairs never mix categories (rules.async_key)
                pairs = [(k, ev) for k, ev in pairs if ev.get("cat") == callstats.CATEGORY]
            self._async(pairs, first)

    def _flow_max(self, items):
        """The largest integer id of the flow steps with a usable time (as
        :meth:`_flow_steps` keeps them, :attr:`.model.Trace.max_flow_id` reads them)."""
        ids = [ev.get("id", ev.get("id2")) for _, ev in items
               if (type(ev.get("ts")) is int or type(ev.get("ts")) is float)
               and -TIME_MAX_US < ev["ts"] < TIME_MAX_US]
        ints = [i for i in ids if type(i) is int]
        if ints:
            self._max_flow_id = max(self._max_flow_id, max(ints))

    def _flow_steps(self, items, first):
        evs = [ev for _, ev in items]
        ts = [ev.get("ts") for ev in evs]
        if not set(map(type, ts)) <= {int, float} or any(
                not -TIME_MAX_US < t < TIME_MAX_US for t in ts):   # rules.usable_time
            keep = [j for j, t in enumerate(ts) if (type(t) is int or type(t) is float)
                    and -TIME_MAX_US < t < TIME_MAX_US]
            items = [items[j] for j in keep]
            evs = [evs[j] for j in keep]
            ts = [ts[j] for j in keep]
            if not ts:
                return
        f = self._flows
        code = self._code
        f[0].extend([code(ev.get("pid"), ev.get("tid")) for ev in evs])
        if int in set(map(type, ts)) and max(map(abs, ts)) >= _EXACT_US:
            f[1].extend([ns(t) for t in ts])   # integers float64 would round
        else:
            f[1].frombytes(to_ns_exact(ts).tobytes())
        phs = [ev["ph"] for ev in evs]
        f[2].extend([FLOW_PHASES[ph] for ph in phs])
        f[3].extend([slices.binds_to_next(ph, ev.get("bp")) for ph, ev in zip(phs, evs)])
        ids = [ev.get("id", ev.get("id2")) for ev in evs]
        if set(map(type, ids)) == {int} and min(ids) >= 0 and max(ids) < _INT_LIMIT:
            f[4].extend(ids)
        else:
            other = self._other_ids
            f[4].extend([i if type(i) is int and 0 <= i < _INT_LIMIT
                         else -1 - other.setdefault(id_key(i), len(other)) for i in ids])
        f[5].extend([first + k for k, _ in items])

    def _async(self, items, first):
        """A ``b`` opens an async slice, an ``e`` closes the last open one of its key
        (:func:`.rules.async_key`; the key made here as it makes it, without the calls,
        for the common hashable ids: a step's user task is one pair per step). One loop
        over a batch's events, the pairs it closes added to the columns at its end."""
        stacks = self._open.stacks
        codes = self._codes
        closed = []
        for k, ev in items:
            get = ev.get
            ts = get("ts")
            if not ((type(ts) is int or type(ts) is float) and -TIME_MAX_US < ts < TIME_MAX_US):
                continue
            name, cat, pid = get("name"), get("cat"), get("pid")
            ident = get("id", get("id2"))
            try:
                key = (pid, cat, ident, name)
                stack = stacks.get(key)
            except TypeError:   # an unhashable part: rules.async_key keys it
                key = async_key(pid, cat, ident, name)
                stack = stacks.get(key)
            if ev["ph"] == "b":
                args = get("args")
                call = args if cat == callstats.CATEGORY and callstats.is_call_args(args) \
                    else None
                tid = get("tid")
                try:
                    code = codes.get((pid, tid))
                except TypeError:
                    code = None
                if code is None:
                    code = self._code(pid, tid)
                item = (ts, name, cat, code, first + k, call)
                if stack is None:
                    stacks[key] = [item]
                else:
                    stack.append(item)
                continue
            if not stack:
                continue
            t0, name, cat, thread, begun, args = stack.pop()
            if not stack:
                del stacks[key]
            start, end = ns(t0), ns(ts)
            if end < start:
                continue
            if ts - t0 < 2 ** 63 / 1_000_000:   # (xprof stats sums durations in ps)
                ps = round((ts - t0) * 1_000_000)
                if ps != (end - start) * 1000:
                    self._pair_ps[begun] = ps
            call = args is not None and type(name) is str
            if call:
                latency = end - start
                self.calls.add(name, latency, *callstats.split_of(args, latency), start)
            closed.append((name if type(name) is str else "(unnamed)",
                           cat if type(cat) is str else "uncategorized",
                           thread, start, end, begun, call, first + k))
        if closed:
            names, cats, *values = zip(*closed)
            for col, column in zip(self._pairs, (*self._label_ids(names, cats), *values)):
                col.fromlist(list(column))

    def _threads(self, codes, thread_ix):
        """Thread indices (int32) of thread codes; -1 for a thread with no slice (a flow
        step or an async pair adds no thread to the ``Trace``'s ``threads``)."""
        by_code = np.array([thread_ix.get(k, -1) for k in _table(self._codes)] or [-1],
                           dtype=np.int32)
        return by_code[np.frombuffer(codes, dtype=np.int32)]

    def finish_pairs(self, tl, thread_ix, pids):
        """The async pairs as ``tl.async_*`` (by start), and ``tl.call_stats``
        (``pids``: the trace's processes, the pairs' ``async_process`` indexes them)."""
        tl.call_stats = self.calls
        pairs, self._pairs = self._pairs, None
        tl.async_ps = self._pair_ps
        if not len(pairs[0]):
            return
        start = np.frombuffer(pairs[3], dtype=np.int64)
        order = np.argsort(start, kind="stable")
        tl.async_name = np.frombuffer(pairs[0], dtype=np.int32)[order]
        tl.async_cat = np.frombuffer(pairs[1], dtype=np.int32)[order]
        tl.async_thread = self._threads(pairs[2], thread_ix)[order]
        tl.async_start = start[order]
        tl.async_end = np.frombuffer(pairs[4], dtype=np.int64)[order]
        tl.async_ordinal = np.frombuffer(pairs[5], dtype=np.int64)[order]
        tl.async_call = np.frombuffer(pairs[6], dtype=np.int8)[order].astype(bool)
        tl.async_end_ordinal = np.frombuffer(pairs[7], dtype=np.int64)[order]
        process_ix = {p: k for k, p in enumerate(pids)}
        by_code = np.array([process_ix.get(id_key(key[0]), -1) for key in _table(self._codes)]
                           or [-1], dtype=np.int32)
        tl.async_process = by_code[np.frombuffer(pairs[2], dtype=np.int32)][order]

    def finish_flows(self, tl, thread_ix):
        """Each flow step's slice (:func:`.slices.bind`, on the ``Trace``'s sorted slices
        of its thread and their parents; a slice that overlaps its parent's end,
        ``tl.overlapping``, never binds), as ``tl.flow_*``, by flow, then file order."""
        flows, self._flows = self._flows, None
        if self._flows_mode == "max":
            tl.links_bound = "calls"
            tl.max_flow_id = self._max_flow_id
        elif self._flows_mode is None:
            tl.links_bound = "pairs"
        if not len(flows[0]):
            return
        thread = self._threads(flows[0], thread_ix)
        ts = np.frombuffer(flows[1], dtype=np.int64)
        to_next = np.frombuffer(flows[3], dtype=np.int8).astype(bool)
        bound = np.full(len(ts), -1, dtype=np.int64)
        if len(tl.thread):
            overlapping = tl.overlapping
            lo = np.searchsorted(tl.thread, thread, side="left")
            hi = np.searchsorted(tl.thread, thread, side="right")
            for t in np.unique(thread[thread >= 0]).tolist():
                sel = np.flatnonzero(thread == t)
                a, b = int(lo[sel[0]]), int(hi[sel[0]])
                if a < b:
                    k = slices.bind(tl.start[a:b], tl.end[a:b],
                                    tl.parent[a:b].astype(np.int64) - a, ~overlapping[a:b],
                                    ts[sel], to_next[sel])
                    bound[sel] = np.where(k >= 0, k + a, -1)
        ident = np.frombuffer(flows[4], dtype=np.int64)
        ordinal = np.frombuffer(flows[5], dtype=np.int64)
        order = np.lexsort((ordinal, ident))
        tl.flow_id, tl.flow_thread, tl.flow_ts = ident[order], thread[order], ts[order]
        tl.flow_phase = np.frombuffer(flows[2], dtype=np.int8)[order]
        tl.flow_slice = bound[order]
        tl.flow_ordinal = ordinal[order]
        tl.flow_other_ids = _table(self._other_ids)
