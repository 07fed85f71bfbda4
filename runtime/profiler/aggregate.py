"""Statistics of recorded records: what ``dumps()`` prints, the same model ``xprof stats``
builds from a trace file (:mod:`xprof.shared.stats`).

Plain slices are summed per key with numpy (:mod:`.columns`); every other record is
counted by its kind's stats rule (:data:`.records.KINDS`), so a new kind needs no code
here.
"""
import numpy as np

from xprof.shared import stats as _stats

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
    """``parts`` (see :func:`since`) as one ``(event tuples, slice rows)`` part: a
    finished session keeps no list and table per thread (10,000 short-lived threads)."""
    if len(parts) <= 1:
        return parts
    return [([ev for events, _ in parts for ev in events],
             np.concatenate([rows for _, rows in parts]))]


def aggregate_lists(parts, base_ns):
    """Stats of ``[(event tuples, (key, t0, t1) rows)]``, skipping events that began
    before ``base_ns`` (an op still running when an earlier session ended; see
    chrome.encode). Durations stay integer nanoseconds, as ``xprof stats`` reads them
    back from the trace's ``e-3`` microseconds, so both print the same numbers."""
    st = _stats.Stats()
    add_time_ns, add_counter = st.add_time_ns, st.add_counter
    open_async = {}
    mem_cat = memory.CAT
    rows = [r for _, r in parts]
    key, _, dur = columns.split(np.concatenate(rows) if rows else columns.NO_ROWS, base_ns)
    keys = R.key_table()
    for k, count, total, lo, hi in columns.summarize(key, dur):
        name, cat = keys[k]
        st.add_times_ns(cat, name, count, total, lo, hi)
    rule = {code: kind.stats for code, kind in records.KINDS.items()}
    KIND, NAME, CAT, T = records.KIND, records.NAME, records.CAT, records.T
    SPAN, SAMPLE, OPEN, CLOSE = records.SPAN, records.SAMPLE, records.OPEN, records.CLOSE
    for events, _ in parts:
        for ev in events:
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
    return st


def aggregate(snap, marks, base_ns):
    """Stats from raw records (the same aggregator ``xprof stats`` uses on files)."""
    return aggregate_lists(since(snap, marks or {}), base_ns)
