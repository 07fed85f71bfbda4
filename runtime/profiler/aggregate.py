"""Statistics of recorded records: what ``dumps()`` prints, the same model ``xprof stats``
builds from a trace file (:mod:`xprof.traces.stats`).

Plain slices are summed per key with numpy (:mod:`.columns`); every other record is
counted by its kind's stats rule (:data:`.records.KINDS`), so a new kind with an existing
rule needs no code here (custom-op calls, rule ``CALL``, go to ``Stats.calls``). Self
times and the wall-time span come from each thread's slices (``xprof.traces.selftime``).
"""
import numpy as np

from xprof.traces import callstats, selftime, stats as _stats

from . import columns, deps, memory, recorder as R, records


class Part:
    """One thread's records to aggregate: ``events`` (tuples, op records aside),
    ``rows`` (its plain slices, ``(key, t0, t1)``), ``ops`` (its op records,
    :class:`.deps.OpTable`); a :func:`folded` part also lists each thread's counts of
    the three (``threads``)."""

    __slots__ = ("events", "rows", "ops", "threads")

    def __init__(self, events, rows, ops=None, threads=None):
        if ops is None:   # a plain event list: its op records read out of it
            tab = deps.OpTable.of(events)
            ops, events = tab.within(events, 0, len(events))
        self.events, self.rows, self.ops, self.threads = events, rows, ops, threads


def since(snap, marks):
    """A :class:`Part` for each buffer, from its mark to the snapshot."""
    parts = []
    picked = []
    for buf, n, m in snap:
        e0, s0 = marks.get(buf, (0, 0))
        if n > e0 or m > s0:   # (a finished session keeps these: none for idle threads)
            picked.append((buf, n, m, e0, s0, deps.table(buf, n)))
    # a custom-op call's Backlog replays every op's variables (deps.call_backlogs): read
    # them, once per buffer, only when there is a call
    calls = any(buf.events[i][records.KIND] == records.CALL_SPAN
                for buf, n, _, e0, _, tab in picked for i in tab.rest.tolist() if e0 <= i < n)
    for buf, n, m, e0, s0, tab in picked:
        ops, events = (tab.with_vars() if calls else tab).within(buf.events, e0, n)
        parts.append(Part(events, columns.table(buf, m)[s0 // records.SLICE_WIDTH:], ops))
    return parts


def folded(parts):
    """``parts`` (see :func:`since`) as one part: a finished session keeps no list and
    tables per thread (10,000 short-lived threads); its ``threads`` lists each thread's
    counts, so self time (which nests slices per thread) can still tell them apart."""
    if len(parts) <= 1:
        return parts
    return [Part([ev for p in parts for ev in p.events],
                 np.concatenate([p.rows for p in parts]),
                 deps.OpTable.join([p.ops for p in parts]),
                 [(len(p.events), len(p.rows), len(p.ops)) for p in parts])]


def unfolded(parts):
    """``(event tuples, slice rows)`` per thread of ``parts``, the op records among the
    rows (undoes :func:`folded`)."""
    for part in parts:
        ops = part.ops.rows()
        if part.threads is None:
            yield part.events, np.concatenate((part.rows, ops)) if len(ops) else part.rows
            continue
        e = r = o = 0
        for n, m, k in part.threads:
            yield part.events[e:e + n], np.concatenate((part.rows[r:r + m], ops[o:o + k]))
            e, r, o = e + n, r + m, o + k


def aggregate_lists(parts, base_ns):
    """Stats of ``parts`` (:class:`Part`, or ``(event tuples, (key, t0, t1) rows)``
    pairs), skipping events that began before ``base_ns`` (an op still running when an
    earlier session ended; see chrome.encode). Durations stay integer nanoseconds, as
    ``xprof stats`` reads them back from the trace's ``e-3`` microseconds, so both
    print the same numbers."""
    parts = [p if isinstance(p, Part) else Part(*p) for p in parts]
    st = _stats.Stats()
    add_time_ns, add_counter = st.add_time_ns, st.add_counter
    open_async = {}
    mem_cat = memory.CAT
    threads = list(unfolded(parts))
    rows = [r for _, r in threads]
    # plain slices and op records (nearly every event): summed per key with numpy
    key, _, dur = columns.split(np.concatenate(rows) if rows else columns.NO_ROWS, base_ns)
    keys = R.key_table()
    for k, count, total, lo, hi in columns.summarize(key, dur):
        name, cat = keys[k]
        st.add_times_ns(cat, name, count, total, lo, hi)
    rule = {code: kind.stats for code, kind in records.KINDS.items()}
    KIND, NAME, CAT, T = records.KIND, records.NAME, records.CAT, records.T
    SPAN, SAMPLE, OPEN, CLOSE = records.SPAN, records.SAMPLE, records.OPEN, records.CLOSE
    CALL, call_split = records.CALL, records.call_split
    st.calls = calls = callstats.CallStats()
    call_start = records.position(records.CALL_SPAN, "t_start")
    spans = [ev for part in parts for ev in part.events
             if ev[KIND] == records.CALL_SPAN and ev[T] >= base_ns]
    backlogs = deps.call_backlogs([part.ops for part in parts], spans) if spans else {}
    for part in parts:
        for ev in part.events:
            if ev[T] < base_ns:
                continue
            how = rule[ev[KIND]]
            if how == SPAN:         # (..., t0, t1, ...)
                add_time_ns(ev[CAT], ev[NAME], ev[T + 1] - ev[T])
            elif how == SAMPLE:     # (..., t, value)
                add_counter(ev[CAT], ev[NAME], ev[T + 1], ev[CAT] == mem_cat)
            elif how == OPEN:       # (..., t, id)
                open_async[(ev[CAT], ev[NAME], ev[T + 1])] = ev[T]
            elif how == CLOSE:
                t0 = open_async.pop((ev[CAT], ev[NAME], ev[T + 1]), None)
                if t0 is not None:
                    add_time_ns(ev[CAT], ev[NAME], ev[T] - t0)
            elif how == CALL:       # a custom-op call (records.call_span)
                calls.add_split(ev[NAME], call_split(ev), backlogs.get(ev[call_start]), ev[T])
    # what widens the wall-time span besides slices: async stamps, a call's push and end
    stamps = {code: (T,) for code, how in rule.items() if how in (OPEN, CLOSE)}
    stamps[records.CALL_SPAN] = (T, records.KINDS[records.CALL_SPAN].fields.index("t_done") + 1)
    selftime.add_recorded(st, threads, base_ns, keys,
                          {code for code, how in rule.items() if how == SPAN}, stamps)
    return st


def aggregate(snap, marks, base_ns):
    """Stats from raw records (the same aggregator ``xprof stats`` uses on files)."""
    return aggregate_lists(since(snap, marks or {}), base_ns)
