"""The counter table of a :class:`~.model.Trace`: every numeric value of every ``C``
event, filled while the trace is loaded.

Why a table and not running sums: ``xprof stats`` sums the series, ``xprof report``
draws the memory series over time and ``xprof diff`` compares their peaks; each kept
its own pass over the events. One row per value (a series number, the value, its time)
serves all three.

A series is ``(category, event name, arg key, single)``: ``single`` when the event had
that one arg. ``xprof stats`` names it after the event when the only key is the event's
name (xprof's memory counters, ``{"Memory: cpu/0": bytes}``), ``name.key`` otherwise
(:func:`series_name`); a series is memory (bytes) when its category is ``Device
Storage`` or its name starts with ``Memory:`` (:func:`is_memory`).
"""
from __future__ import annotations

from array import array

import numpy as np

_BLOCK = 1 << 12   # counter values made Python objects at a time

from .names import DEVICE_STORAGE

NO_CATEGORY = "uncategorized"
NO_NAME = "(unnamed)"
_NAN = float("nan")


def label(value, default):
    """A usable row/domain label: a non-empty string, else the default."""
    return value if type(value) is str and value else default


def is_memory(cat, name):
    """Whether a counter of category ``cat`` named ``name`` counts bytes of memory."""
    return cat == DEVICE_STORAGE or (type(name) is str and name.startswith("Memory:"))


def series_name(name, key, single):
    """The name ``xprof stats`` gives a series (see the module docstring)."""
    return name if single and key == name else f"{name}.{key}"


class Counters:
    """Fed the ``C`` events (:meth:`feed`), in file order; :meth:`finish` gives the
    columns: ``series`` (int32 into ``series_table``), ``value`` (float64), ``is_int``
    (the value was a JSON integer, exact below 2^53), ``ts`` (µs as the file has it,
    NaN when it is no number)."""

    def __init__(self):
        self._ix = {}
        self._cols = (array("i"), array("d"), array("b"), array("d"))

    def feed(self, events):
        """Add a batch's ``C`` events, in file order (one loop; the columns grown once at
        its end)."""
        index = self._ix
        series, values, ints, times = [], [], [], []
        for ev in events:
            get = ev.get
            args = get("args")
            if type(args) is not dict or not args:
                continue
            name, cat, ts = get("name"), get("cat"), get("ts")
            if type(name) is not str or not name:   # label(), inlined
                name = NO_NAME
            if type(cat) is not str or not cat:
                cat = NO_CATEGORY
            ts = float(ts) if (type(ts) is int or type(ts) is float) and -1e308 < ts < 1e308 \
                else _NAN
            single = len(args) == 1
            for key, value in args.items():
                t = type(value)
                if t is not int and t is not float:
                    continue
                if t is int and not -1e308 < value < 1e308:
                    continue
                k = (cat, name, key, single)
                s = index.get(k)
                if s is None:
                    s = index[k] = len(index)
                series.append(s)
                values.append(value)
                ints.append(t is int)
                times.append(ts)
        for col, column in zip(self._cols, (series, values, ints, times)):
            col.fromlist(column)

    def finish(self, tl):
        series, values, ints, times = self._cols
        self._cols = None
        tl.counter_series_table = [None] * len(self._ix)
        for k, s in self._ix.items():
            tl.counter_series_table[s] = k
        tl.counter_series = np.frombuffer(series, dtype=np.int32) if len(series) else \
            np.zeros(0, dtype=np.int32)
        tl.counter_value = np.frombuffer(values, dtype=np.float64) if len(values) else \
            np.zeros(0)
        tl.counter_is_int = np.frombuffer(ints, dtype=np.int8).astype(bool)
        tl.counter_ts = np.frombuffer(times, dtype=np.float64) if len(times) else np.zeros(0)


def by_series(tl):
    """``(series number, its values in file order)`` of every series, each value as the
    statistics hold it: an integer as an int (a float beyond 2^53), a float, no NaN or
    infinity; the values an iterator made a block at a time (a million values are not
    all Python objects at once)."""
    if not len(tl.counter_series):
        return
    order = np.argsort(tl.counter_series, kind="stable")
    series = tl.counter_series[order]
    cuts = np.flatnonzero(np.r_[True, series[1:] != series[:-1], True]).tolist()
    for a, b in zip(cuts[:-1], cuts[1:]):
        yield int(series[a]), _values(tl, order[a:b])


def _values(tl, rows):
    for c0 in range(0, len(rows), _BLOCK):
        part = rows[c0:c0 + _BLOCK]
        value = tl.counter_value[part]
        exact = tl.counter_is_int[part] & (np.abs(value) <= 2 ** 53)
        finite = np.isfinite(value)
        if not finite.all():
            value, exact = value[finite], exact[finite]
        yield from (int(v) if i else v for v, i in zip(value.tolist(), exact.tolist()))
