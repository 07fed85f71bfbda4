"""The statistics (``xprof stats``' tables, the report's and the run summary's) as a
query on a :class:`~xprof.traces.model.Trace`.

Why: one read model (issue #43): the ``Trace`` holds every slice, async pair, counter
and custom-op call, so the statistics are counted from its columns, thread by thread,
with no second store of slices. :func:`time_stats` does what the streaming reader did,
to the picosecond:

* each slice counts in its row (a row per category and name, labels as
  ``traces/counters.py:label`` gives them; ``group_by``: the row named by the slice's
  layer or shapes, :mod:`.grouping`, from the ``Trace``'s ``layer``/``shape`` columns),
  its count, total, min and max summed 65,536 slices at a time, its self time by
  ``selftime.inner_by_row`` on the ``Trace``'s own order; a duration is the slice's ns
  times 1000 unless it had digits below the nanosecond (``Trace.ps_ordinal``: its
  picoseconds, as ``round(dur * 1e6)`` gives them); a slice longer than 2^63 ps is
  left out; a sync point's instant (``Trace.instant_slice``) is no slice here;
* the Python-line samples (``line_*``) are rows that nest among the others for self
  time (``xprof stats`` leaves their rows out of its tables, ``--lines`` reads them);
* a duration without a usable place in time (``Trace.unplaced``) counts in its row,
  without self time;
* async pairs (not the custom-op calls': those are ``Trace.call_stats``) are rows too,
  MXNet's mirrors dropped (``stats_rows.py``);
* counters (``Trace.counter_*``) are the Memory and Counter tables.

``process``: only that process's slices and pairs (``--by-process``, a group-by on the
thread -> process view), against ``sync_time`` (every process's synchronous rows, which
a mirror process duplicates).
"""
from __future__ import annotations

import numpy as np

from xprof.traces.counters import by_series, is_memory, series_name
from xprof.traces.names import PYTHON_LINE
from xprof.traces.selftime import inner_by_row
from xprof.traces.stats import Stats

from xprof.mxcli.analysis import BadInput
from xprof.mxcli.analysis.grouping import grouped
from xprof.mxcli.analysis.stats_rows import NO_CATEGORY, NO_NAME, RowTable, _label

_PS_LIMIT_NS = -(-2 ** 63 // 1000)   # ns: a slice this long has no int64 ps (skipped)
_CHUNK = 1 << 16   # slices summed at a time (the sums' sort: 24 bytes a slice)
_PAIR_CHUNK = 1 << 12   # async pairs counted at a time (6 Python ints a pair alive)


def time_stats(tl, group_by="name", process=None, sync_time=None, keep=None):
    """``(Stats, dropped)`` of the ``Trace`` ``tl`` (see the module docstring); ``keep``:
    a page's choice of rows (``RowTable.finish``), ``dropped`` what it left out."""
    q = _Query(tl, group_by, process, rows_inner=keep is not None)
    q.count()
    stats = q.finish(sync_time, keep)
    if process is None:
        add_counters(stats, tl)
        stats.calls = tl.call_stats
        if tl.call_span is not None:   # the calls widen the wall time
            stats.add_span_ns(*tl.call_span)
    return stats, q.dropped


def add_counters(stats, tl):
    """The Memory and Counter tables: each series' values, in file order."""
    for s, values in by_series(tl):
        cat, name, key, single = tl.counter_series_table[s]
        stats.add_counters(cat, series_name(name, key, single), values, is_memory(cat, name))


class _Query(RowTable):
    def __init__(self, tl, group_by, process, rows_inner=False):
        super().__init__()
        self.tl = tl
        # the inner time by row id too (a page's choice of rows reads each row's self
        # time): only then, a trace of a million names kept a dict entry per row
        self.rows_inner = rows_inner
        self.group_by = group_by
        self.process = process
        if group_by != "name" and tl.layer is None:
            raise BadInput(f"--group-by {group_by}: the trace was read without its "
                           f"layer and shape columns")

    def count(self):
        tl = self.tl
        pid = tl.pids[self.process] if self.process is not None else None
        for _, cat, name, dur, upid, *keys in tl.unplaced:   # no place in time: no self
            if pid is not None and upid != pid:
                continue
            cat, name = _label(cat, NO_CATEGORY), _label(name, NO_NAME)
            if self.group_by != "name":
                name = grouped(name, cat, *keys, self.group_by)
            self.stats.add_time(cat, name, dur)
        threads = None
        if self.process is not None:
            threads = tl.thread_process() == self.process
        name_ids = self._name_ids(tl.names)
        labels = self._grouped_ids(name_ids)
        if labels is None and len(tl.start):   # a row per name, at least: the sums' columns
            self._grow(len(self._numbering()))   # made once (not grown, twice the size)
        if len(tl.start):
            skip = np.zeros(len(tl.start), dtype=bool)
            skip[tl.instant_slice] = True
            bounds = np.flatnonzero(np.r_[True, tl.thread[1:] != tl.thread[:-1], True])
            for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
                t = int(tl.thread[a])
                if threads is None or threads[t]:
                    self._thread_query(a, b, skip[a:b], name_ids, labels, self._lines_of(t))
        # threads with Python-line samples only
        done = set(tl.thread.tolist()) if len(tl.start) else set()
        for t in np.unique(tl.line_thread).tolist():
            if t not in done and (threads is None or threads[t]):
                lo, hi = self._line_range(t)
                starts, ends = tl.line_start[lo:hi], tl.line_end[lo:hi]
                ps = self._ps(starts, ends, tl.line_ordinal[lo:hi])
                use = ps >= 0
                row, starts, ends, ps = self._line_rows(lo, hi, name_ids)[use], starts[use], \
                    ends[use], ps[use]
                self._add_rows(row, ps)
                if len(row):
                    self._widen_ns(int(starts.min()), int(ends.max()))
                self._add_inner(inner_by_row(row, starts, ends, ps, 1000))
        self._pairs(pid)

    # -- slices -----------------------------------------------------------------------
    def _name_ids(self, names):
        """The statistics' name number of each of the ``Trace``'s names (int32 below 2^31
        names: a thread's gathered numbers are the query's largest temporary)."""
        ix = self._numbering()
        return np.fromiter((ix.setdefault(n, len(ix)) for n in
                            (_label(x, NO_NAME) for x in names)),
                           dtype=np.int32 if len(names) < 2 ** 31 else np.int64,
                           count=len(names))

    def _grouped_ids(self, name_ids):
        """Per slice, the name number of its row under ``group_by`` (None: its name)."""
        tl, by = self.tl, self.group_by
        if by == "name" or not len(tl.start):
            return None
        other = tl.shape if by == "shape" else tl.layer
        width = len(tl.layers if by != "shape" else tl.shape_labels) + 1
        key = tl.name.astype(np.int64) * width + (other.astype(np.int64) + 1)
        if by == "layer":   # "(no layer)" or the name: by category
            key = key * max(len(tl.cats), 1) + tl.cat
        uniq, inverse = np.unique(key, return_inverse=True)
        ix = self._numbering()
        ids = np.empty(len(uniq), dtype=np.int64)
        for j, k in enumerate(uniq.tolist()):
            cat = None
            if by == "layer":
                k, c = divmod(k, max(len(tl.cats), 1))
                cat = _label(tl.cats[c], NO_CATEGORY)
            n, o = divmod(k, width)
            name = _label(tl.names[n], NO_NAME)
            o -= 1
            layer = tl.layers[o] if by != "shape" and o >= 0 else None
            shapes = tl.shape_labels[o] if by == "shape" and o >= 0 else None
            label = grouped(name, cat, layer, shapes, by)
            ids[j] = ix.setdefault(label, len(ix))
        return ids[inverse.reshape(-1)].astype(np.int32)

    def _ps(self, starts, ends, ordinals):
        """Picosecond durations: ns * 1000 but the kept ones; -1 for a slice too long."""
        tl = self.tl
        ps = (ends - starts) * 1000
        if len(tl.ps_ordinal):
            at = np.searchsorted(tl.ps_ordinal, ordinals)
            at_c = np.minimum(at, len(tl.ps_ordinal) - 1)
            hit = tl.ps_ordinal[at_c] == ordinals
            if hit.any():
                ps = np.where(hit, tl.ps_value[at_c], ps)
        long_ = (ends - starts) >= _PS_LIMIT_NS
        if long_.any():
            ps = np.where(long_, -1, ps)
        return ps

    def _line_range(self, t):
        lt = self.tl.line_thread
        return int(np.searchsorted(lt, t, "left")), int(np.searchsorted(lt, t, "right"))

    def _lines_of(self, t):
        if not len(self.tl.line_thread):
            return None
        lo, hi = self._line_range(t)
        return (lo, hi) if hi > lo else None

    def _line_rows(self, lo, hi, name_ids):
        """Row ids of the Python-line samples ``lo:hi`` (rows made for new ones)."""
        names = self.tl.names
        return np.array([self._new_row(PYTHON_LINE, _label(names[k], NO_NAME))
                         for k in self.tl.line_name[lo:hi].tolist()], dtype=np.int64)

    def _thread_query(self, a, b, skip, name_ids, labels, lines):
        """Count the ``Trace``'s slices ``a:b`` (one thread) into their rows and add their
        self time (``lines``: the thread's Python-line samples, a range of ``line_*``).
        Durations are the ``Trace``'s ns times 1000 unless kept apart, so most threads
        need no picosecond column; the sums go by chunks, the self time on the
        ``Trace``'s own order: little memory beside the columns."""
        tl = self.tl
        row = self._rows_at(a, b, name_ids, labels)
        starts, ends = tl.start[a:b], tl.end[a:b]
        ps = None
        if len(tl.ps_ordinal) or ((ends - starts) >= _PS_LIMIT_NS).any():
            ps = self._ps(starts, ends, tl.ordinal[a:b])
            skip = skip | (ps < 0)
        if skip.any():
            keep = ~skip
            starts, ends, row = starts[keep], ends[keep], row[keep]
            ps = ps[keep] if ps is not None else None
        skip = keep = None
        for c0 in range(0, len(row), _CHUNK):
            c1 = c0 + _CHUNK
            self._add_rows(row[c0:c1],
                           ps[c0:c1] if ps is not None else (ends[c0:c1] - starts[c0:c1]) * 1000)
        if len(row):
            self._widen_ns(int(starts.min()), int(ends.max()))
        if lines is not None:   # the Python-line samples of that thread, after its slices
            lo, hi = lines
            ls, le = tl.line_start[lo:hi], tl.line_end[lo:hi]
            lps = self._ps(ls, le, tl.line_ordinal[lo:hi])
            use = lps >= 0
            lrow = self._line_rows(lo, hi, name_ids)[use]
            ls, le, lps = ls[use], le[use], lps[use]
            self._add_rows(lrow, lps)
            if len(ls):
                self._widen_ns(int(ls.min()), int(le.max()))
            if ps is None:
                ps = (ends - starts) * 1000
            starts, ends, row, ps = (np.concatenate([x, y]) for x, y in
                                     ((starts, ls), (ends, le), (row, lrow), (ps, lps)))
            self._add_inner(inner_by_row(row, starts, ends, ps, 1000))
        elif ps is None:   # ps = ns * 1000: the inner time in ns, times 1000
            self._add_inner({r: v * 1000 for r, v in
                             inner_by_row(row, starts, ends, ordered=True).items()})
        else:
            self._add_inner(inner_by_row(row, starts, ends, ps, 1000, ordered=True))

    def _rows_at(self, a, b, name_ids, labels):
        """Row ids (int32) of the ``Trace``'s slices ``a:b``, rows made for new ones."""
        tl = self.tl
        nid = name_ids[tl.name[a:b]] if labels is None else labels[a:b]
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
                numbers = self._numbers()
                for n in np.unique(nids[rows < 0]).tolist():
                    self._new_row(domain, numbers[n])
                domain, tab = self._table(domain)
                rows = tab[nids]
            row[sel] = rows
        return row

    def _numbers(self):
        """The numbering's names by number (the labels of name numbers)."""
        ix = self._numbering()
        if getattr(self, "_by_number", None) is None or len(self._by_number) != len(ix):
            self._by_number = [None] * len(ix)
            for n, k in ix.items():
                self._by_number[k] = n
        return self._by_number

    def _add_inner(self, by_row):
        domain_of, name_of = self._row_domain, self._row_name
        for row, ps in by_row.items():
            self.stats.add_inner_ps(domain_of[row], name_of[row], ps)
        if not self.rows_inner:
            return
        inner = self._inner if self._inner is not None else {}
        self._inner = inner
        for row, ps in by_row.items():
            inner[row] = inner.get(row, 0) + ps

    # -- async pairs ------------------------------------------------------------------
    def _pairs(self, pid):
        """The async pairs that are no custom-op call (of process ``pid``, None: all), in
        the order they closed, per process (``RowTable.finish`` merges them)."""
        tl = self.tl
        sel = np.flatnonzero(~tl.async_call)
        if pid is not None:
            sel = sel[tl.async_process[sel] == self.process]
        if not len(sel):
            return
        sel = sel[np.argsort(tl.async_end_ordinal[sel], kind="stable")]
        names = [_label(n, NO_NAME) for n in tl.names]
        cats = [_label(c, NO_CATEGORY) for c in tl.cats]
        self._process_names = {k: tl.process_names.get(p) for k, p in enumerate(tl.pids)}
        self._widen_ns(int(tl.async_start[sel].min()), int(tl.async_end[sel].max()))
        for c0 in range(0, len(sel), _PAIR_CHUNK):   # a chunk's Python ints at a time
            part = sel[c0:c0 + _PAIR_CHUNK]
            for k, n, c, s, e, o in zip(tl.async_process[part].tolist(),
                                        tl.async_name[part].tolist(),
                                        tl.async_cat[part].tolist(),
                                        tl.async_start[part].tolist(),
                                        tl.async_end[part].tolist(),
                                        tl.async_ordinal[part].tolist()):
                per = self._async_by_pid.get(k)
                if per is None:
                    per = self._async_by_pid[k] = Stats()
                ps = tl.async_ps.get(o)
                per.add_time_ps(cats[c], names[n], (e - s) * 1000 if ps is None else ps)
