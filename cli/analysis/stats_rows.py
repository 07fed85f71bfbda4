"""The statistics' time rows while they are counted: sums by row id, made rows of a
:class:`~xprof.traces.stats.Stats` at the end.

Why a table of ids and not a dict per row: a trace of a million distinct names has a
million rows; per row this keeps 32 bytes of sums (count, total, min, max in
picoseconds) and one entry in its domain's array of row ids by name number, not a
``(domain, name)`` tuple and a list. ``analysis/trace_stats.py`` counts a ``Trace``'s
slices into it; :meth:`RowTable.finish` adds the async pairs (MXNet's mirror rule) and
makes the rows.

MXNet 1.x writes every operator twice: a ``B``/``E`` slice on the device thread and an
async ``b``/``e`` mirror on a process named after the domain. Counting both would double
every row, so async pairs on a process whose ``process_name`` equals their category
(after a merge: ends with ``: <category>``) are dropped when the same (domain, name) also
has synchronous slices; rows that exist only as async pairs (the C API calls, a custom
op's ``pure_python`` rows) are kept.
"""
from __future__ import annotations

import numpy as np

from xprof.traces.counters import NO_CATEGORY, NO_NAME, label as _label  # noqa: F401
from xprof.traces.stats import Stats

_NO_ROWS = {}   # read only: the row ids of a domain not seen yet
_I64_MAX = 2 ** 63 - 1
_INT64_PS_SUM = 2 ** 62   # the columns' sums are flushed to Python integers before this


class _AllRows:
    """The rows of a Stats' time table and of a collector's row ids, as one
    ``{domain: {names}}`` for ``in`` tests (the mirror rule of ``finish`` sees every
    synchronous row, also those a page leaves out)."""

    def __init__(self, time, row_of, numbers):
        self._time, self._row_of, self._numbers = time, row_of, numbers

    def __contains__(self, domain):
        return domain in self._time or domain in self._row_of

    def __getitem__(self, domain):
        return _AllNames(self._time.get(domain, _NO_ROWS), self._row_of.get(domain),
                         self._numbers)


class _AllNames:
    def __init__(self, names, tab, numbers):
        self._names, self._tab, self._numbers = names, tab, numbers

    def __contains__(self, name):
        if name in self._names:
            return True
        nid = self._numbers.get(name)
        return self._tab is not None and nid is not None and nid < len(self._tab) \
            and self._tab[nid] >= 0


def _names_domain(process_name, domain):
    """Whether a process is named after ``domain`` (MXNet's mirror processes), also
    with the ``<file or rank>: `` prefix ``xprof trace`` gives merged processes."""
    return process_name is not None and (process_name == domain
                                         or process_name.endswith(": " + domain))


class RowTable:
    """Rows counted by id (:meth:`new_row`, :meth:`add_rows`); :meth:`finish` returns the
    Stats."""

    def __init__(self):
        self.stats = Stats()
        self._async_by_pid = {}  # pid -> Stats of async pairs, merged in finish()
        self._process_names = {}
        # row ids: names numbered (the pass's numbering, Batch.names, or its own), per
        # domain an array of row ids by name number (-1: none), and by row id its domain
        # and name (no (domain, name) tuple, no dict entry per row: a trace of a million
        # names kept a million of each)
        self._names = None
        self._row_of = {}
        self._domains = {}       # each domain's text, one object for all its rows
        self._row_domain = []
        self._row_name = []
        # the column path's sums by row id (count, total, min, max in ps), made into the
        # Stats' rows at finish: a row costs 32 bytes while reading, not a list of ints
        self._cols = [np.zeros(0, dtype=np.int64) for _ in range(4)]
        self._cols_total = 0      # ps summed into the columns (int64 bound, see _add_rows)
        self._inner = None        # finish: ps in direct children, by row id
        self.dropped = {}         # finish(keep=...): {domain: rows left out}
        self._first = self._last = None   # ns: the profile's span (slices only)

    def _numbering(self, shared=None):
        if self._names is None:
            self._names = shared if shared is not None else {}
        return self._names

    def _table(self, domain):
        """``(domain's text, its row ids by name number)``, the array as long as the
        numbering (int32: a domain's table spans every name of the trace)."""
        tab = self._row_of.get(domain)
        if tab is None:
            domain = self._domains.setdefault(domain, domain)
            tab = self._row_of[domain] = np.full(0, -1, dtype=np.int32)
        else:
            domain = self._domains[domain]
        need = len(self._names)
        if len(tab) < need:
            tab = self._row_of[domain] = np.concatenate(   # one per domain: grown by 1/4
                [tab, np.full(max(need, len(tab) * 5 // 4, 1024) - len(tab), -1,
                              dtype=np.int32)])
        return domain, tab

    def _new_row(self, domain, name):
        """The id of row ``(domain, name)``, made if new."""
        ix = self._numbering()
        nid = ix.get(name)
        if nid is None:
            nid = ix[name] = len(ix)
        domain, tab = self._table(domain)
        row = int(tab[nid])
        if row < 0:
            row = len(self._row_name)
            tab[nid] = row
            self._row_domain.append(domain)
            self._row_name.append(name)
        return row

    def _add_rows(self, row, ps):
        """Count the picosecond durations ``ps`` into the time rows numbered ``row`` (the
        columns; :meth:`_flush` makes them rows of the Stats)."""
        order = np.argsort(row, kind="stable")
        row, ps = row[order], ps[order]
        first = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])
        r = row[first]
        total = int(ps.sum())
        if self._cols_total + total >= _INT64_PS_SUM:   # the columns' sums stay in int64
            self._flush()
        self._cols_total += total
        n = len(self._row_name)
        if n > len(self._cols[0]):
            self._grow(max(n, 2 * len(self._cols[0]), 1024))
        cnt, tot, lo, hi = self._cols
        cnt[r] += np.diff(np.r_[first, len(row)])
        tot[r] += np.add.reduceat(ps, first)
        lo[r] = np.minimum(lo[r], np.minimum.reduceat(ps, first))
        hi[r] = np.maximum(hi[r], np.maximum.reduceat(ps, first))

    def _grow(self, size):
        """Columns of ``size`` rows (new rows: no call yet)."""
        cnt, tot, lo, hi = self._cols
        grow = size - len(cnt)
        self._cols = [np.concatenate([cnt, np.zeros(grow, dtype=np.int64)]),
                      np.concatenate([tot, np.zeros(grow, dtype=np.int64)]),
                      np.concatenate([lo, np.full(grow, _I64_MAX, dtype=np.int64)]),
                      np.concatenate([hi, np.full(grow, -1, dtype=np.int64)])]

    def _flush(self, mask=None):
        """Add the columns' rows (those of ``mask``, default all) to the Stats' rows and
        empty the columns."""
        cnt, tot, lo, hi = self._cols
        live = cnt > 0
        ids = np.flatnonzero(live if mask is None else live & mask[:len(cnt)])
        domain_of, name_of = self._row_domain, self._row_name
        time = self.stats.time
        for r, n, total, low, high in zip(ids.tolist(), cnt[ids].tolist(), tot[ids].tolist(),
                                          lo[ids].tolist(), hi[ids].tolist()):
            domain = domain_of[r]   # Stats.add_times_ps, inlined: once per row
            names = time.get(domain)
            if names is None:
                names = time[domain] = {}
            name = name_of[r]
            entry = names.get(name)
            if entry is None:   # one call: its duration is the sum, min and max (one int)
                names[name] = [1, total, total, total] if n == 1 else [n, total, low, high]
            else:
                entry[0] += n
                entry[1] += total
                if low < entry[2]:
                    entry[2] = low
                if high > entry[3]:
                    entry[3] = high
        self._cols = [np.zeros(0, dtype=np.int64) for _ in range(4)]
        self._cols_total = 0

    def _widen_ns(self, t0, t1):
        if self._first is None or t0 < self._first:
            self._first = t0
        if self._last is None or t1 > self._last:
            self._last = t1

    def _flush_kept(self, keep):
        """:meth:`_flush` of the rows ``keep`` chooses (see :meth:`finish`)."""
        n = len(self._row_name)
        if len(self._cols[0]) != n:
            self._cols = [c[:n] for c in self._cols] if len(self._cols[0]) > n else self._cols
            if len(self._cols[0]) < n:
                self._grow(n)
        cnt, tot = self._cols[0], self._cols[1]
        self_ps = tot
        if self._inner:
            self_ps = tot.copy()
            ids = np.fromiter(self._inner, dtype=np.int64, count=len(self._inner))
            self_ps[ids] -= np.fromiter(self._inner.values(), dtype=np.int64, count=len(ids))
        # rows also filled event by event are kept, and left out of the choice (their
        # sums here are not their whole)
        both = np.zeros(n, dtype=bool)
        ix = self._names if self._names is not None else {}
        for domain, names in self.stats.time.items():
            tab = self._row_of.get(domain)
            if tab is None:
                continue
            for name in names:
                nid = ix.get(name)
                if nid is not None and nid < len(tab) and tab[nid] >= 0:
                    both[tab[nid]] = True
        chosen = keep(self._row_domain, self._row_name,
                      np.where(both, 0, cnt) if both.any() else cnt, tot, self_ps)
        mask = np.array(chosen, dtype=bool) | both
        chosen = both = self_ps = None
        left = (cnt > 0) & ~mask
        if left.any():   # counted by domain (a domain's rows are few runs of row ids)
            codes = {d: k for k, d in enumerate(self._row_of)}
            domain = np.fromiter(map(codes.__getitem__, self._row_domain), dtype=np.int32,
                                 count=n)
            counts = np.bincount(domain[left], minlength=len(codes)).tolist()
            for d, k in codes.items():
                if counts[k]:
                    self.dropped[d] = counts[k]
                    self.stats.time.setdefault(d, {})
        domain = left = cnt = tot = None   # (a million rows: let go before the flush)
        self._flush(mask)

    def finish(self, sync_time=None, keep=None):
        """Merge async pairs (minus MXNet's mirrored duplicates), add self times, return the Stats.

        ``sync_time``: the synchronous rows a mirror duplicates (default this
        collector's own; ``xprof stats --by-process`` passes every process's).
        ``keep``: a page's choice of rows, ``keep(domains, names, count, total_ps,
        self_ps) -> bool array`` over the column path's rows (by row id); the others are
        left out of the Stats and counted in :attr:`dropped` ({domain: rows}), each domain
        kept as a (maybe empty) table. A row the per-event path also filled is kept (and
        given ``keep`` with a count of 0: not to choose among)."""
        if self._first is not None:
            self.stats.add_span_ns(self._first, self._last)
        if keep is None:
            self._flush()
        time = self.stats.time if sync_time is None else sync_time
        if keep is not None and sync_time is None:
            time = _AllRows(self.stats.time, self._row_of, self._names or {})
        for pid, per_pid in self._async_by_pid.items():
            mirror_domain = self._process_names.get(pid)
            for domain, names in per_pid.time.items():
                if _names_domain(mirror_domain, domain) and domain in time:
                    names = {n: e for n, e in names.items() if n not in time[domain]}
                    if not names:
                        continue
                extra = Stats()
                extra.time[domain] = names
                self.stats.merge(extra)
        self._async_by_pid = {}
        if keep is not None:
            self._flush_kept(keep)
        # the row ids are done with: a million names' index goes before the next
        # collector's finish needs room
        self._row_of, self._row_domain, self._row_name, self._names = {}, [], [], None
        return self.stats
