"""Aggregate statistics of profiler records: one implementation for two users.

The runtime's ``profiler.dumps()`` and the CLI's ``xprof stats`` both build a
:class:`Stats` and render it with :func:`to_json_obj` / :func:`render_text`, so
the numbers and the JSON a user sees are identical whichever way they asked.
This module is pure (stdlib only) so the CLI can import it without starting
the engine.

Units: durations arrive in microseconds (the Chrome trace unit), or as integer
nanoseconds from the runtime, and are kept as integer picoseconds (finer than any
input: oneDNN prints ms to 0.1 ns), so sums are exact and do not depend on the order
events are added in: ``dumps()`` and ``xprof stats`` on its trace print the same
numbers. They are shown in milliseconds. Memory counter values arrive in bytes and
are kept in kB (``bytes / 1000``).  Other counters are kept as given.

Ordering rules, shared by the JSON and the text table:

* domains in alphabetical order;
* names within a domain by ``sort_by`` (descending unless ``ascending``), ties
  broken by name (always A to Z);
* memory and counter entries have no total, so ``sort_by="total"`` sorts them
  by Max (the peak, which is what "biggest" means for a level).
"""
from __future__ import annotations

from .names import bounded

SORT_KEYS = ("total", "self", "avg", "min", "max", "count")

_MS_DIGITS = 6  # 1 ns resolution in ms
_PS_PER_MS = 10**9
_PS_PER_NS = 1000
_KB_DIGITS = 3  # 1 byte resolution in kB
_COUNTER_DIGITS = 6
_PCT_DIGITS = 2

# entry layout: [count, sum, min, max]
_COUNT, _SUM, _MIN, _MAX = range(4)
_NO_NAMES = {}   # read only: the names of a domain not seen yet


def check_sort(sort_by):
    """Raise ValueError naming the bad key and the allowed ones."""
    if sort_by not in SORT_KEYS:
        raise ValueError(f"sort_by={sort_by!r} is not one of {', '.join(SORT_KEYS)}")


def _add(table, domain, name, value):
    names = table.get(domain)
    if names is None:
        names = table[domain] = {}
    entry = names.get(name)
    if entry is None:
        names[name] = [1, value, value, value]
        return
    entry[_COUNT] += 1
    entry[_SUM] += value
    if value < entry[_MIN]:
        entry[_MIN] = value
    if value > entry[_MAX]:
        entry[_MAX] = value


def _merge_table(into, other):
    for domain, names in other.items():
        for name, (count, total, lo, hi) in names.items():
            dst = into.setdefault(domain, {})
            entry = dst.get(name)
            if entry is None:
                dst[name] = [count, total, lo, hi]
            else:
                entry[_COUNT] += count
                entry[_SUM] += total
                entry[_MIN] = min(entry[_MIN], lo)
                entry[_MAX] = max(entry[_MAX], hi)


class Stats:
    """Plain data: per domain and name, ``[count, sum, min, max]``.

    ``time`` holds integer picoseconds (:func:`to_ms`), ``memory`` kB, ``counter``
    raw values. ``inner`` holds, per time row, the picoseconds its slices spent in
    slices nested directly inside them on the same thread (``selftime.py``): the row's
    Self is its total minus that (rows absent from ``inner`` have Self = Total).
    ``span`` is ``[first start, last end]`` in integer nanoseconds of the slices
    behind the time rows, or None: the profile's wall time, the base of the ``%``
    column. ``calls`` holds the custom-operator calls (a ``callstats.CallStats``, or
    None), written with the rows derived from ``time`` for op types without call spans
    as the ``Custom Operator Calls`` section.
    """

    __slots__ = ("time", "memory", "counter", "inner", "span", "calls")

    def __init__(self):
        self.time = {}
        self.memory = {}
        self.counter = {}
        self.inner = {}
        self.span = None
        self.calls = None

    def add_time(self, domain, name, dur_us):
        _add(self.time, domain, name, round(dur_us * 1_000_000))

    def add_time_ps(self, domain, name, dur_ps):
        _add(self.time, domain, name, dur_ps)

    def add_time_ns(self, domain, name, dur_ns):
        _add(self.time, domain, name, dur_ns * _PS_PER_NS)

    def add_times_ns(self, domain, name, count, total, lo, hi):
        """``count`` durations of one name at once, summarized (integer nanoseconds)."""
        self.add_times_ps(domain, name, count, total * _PS_PER_NS, lo * _PS_PER_NS,
                          hi * _PS_PER_NS)

    def add_times_ps(self, domain, name, count, total, lo, hi):
        """``count`` durations of one name at once, summarized (integer picoseconds)."""
        _merge_table(self.time, {domain: {name: (count, total, lo, hi)}})

    def add_inner_ns(self, domain, name, ns):
        """``ns`` of the row's slices spent in their direct children (see :mod:`selftime`)."""
        self.add_inner_ps(domain, name, ns * _PS_PER_NS)

    def add_inner_ps(self, domain, name, ps):
        names = self.inner.get(domain)
        if names is None:
            names = self.inner[domain] = {}
        names[name] = names.get(name, 0) + ps

    def add_span_ns(self, first, last):
        """Widen the profile's wall-time span to cover ``[first, last]`` (integer ns)."""
        span = self.span
        if span is None:
            self.span = [first, last]
        else:
            if first < span[0]:
                span[0] = first
            if last > span[1]:
                span[1] = last

    def self_ps(self, domain, name):
        """The row's total self time in picoseconds."""
        return self.time[domain][name][_SUM] - self.inner.get(domain, {}).get(name, 0)

    def wall_ps(self):
        """The profile's wall time (first slice start to last slice end), or None."""
        if self.span is None or self.span[1] <= self.span[0]:
            return None
        return (self.span[1] - self.span[0]) * _PS_PER_NS

    def add_counter(self, domain, name, value, is_memory):
        if is_memory:
            _add(self.memory, domain, name, value / 1000.0)
        else:
            _add(self.counter, domain, name, value)

    def add_counters(self, domain, name, values, is_memory):
        """:meth:`add_counter` of each of ``values`` in order (one loop: a counter event
        per step is a value per step)."""
        table = self.memory if is_memory else self.counter
        entry = table.get(domain, _NO_NAMES).get(name)
        for value in values:
            if is_memory:
                value = value / 1000.0
            if entry is None:
                entry = table.setdefault(domain, {})[name] = [1, value, value, value]
                continue
            entry[_COUNT] += 1
            entry[_SUM] += value
            if value < entry[_MIN]:
                entry[_MIN] = value
            if value > entry[_MAX]:
                entry[_MAX] = value

    def merge(self, other):
        _merge_table(self.time, other.time)
        _merge_table(self.memory, other.memory)
        _merge_table(self.counter, other.counter)
        for domain, names in other.inner.items():
            for name, ps in names.items():
                dst = self.inner.setdefault(domain, {})
                dst[name] = dst.get(name, 0) + ps
        if other.span is not None:
            self.add_span_ns(*other.span)
        if other.calls is not None:
            self.calls = other.calls if self.calls is None else self.calls.merge(other.calls)
        return self

    def empty(self):
        return not (self.time or self.memory or self.counter)

    def __repr__(self):
        return f"Stats(time={self.time!r}, memory={self.memory!r}, counter={self.counter!r})"


def aggregate(time_records, counter_records=()):
    """Build Stats from ``(domain, name, dur_us)`` and ``(domain, name, value, is_memory)``."""
    stats = Stats()
    add_time = stats.add_time
    for domain, name, dur_us in time_records:
        add_time(domain, name, dur_us)
    add_counter = stats.add_counter
    for domain, name, value, is_memory in counter_records:
        add_counter(domain, name, value, is_memory)
    return stats


def to_ms(value):
    """A ``time`` value (sum, min, max or average) in milliseconds."""
    return value / _PS_PER_MS


def _avg(entry):
    # The mean of values in [min, max] lies in [min, max]; float summation can
    # drift by an ulp, so clamp rather than print an Avg above Max.
    avg = entry[_SUM] / entry[_COUNT]
    return min(max(avg, entry[_MIN]), entry[_MAX])


def _sort_value(entry, sort_by, is_level, self_ps=None):
    if sort_by == "count":
        return entry[_COUNT]
    if sort_by == "min":
        return entry[_MIN]
    if sort_by == "max" or (sort_by in ("total", "self") and is_level):
        return entry[_MAX]
    if sort_by == "total":
        return entry[_SUM]
    if sort_by == "self":
        return entry[_SUM] if self_ps is None else self_ps
    return _avg(entry)


def _ordered(names, sort_by, ascending, is_level):
    """Names of one domain in display order (ties by name, A to Z)."""
    items = sorted(names.items())  # name order first; the next sort is stable
    items.sort(key=lambda kv: _sort_value(kv[1], sort_by, is_level), reverse=not ascending)
    return items


def time_items(stats, domain, sort_by="total", ascending=False):
    """``[(name, entry, self ps)]`` of one time domain in display order."""
    inner = stats.inner.get(domain, {})
    items = [(name, entry, entry[_SUM] - inner.get(name, 0))
             for name, entry in sorted(stats.time[domain].items())]
    items.sort(key=lambda it: _sort_value(it[1], sort_by, False, it[2]), reverse=not ascending)
    return items


def sort_value(row, sort_by):
    """The value a JSON time row (:func:`time_row`) is ranked by, for rankings across domains."""
    return row[{"total": "Total", "self": "Self", "avg": "Avg", "min": "Min", "max": "Max",
                "count": "Count"}[sort_by]]


def time_row(entry, self_ps, wall_ps):
    """The JSON row of a time entry: Count, Total, Self, % (of wall time, when known),
    Min, Max, Avg; times in ms."""
    row = {"Count": int(entry[_COUNT]), "Total": round(entry[_SUM] / _PS_PER_MS, _MS_DIGITS),
           "Self": round(self_ps / _PS_PER_MS, _MS_DIGITS)}
    if wall_ps:
        row["%"] = round(100.0 * entry[_SUM] / wall_ps, _PCT_DIGITS)
    row["Min"] = round(entry[_MIN] / _PS_PER_MS, _MS_DIGITS)
    row["Max"] = round(entry[_MAX] / _PS_PER_MS, _MS_DIGITS)
    row["Avg"] = round(_avg(entry) / _PS_PER_MS, _MS_DIGITS)
    return row


def _time_section(stats, sort_by, ascending):
    wall = stats.wall_ps()
    return {domain: {name: time_row(entry, self_ps, wall)
                     for name, entry, self_ps in time_items(stats, domain, sort_by, ascending)}
            for domain in sorted(stats.time)}


def _level_section(table, sort_by, ascending, digits):
    """JSON rows of a section of levels (memory, counters): no total."""
    out = {}
    for domain in sorted(table):
        rows = {}
        for name, entry in _ordered(table[domain], sort_by, ascending, True):
            rows[name] = {"Count": int(entry[_COUNT]), "Min": round(entry[_MIN], digits),
                          "Max": round(entry[_MAX], digits), "Avg": round(_avg(entry), digits)}
        out[domain] = rows
    return out


CALLS_SECTION = "Custom Operator Calls"


def to_json_obj(stats, sort_by="total", ascending=False):
    """The JSON document shared by ``profiler.dumps(format='json')`` and ``xprof stats``.

    ``{"Time": {domain: {name: {Count, Total, Self, %, Min, Max, Avg}}},
    "Memory": {domain: {name: {Count, Min, Max, Avg}}}, "Unit": {"Time": "ms",
    "Memory": "kB"}}`` plus ``"Counter"`` (like Memory, unitless) only when
    non-memory counters exist, and ``"Custom Operator Calls"`` only when the
    profile has custom-operator calls (``callstats.py``).  ``%`` is the share of
    the profile's wall time (absent when the input has no timestamps, as in a oneDNN
    log).  Python dicts keep insertion order, so the ordering rules in the module
    docstring survive serialisation.
    """
    check_sort(sort_by)
    obj = {
        "Time": _time_section(stats, sort_by, ascending),
        "Memory": _level_section(stats.memory, sort_by, ascending, _KB_DIGITS),
    }
    if stats.counter:
        obj["Counter"] = _level_section(stats.counter, sort_by, ascending, _COUNTER_DIGITS)
    calls = stats.calls.to_json(stats.time, sort_by, ascending) if stats.calls else None
    if calls:
        obj[CALLS_SECTION] = calls
    obj["Unit"] = {"Time": "ms", "Memory": "kB"}
    return obj


def percent(part, whole):
    """``part`` as a percentage of ``whole`` for tables (``-`` when ``whole`` is unknown)."""
    return f"{100.0 * part / whole:.2f}" if whole else "-"


def _fmt_counter(value):
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.4f}"


def _table_lines(domain, rows, headers, cells):
    """Left-aligned name column sized to the longest name; numbers right-aligned."""
    body = [cells(bounded(name), entry) for name, entry in rows]
    widths = [len(h) for h in headers]
    for line in body:
        for i, cell in enumerate(line):
            widths[i] = max(widths[i], len(cell))

    def fmt(cols):
        first = cols[0].ljust(widths[0])
        rest = "  ".join(c.rjust(w) for c, w in zip(cols[1:], widths[1:]))
        return (first + "  " + rest).rstrip()

    lines = [domain, "=" * max(len(domain), 1), fmt(headers),
             fmt(["-" * len(h) for h in headers])]
    lines.extend(fmt(line) for line in body)
    return lines


def render_text(stats, sort_by="total", ascending=False):
    """Plain aligned text, one section per domain: time domains, then memory, then counters."""
    check_sort(sort_by)
    blocks = []
    wall = stats.wall_ps()
    time_headers = ["Name", "Count", "Total (ms)", "Self (ms)", "%", "Min (ms)", "Max (ms)",
                    "Avg (ms)"]
    for domain in sorted(stats.time):
        rows = [(n, (e, self_ps)) for n, e, self_ps in time_items(stats, domain, sort_by, ascending)]
        blocks.append(_table_lines(domain, rows, time_headers, lambda n, es: [
            n, str(es[0][_COUNT]), f"{to_ms(es[0][_SUM]):.4f}", f"{to_ms(es[1]):.4f}",
            percent(es[0][_SUM], wall),
            *(f"{to_ms(v):.4f}" for v in (es[0][_MIN], es[0][_MAX], _avg(es[0])))]))
    mem_headers = ["Name", "Count", "Min (kB)", "Max (kB)", "Avg (kB)"]
    for domain in sorted(stats.memory):
        rows = _ordered(stats.memory[domain], sort_by, ascending, True)
        blocks.append(_table_lines(domain, rows, mem_headers, lambda n, e: [
            n, str(e[_COUNT]), f"{e[_MIN]:.3f}", f"{e[_MAX]:.3f}", f"{_avg(e):.3f}"]))
    ctr_headers = ["Name", "Count", "Min", "Max", "Avg"]
    for domain in sorted(stats.counter):
        rows = _ordered(stats.counter[domain], sort_by, ascending, True)
        blocks.append(_table_lines(domain, rows, ctr_headers, lambda n, e: [
            n, str(e[_COUNT]), _fmt_counter(e[_MIN]), _fmt_counter(e[_MAX]), f"{_avg(e):.4f}"]))
    calls = stats.calls.text_lines(stats.time, sort_by, ascending) if stats.calls else None
    if calls:
        blocks.append(calls)
    if not blocks:
        return "No profiling records.\n"
    return "\n\n".join("\n".join(b) for b in blocks) + "\n"
