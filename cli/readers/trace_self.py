"""The statistics' self time from the :class:`~xprof.traces.model.Trace`'s slice columns.

Why: ``xprof report`` builds the ``Trace`` (for its critical path) and the statistics
(for its tables) in one pass. The statistics' reader (``chrome.py``) keeps every
slice's start, end, row and picosecond duration (32 bytes a slice) until it computes
self time at the end; the ``Trace`` holds the same slices already (issue #25: one copy
of the slice columns). :class:`TraceSelfStats` keeps only what the ``Trace`` leaves out
or rounds differently, and computes self time on the ``Trace``'s columns, thread by
thread, by the same rule (``selftime.inner_by_row``), so the figures are those of
``xprof stats``:

* Python-line samples (category ``python_line``) are no slices of the ``Trace`` but
  nest among the others for self time: their columns are kept here;
* a sync point's instant is a slice of the ``Trace`` (the wait before it) and none of the
  statistics: ``Trace.instant_slice`` is left out;
* a duration is summed in picoseconds rounded from the file's microseconds, the
  ``Trace``'s in nanoseconds: where the two differ (a duration with digits below the
  nanosecond) the picoseconds are kept here, by thread, ends and row;
* a slice the statistics skip (longer than 2^63 ps, or ending beyond 2^63 ns) maps to
  no row and is left out.

The ``Trace`` must be finished before :meth:`finish` (``xprof report`` puts its
``TimelineCollector`` first in the pass and passes the ``Trace``).
"""
from __future__ import annotations

from array import array

import numpy as np

from xprof.traces.names import PYTHON_LINE
from xprof.traces.rules import id_key
from xprof.traces.selftime import inner_by_row

from .chrome import NO_CATEGORY, NO_NAME, StatsCollector, _label

_PS_MAX_NS = 2 ** 63 // 1_000_000 * 1000   # ns: a longer slice's ps would not fit int64


class TraceSelfStats(StatsCollector):
    """A :class:`~.chrome.StatsCollector` whose self time is computed on a ``Trace``'s
    columns (:meth:`use_trace` before :meth:`finish`)."""

    def __init__(self, group_by="name"):
        super().__init__(group_by)
        # thread -> (t0, t1, row, ps) columns of the slices whose ps != (t1 - t0) * 1000
        # (32 bytes each, as the reader keeps every slice: never more than it)
        self._exact = {}
        self._trace = None

    def use_trace(self, trace):
        self._trace = trace

    def _keep_slice(self, thread, t0, t1, row, ps):
        if self._row_domain[row] == PYTHON_LINE:
            super()._keep_slice(thread, t0, t1, row, ps)
        elif ps != (t1 - t0) * 1000:
            self._note_exact(thread, t0, t1, row, ps)

    def _note_exact(self, thread, t0, t1, row, ps):
        cols = self._exact.get(thread)
        if cols is None:
            cols = self._exact[thread] = (array("q"), array("q"), array("q"), array("q"))
        for col, value in zip(cols, (t0, t1, row, ps)):
            col.append(value)

    def _keep_slices(self, pids, tids, t0, t1, row, ps):
        lines = self._row_of.get(PYTHON_LINE)
        line = np.zeros(len(row), dtype=bool)
        if lines is not None:
            line_rows = lines[lines >= 0]
            if len(line_rows):
                line = np.isin(row, line_rows)
        odd = ~line & (ps != (t1 - t0) * 1000)
        for k in np.flatnonzero(odd).tolist():
            self._note_exact((id_key(pids[k]), id_key(tids[k])), int(t0[k]), int(t1[k]),
                             int(row[k]), int(ps[k]))
        if line.any():
            sel = np.flatnonzero(line)
            super()._keep_slices([pids[k] for k in sel.tolist()],
                                 [tids[k] for k in sel.tolist()],
                                 t0[sel], t1[sel], row[sel], ps[sel])

    def _self_times(self):
        tl = self._trace
        if tl is None:
            raise RuntimeError("TraceSelfStats.finish before use_trace")
        lines, self._threads = self._threads, {}
        if len(tl.start):
            rows = self._rows_of_trace(tl)
            bounds = np.flatnonzero(np.r_[True, tl.thread[1:] != tl.thread[:-1], True])
            for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
                pid, tid, _ = tl.threads[int(tl.thread[a])]
                thread = (pid, tid)
                keep = rows[a:b] >= 0
                starts, ends, row = tl.start[a:b][keep], tl.end[a:b][keep], rows[a:b][keep]
                ps = (ends - starts) * 1000
                exact = self._exact.pop(thread, None)
                if exact is not None:
                    _patch(exact, starts, ends, row, ps)
                extra = lines.pop(thread, None)
                if extra is not None:   # the Python-line samples of that thread
                    starts, ends, row, ps = (
                        np.concatenate([col, np.frombuffer(more, dtype=np.int64)])
                        for col, more in zip((starts, ends, row, ps), extra))
                self._add_inner(inner_by_row(row, starts, ends, ps, 1000))
        rows = None
        for thread in list(lines):   # threads with Python-line samples only
            starts, ends, row, ps = lines.pop(thread)
            self._add_inner(inner_by_row(row, starts, ends, ps, 1000))
        self._trace, self._exact = None, {}
        if self._first is not None:
            self.stats.add_span_ns(self._first, self._last)

    def _add_inner(self, by_row):
        domain_of, name_of = self._row_domain, self._row_name
        inner = self._inner if self._inner is not None else {}
        self._inner = inner
        for row, ps in by_row.items():
            self.stats.add_inner_ps(domain_of[row], name_of[row], ps)
            inner[row] = inner.get(row, 0) + ps

    def _rows_of_trace(self, tl):
        """The statistics' row id of each of the ``Trace``'s slices (-1: none, and for
        the sync points' instants and slices the statistics skip)."""
        n_names = max(len(tl.names), 1)
        pair = tl.cat.astype(np.int64) * n_names + tl.name
        uniq, inverse = np.unique(pair, return_inverse=True)
        ix = self._names if self._names is not None else {}
        found = np.full(len(uniq), -1, dtype=np.int64)
        for k, p in enumerate(uniq.tolist()):
            domain = _label(tl.cats[p // n_names], NO_CATEGORY)
            tab = self._row_of.get(domain)
            nid = ix.get(_label(tl.names[p % n_names], NO_NAME))
            if tab is not None and nid is not None and nid < len(tab):
                found[k] = tab[nid]
        rows = found[inverse.reshape(-1)]
        rows[tl.instant_slice] = -1
        rows[(tl.end - tl.start) >= _PS_MAX_NS] = -1
        return rows



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
