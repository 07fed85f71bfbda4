"""The statistics' time rows as a query on the :class:`~xprof.traces.model.Trace`.

Why: ``xprof stats``, ``xprof report`` and the ``xprof run`` summary build the ``Trace``
and the statistics in one pass (issue #25: one read model). The streaming reader
(``chrome.py``) counts every slice into its row and keeps its start, end, row and
picosecond duration (32 bytes a slice) for self time; the ``Trace`` holds the same
slices already. :class:`TraceStats` counts them from the ``Trace``'s columns at the end
instead, thread by thread (count, total, min, max into the reader's row columns, self
time by the same rule, ``selftime.inner_by_row``), and streams only what the ``Trace``
leaves out or rounds differently, so the figures are those of the streaming reader:

* Python-line samples (category ``python_line``) are no slices of the ``Trace`` but
  rows of the statistics that nest among the others for self time: they are counted and
  kept here;
* a sync point's instant is a slice of the ``Trace`` (the wait before it) and none of
  the statistics: ``Trace.instant_slice`` is left out;
* a duration is summed in picoseconds rounded from the file's microseconds, the
  ``Trace``'s in nanoseconds: where the two differ (a duration with digits below the
  nanosecond) the picoseconds are kept here, by thread, ends and row (32 bytes each);
* a slice the statistics skip (longer than 2^63 ps) is left out; a duration without a
  usable place in time (no ``Trace`` slice) is counted here, without self time;
* counters, async pairs and process names are no slices: streamed as before;
* ``--group-by`` names rows by their arguments, which the ``Trace`` does not keep: with
  it every slice is streamed (the reader's own path).

The ``Trace`` must be finished before :meth:`finish` (the pass finishes its
``TimelineCollector`` first, ``streaming/sources.py``) and given by
:meth:`use_trace`.
"""
from __future__ import annotations

from array import array

import numpy as np

from xprof.traces.names import PYTHON_LINE
from xprof.traces.rules import id_key
from xprof.traces.selftime import inner_by_row

from xprof.mxcli.analysis.stats_collector import NO_CATEGORY, NO_NAME, StatsCollector, _label

_PS_LIMIT_NS = -(-2 ** 63 // 1000)   # ns: a slice this long has no int64 ps (skipped)
_CHUNK = 1 << 16   # slices summed at a time (the sums' sort: 24 bytes a slice)


class TraceStats(StatsCollector):
    """A :class:`~.chrome.StatsCollector` whose slices are counted from a ``Trace``'s
    columns (:meth:`use_trace` before :meth:`finish`)."""

    def __init__(self, group_by="name"):
        super().__init__(group_by)
        # thread -> (t0, t1, row, ps) columns of the slices whose ps != (t1 - t0) * 1000
        self._exact = {}
        self._trace = None

    def use_trace(self, trace):
        self._trace = trace

    # -- while streaming: only what the Trace leaves out or rounds differently -----------
    def _lines_of(self, row):
        """Which of the rows ``row`` (an array of row ids) are Python-line rows."""
        lines = self._row_of.get(PYTHON_LINE)
        if lines is None:
            return np.zeros(len(row), dtype=bool)
        line_rows = lines[lines >= 0]
        return np.isin(row, line_rows) if len(line_rows) else np.zeros(len(row), dtype=bool)

    def _feed_x(self, v):
        """A batch's well-formed ``X`` columns: the ``Trace`` holds them, nothing is kept
        unless one is a Python-line sample or has a duration with digits below the
        nanosecond (then the reader's column path, through the methods below)."""
        if self._group_by:
            return super()._feed_x(v)
        cols = self._x_columns(v)
        if cols is None:
            return False
        cats, ps, t0, t1 = cols[2], cols[6], cols[7], cols[8]
        if PYTHON_LINE in cats or (ps != (t1 - t0) * 1000).any():
            self._count_x(v, *cols)
        return True

    def _add_rows(self, row, ps):   # the column path's counts: the Python lines only
        if self._group_by:
            return super()._add_rows(row, ps)
        line = self._lines_of(row)
        if line.any():
            super()._add_rows(row[line], ps[line])

    def _slice(self, thread, cat, name, t0, t1, dur):   # the per-event path's
        if self._group_by or cat == PYTHON_LINE:
            return super()._slice(thread, cat, name, t0, t1, dur)
        self._widen_ns(t0, t1)
        ps = round(dur * 1_000_000)
        if ps != (t1 - t0) * 1000:
            self._note_exact(thread, t0, t1, self._new_row(cat, name), ps)

    def _note_exact(self, thread, t0, t1, row, ps):
        cols = self._exact.get(thread)
        if cols is None:
            cols = self._exact[thread] = (array("q"), array("q"), array("q"), array("q"))
        for col, value in zip(cols, (t0, t1, row, ps)):
            col.append(value)

    def _keep_slices(self, pids, tids, t0, t1, row, ps):
        if self._group_by:
            return super()._keep_slices(pids, tids, t0, t1, row, ps)
        line = self._lines_of(row)
        odd = ~line & (ps != (t1 - t0) * 1000)
        for k in np.flatnonzero(odd).tolist():
            self._note_exact((id_key(pids[k]), id_key(tids[k])), int(t0[k]), int(t1[k]),
                             int(row[k]), int(ps[k]))
        if line.any():
            sel = np.flatnonzero(line)
            super()._keep_slices([pids[k] for k in sel.tolist()],
                                 [tids[k] for k in sel.tolist()],
                                 t0[sel], t1[sel], row[sel], ps[sel])

    # -- at the end: the query ---------------------------------------------------------
    def _self_times(self):
        if self._group_by:
            return super()._self_times()
        tl = self._trace
        if tl is None:
            raise RuntimeError("TraceStats.finish before use_trace")
        lines, self._threads = self._threads, {}
        if len(tl.start):
            name_ids = self._name_ids(tl)
            skip = np.zeros(len(tl.start), dtype=bool)
            skip[tl.instant_slice] = True
            bounds = np.flatnonzero(np.r_[True, tl.thread[1:] != tl.thread[:-1], True])
            for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
                pid, tid, _ = tl.threads[int(tl.thread[a])]
                self._thread_query(tl, a, b, skip[a:b], name_ids, lines.pop((pid, tid), None),
                                   self._exact.pop((pid, tid), None))
        for extra in lines.values():   # threads with Python-line samples only
            self._add_inner(inner_by_row(*extra, 1000))
        lines = None
        self._trace, self._exact = None, {}
        if self._first is not None:
            self.stats.add_span_ns(self._first, self._last)

    def _name_ids(self, tl):
        """The statistics' name number of each of the ``Trace``'s names (int32 below 2^31
        names: a thread's gathered numbers are the query's largest temporary)."""
        ix = self._numbering()
        return np.fromiter((ix.setdefault(n, len(ix)) for n in
                            (_label(x, NO_NAME) for x in tl.names)),
                           dtype=np.int32 if len(tl.names) < 2 ** 31 else np.int64,
                           count=len(tl.names))

    def _thread_query(self, tl, a, b, skip, name_ids, extra, exact):
        """Count the ``Trace``'s slices ``a:b`` (one thread) into their rows and add their
        self time (``extra``: the thread's Python-line columns; ``exact``: the kept ps).
        Durations are the ``Trace``'s ns times 1000 unless kept here, so most threads
        need no picosecond column; the sums go by chunks, the self time on the
        ``Trace``'s own order: little memory beside the columns."""
        row = self._rows_at(tl, a, b, name_ids)
        starts, ends = tl.start[a:b], tl.end[a:b]
        long_ = (ends - starts) >= _PS_LIMIT_NS
        ps = None
        if exact is not None or long_.any():
            ps = np.where(long_, -1, (ends - starts) * 1000)
            if exact is not None:
                _patch(exact, starts, ends, row, ps)
            skip = skip | (ps < 0)
        long_ = None
        if skip.any():
            keep = ~skip
            starts, ends, row = starts[keep], ends[keep], row[keep]
            ps = ps[keep] if ps is not None else None
        skip = keep = None
        for c0 in range(0, len(row), _CHUNK):
            c1 = c0 + _CHUNK
            StatsCollector._add_rows(   # the reader's sums, not this class's override
                self, row[c0:c1],
                ps[c0:c1] if ps is not None else (ends[c0:c1] - starts[c0:c1]) * 1000)
        if len(row):
            self._widen_ns(int(starts.min()), int(ends.max()))
        if extra is not None:   # the Python-line samples of that thread (not in order)
            if ps is None:
                ps = (ends - starts) * 1000
            starts, ends, row, ps = (np.concatenate([col, np.frombuffer(more, dtype=np.int64)])
                                     for col, more in zip((starts, ends, row, ps), extra))
            self._add_inner(inner_by_row(row, starts, ends, ps, 1000))
        elif ps is None:   # ps = ns * 1000: the inner time in ns, times 1000
            self._add_inner({r: v * 1000 for r, v in
                             inner_by_row(row, starts, ends, ordered=True).items()})
        else:
            self._add_inner(inner_by_row(row, starts, ends, ps, 1000, ordered=True))

    def _rows_at(self, tl, a, b, name_ids):
        """Row ids (int32) of the ``Trace``'s slices ``a:b``, rows made for new ones."""
        nid = name_ids[tl.name[a:b]]
        cat = tl.cat[a:b]
        row = np.empty(b - a, dtype=np.int32)
        # (the categories present by a count, not np.unique: no sorted copy of the column)
        present = np.flatnonzero(np.bincount(cat, minlength=len(tl.cats))) if len(cat) \
            else ()
        for c in (present.tolist() if len(present) else ()):
            sel = np.flatnonzero(cat == c) if len(row) and (cat != c).any() else slice(None)
            domain, tab = self._table(_label(tl.cats[c], NO_CATEGORY))
            nids = nid[sel]
            rows = tab[nids]
            if (rows < 0).any():
                for name in _names_of(tl, name_ids, np.unique(nids[rows < 0])):
                    self._new_row(domain, name)
                domain, tab = self._table(domain)
                rows = tab[nids]
            row[sel] = rows
        return row

    def _add_inner(self, by_row):
        domain_of, name_of = self._row_domain, self._row_name
        inner = self._inner if self._inner is not None else {}
        self._inner = inner
        for row, ps in by_row.items():
            self.stats.add_inner_ps(domain_of[row], name_of[row], ps)
            inner[row] = inner.get(row, 0) + ps


def _names_of(tl, name_ids, wanted):
    """The labels of the statistics' name numbers ``wanted`` (an array)."""
    found = {}
    for k in np.flatnonzero(np.isin(name_ids, wanted)).tolist():
        found.setdefault(int(name_ids[k]), _label(tl.names[k], NO_NAME))
    return [found[k] for k in wanted.tolist()]


def _patch(exact, starts, ends, row, ps):
    """Put the kept picoseconds (``exact``: t0, t1, row, ps columns of one thread) in place
    of ``(t1 - t0) * 1000`` for the slices whose duration had digits below the
    nanosecond (equal slices take theirs in file order)."""
    kept = {}
    for t0, t1, r, v in zip(*exact):
        kept.setdefault((t0, t1, r), []).append(v)
    maybe = np.flatnonzero(np.isin(starts, np.frombuffer(exact[0], dtype=np.int64)))
    for j, key in zip(maybe.tolist(), zip(starts[maybe].tolist(), ends[maybe].tolist(),
                                          row[maybe].tolist())):
        values = kept.get(key)
        if values:
            ps[j] = values.pop(0)
