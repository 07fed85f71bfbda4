"""Custom-operator call spans of a Chrome trace -> the ``Custom Operator Calls`` breakdown.

A call span is an async ``b``/``e`` pair in category ``Custom Operator`` whose ``b``
carries the call's split as integer-nanosecond args (the encoding is described, and
the aggregation done, in ``shared/callstats.py``, shared with
``profiler.dumps()``). Latency comes from the pair's time stamps, rounded to integer
nanoseconds as the viewers do. Tolerant like the other readers: a ``b`` without its
``e`` (a cut trace) is dropped, malformed events are skipped.

Op types without call spans (MXNet 1.x traces) are derived from the aggregate's
``Custom Operator`` rows when the section is written.

This is ``xprof stats``' streaming reader of them; the read model pairs them in the same
pass that builds it (``Trace.call_stats``, ``xprof.traces.model``), by the same rule
(``rules.async_key``, ``rules.OpenSlices``).
"""
from __future__ import annotations

from xprof.traces import callstats as _calls

from xprof.traces.rules import OpenSlices, async_key, ns, usable_time
from xprof.traces.batch import view

CATEGORY = _calls.CATEGORY


class CallSpanCollector:
    """Feed batches of events with :meth:`feed`; :meth:`finish` fills ``stats.calls``."""

    def __init__(self):
        self.calls = _calls.CallStats()
        self._open = OpenSlices()   # rules.async_key -> (t0 ns, args)
        self._first = self._last = None

    def feed(self, events):
        v = view(events)
        if v is not None:   # call spans are b/e events: the batch's non-X events only
            events = v.others()
        for ev in events:
            if type(ev) is not dict or ev.get("cat") != CATEGORY:
                continue
            ph = ev.get("ph")
            if ph != "b" and ph != "e":
                continue
            ts = ev.get("ts")
            if not usable_time(ts):
                continue
            name = ev.get("name")
            key = async_key(ev.get("pid"), CATEGORY, ev.get("id", ev.get("id2")), name)
            if ph == "b":
                args = ev.get("args")
                self._open.begin(key, (ns(ts), args if _calls.is_call_args(args) else None))
                continue
            begun = self._open.close(key)
            if begun is None or begun[1] is None:
                continue
            t0, args = begun
            t1 = ns(ts)
            if t1 < t0 or type(name) is not str:
                continue
            latency = t1 - t0
            self.calls.add(name, latency, *_calls.split_of(args, latency))
            self._first = t0 if self._first is None or t0 < self._first else self._first
            self._last = t1 if self._last is None or t1 > self._last else self._last

    def finish(self, stats):
        """Attach the calls to ``stats`` (rows for op types without spans are derived from
        its Time rows when the section is written)."""
        stats.calls = self.calls
        if self._first is not None:
            stats.add_span_ns(self._first, self._last)
        return stats
