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

SORT_KEYS = ("total", "avg", "min", "max", "count")

_MS_DIGITS = 6  # 1 ns resolution in ms
_PS_PER_MS = 10**9
_PS_PER_NS = 1000
_KB_DIGITS = 3  # 1 byte resolution in kB
_COUNTER_DIGITS = 6

# entry layout: [count, sum, min, max]
_COUNT, _SUM, _MIN, _MAX = range(4)


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
    raw values.
    """

    __slots__ = ("time", "memory", "counter")

    def __init__(self):
        self.time = {}
        self.memory = {}
        self.counter = {}

    def add_time(self, domain, name, dur_us):
        _add(self.time, domain, name, round(dur_us * 1_000_000))

    def add_time_ns(self, domain, name, dur_ns):
        _add(self.time, domain, name, dur_ns * _PS_PER_NS)

    def add_times_ns(self, domain, name, count, total, lo, hi):
        """``count`` durations of one name at once, summarized (integer nanoseconds)."""
        _merge_table(self.time, {domain: {name: (count, total * _PS_PER_NS,
                                                 lo * _PS_PER_NS, hi * _PS_PER_NS)}})

    def add_counter(self, domain, name, value, is_memory):
        if is_memory:
            _add(self.memory, domain, name, value / 1000.0)
        else:
            _add(self.counter, domain, name, value)

    def merge(self, other):
        _merge_table(self.time, other.time)
        _merge_table(self.memory, other.memory)
        _merge_table(self.counter, other.counter)
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


def _sort_value(entry, sort_by, is_level):
    if sort_by == "count":
        return entry[_COUNT]
    if sort_by == "min":
        return entry[_MIN]
    if sort_by == "max" or (sort_by == "total" and is_level):
        return entry[_MAX]
    if sort_by == "total":
        return entry[_SUM]
    return _avg(entry)


def _ordered(names, sort_by, ascending, is_level):
    """Names of one domain in display order (ties by name, A to Z)."""
    items = sorted(names.items())  # name order first; the next sort is stable
    items.sort(key=lambda kv: _sort_value(kv[1], sort_by, is_level), reverse=not ascending)
    return items


def _section(table, sort_by, ascending, digits, with_total, scale=1):
    """JSON rows of one section; values divided by ``scale`` (ps -> ms for time)."""
    out = {}
    for domain in sorted(table):
        rows = {}
        for name, entry in _ordered(table[domain], sort_by, ascending, not with_total):
            row = {"Count": int(entry[_COUNT])}
            if with_total:
                row["Total"] = round(entry[_SUM] / scale, digits)
            row["Min"] = round(entry[_MIN] / scale, digits)
            row["Max"] = round(entry[_MAX] / scale, digits)
            row["Avg"] = round(_avg(entry) / scale, digits)
            rows[name] = row
        out[domain] = rows
    return out


def to_json_obj(stats, sort_by="total", ascending=False):
    """The JSON document shared by ``profiler.dumps(format='json')`` and ``xprof stats``.

    ``{"Time": {domain: {name: {Count, Total, Min, Max, Avg}}},
    "Memory": {domain: {name: {Count, Min, Max, Avg}}}, "Unit": {"Time": "ms",
    "Memory": "kB"}}`` plus ``"Counter"`` (like Memory, unitless) only when
    non-memory counters exist.  Python dicts keep insertion order, so the
    ordering rules in the module docstring survive serialisation.
    """
    check_sort(sort_by)
    obj = {
        "Time": _section(stats.time, sort_by, ascending, _MS_DIGITS, True, _PS_PER_MS),
        "Memory": _section(stats.memory, sort_by, ascending, _KB_DIGITS, False),
    }
    if stats.counter:
        obj["Counter"] = _section(stats.counter, sort_by, ascending, _COUNTER_DIGITS, False)
    obj["Unit"] = {"Time": "ms", "Memory": "kB"}
    return obj


def _fmt_counter(value):
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.4f}"


def _table_lines(domain, rows, headers, cells):
    """Left-aligned name column sized to the longest name; numbers right-aligned."""
    body = [cells(name, entry) for name, entry in rows]
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
    time_headers = ["Name", "Count", "Total (ms)", "Min (ms)", "Max (ms)", "Avg (ms)"]
    for domain in sorted(stats.time):
        rows = _ordered(stats.time[domain], sort_by, ascending, False)
        blocks.append(_table_lines(domain, rows, time_headers, lambda n, e: [
            n, str(e[_COUNT]), *(f"{to_ms(v):.4f}" for v in (e[_SUM], e[_MIN], e[_MAX], _avg(e)))]))
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
    if not blocks:
        return "No profiling records.\n"
    return "\n\n".join("\n".join(b) for b in blocks) + "\n"
