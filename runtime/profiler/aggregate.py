"""Statistics of recorded records: what ``dumps()`` prints, the same model ``xprof stats``
builds from a trace file (:mod:`xprof.shared.stats`).

Plain slices are summed per key with numpy (:mod:`.columns`); every other record is
counted by its kind's stats rule (:data:`.records.KINDS`), so a new kind with an existing
rule needs no code here (custom-op calls, rule ``CALL``, go to ``Stats.calls``). Self
times and the wall-time span come from each thread's slices (``xprof.shared.selftime``).
"""
import numpy as np

from xprof.shared import callstats, selftime, stats as _stats

from . import columns, memory, recorder as R, records


def since(snap, marks):
    """``[(event tuples, slice rows)]`` of each buffer from its mark to the snapshot."""
    parts = []
    for buf, n, m in snap:
        e0, s0 = marks.get(buf, (0, 0))
        if n > e0 or m > s0:   # (a finished session keeps these: none for idle threads)
            parts.append((buf.events[e0:n], columns.table(buf, m)[s0 // records.SLICE_WIDTH:]))
    return parts


def folded(parts):
    """``parts`` (see :func:`since`) as one ``(event tuples, slice rows, threads)`` part:
    a finished session keeps no list and table per thread (10,000 short-lived threads);
    ``threads`` lists each thread's ``(events, rows)`` counts, so self time (which nests
    slices per thread) can still tell the threads apart."""
    if len(parts) <= 1:
        return parts
    return [([ev for events, _ in parts for ev in events],
             np.concatenate([rows for _, rows in parts]),
             [(len(events), len(rows)) for events, rows in parts])]


def unfolded(parts):
    """``parts`` as one ``(event tuples, slice rows)`` pair per thread (undoes :func:`folded`)."""
    for part in parts:
        if len(part) == 2:
            yield part
            continue
        events, rows, threads = part
        e = r = 0
        for n, m in threads:
            yield events[e:e + n], rows[r:r + m]
            e, r = e + n, r + m


def aggregate_lists(parts, base_ns):
    """Stats of ``[(event tuples, (key, t0, t1) rows)]``, skipping events that began
    before ``base_ns`` (an op still running when an earlier session ended; see
    chrome.encode). Durations stay integer nanoseconds, as ``xprof stats`` reads them
    back from the trace's ``e-3`` microseconds, so both print the same numbers."""
    st = _stats.Stats()
    add_time_ns, add_counter = st.add_time_ns, st.add_counter
    open_async = {}
    mem_cat = memory.CAT
    rows = [part[1] for part in parts]
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
    OP_DEP = records.OP_DEP
    for part in parts:
        # plain ops with their dependency records (nearly every event): summed per name
        # with numpy, like the slices above
        ops = [ev for ev in part[0] if ev[KIND] == OP_DEP and ev[T] >= base_ns]
        if ops:
            ids = {}
            k = np.fromiter((ids.setdefault((ev[CAT], ev[NAME]), len(ids)) for ev in ops),
                            np.int64, len(ops))
            d = np.fromiter((ev[T + 1] - ev[T] for ev in ops), np.int64, len(ops))
            pairs = list(ids)
            for i, count, total, lo, hi in columns.summarize(k, d):
                st.add_times_ns(*pairs[i], count, total, lo, hi)
        for ev in part[0]:
            if ev[T] < base_ns or ev[KIND] == OP_DEP:
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
                calls.add(ev[NAME], *call_split(ev))
    # what widens the wall-time span besides slices: async stamps, a call's push and end
    stamps = {code: (T,) for code, how in rule.items() if how in (OPEN, CLOSE)}
    stamps[records.CALL_SPAN] = (T, records.KINDS[records.CALL_SPAN].fields.index("t_done") + 1)
    selftime.add_recorded(st, list(unfolded(parts)), base_ns, keys,
                          {code for code, how in rule.items() if how == SPAN}, stamps)
    return st


def aggregate(snap, marks, base_ns):
    """Stats from raw records (the same aggregator ``xprof stats`` uses on files)."""
    return aggregate_lists(since(snap, marks or {}), base_ns)
