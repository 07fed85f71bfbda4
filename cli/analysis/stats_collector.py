"""Turn Chrome trace events into aggregate statistics (tolerant: it aggregates, it does not validate).

Why a separate, forgiving reader: ``xprof stats`` must work on traces that
``xprof validate`` rejects — MXNet 1.x (64-bit hashed tids, B/E pairs),
PyTorch (string pids), truncated arrays — because the numbers are still
meaningful.  Malformed events are skipped silently.

Where durations come from:

* ``X`` events: ``dur``;
* ``B``/``E`` pairs matched per (pid, tid) stack in file order (the E takes
  the B's name and category);
* async ``b``/``e`` pairs matched per (cat, id, name) stack.

Counters (``C``): every numeric arg is a series, named after the event when
the only arg key equals the event name (our memory counters) and
``name.key`` otherwise.  A counter is memory (bytes) when its category is
``Device Storage`` or its name starts with ``Memory:``.

MXNet 1.x writes every operator twice: a ``B``/``E`` slice on the device
thread and an async ``b``/``e`` mirror on a process named after the domain.
Counting both would double every row, so async pairs on a process whose
``process_name`` equals their category (after a merge: ends with ``: <category>``)
are dropped when the same (domain,
name) also has synchronous slices; rows that exist only as async pairs (the
C API calls, a custom op's ``pure_python`` rows) are kept.
"""
from __future__ import annotations

from array import array

import numpy as np

from xprof.traces.callstats import CATEGORY as CALL_CATEGORY, is_call_args
from xprof.traces.names import DEVICE_STORAGE
from xprof.traces.rules import OpenSlices, TIME_MAX_US as _TIME_MAX, id_key as _key, ns, \
    usable_time as _num
from xprof.traces.selftime import inner_by_row
from xprof.traces.stats import Stats

from xprof.traces.batch import view
from xprof.mxcli.analysis.grouping import row_name

_INF = float("inf")
_NO_ROWS = {}   # read only: the row ids of a domain not seen yet
_I64_MAX = 2 ** 63 - 1
_INT64_PS_SUM = 2 ** 62   # the columns' sums are flushed to Python integers before this
MEMORY_CATEGORY = DEVICE_STORAGE
NO_CATEGORY = "uncategorized"
NO_NAME = "(unnamed)"


# Keys of pids/tids/ids (_key), usable times (_num, _TIME_MAX: beyond 2^63 ns an event
# fits no viewer and no exact sum, so it is skipped like other malformed ones) and ns
# are the rules every reader shares (xprof.traces.rules).


# A duration is summed in integer picoseconds, kept in int64 columns for self time: a
# slice longer than 2^63 ps (106 days) is skipped like other malformed ones.
_DUR_MAX = 2 ** 63 / 1_000_000


def _span(dur):
    """A usable duration (us): a number in [0, 2^63 ps)."""
    return (type(dur) is int or type(dur) is float) and 0 <= dur < _DUR_MAX


# pids/tids of these types are their own keys (``_key`` returns them unchanged)
_PLAIN_IDS = frozenset((int, str, float, bool, type(None)))
_NUMBERS = frozenset((int, float))
# The column path computes in float64 and int64 what the per-event path computes in
# Python numbers. Floats give the same results in both; an integer ts or dur is exact
# in float64 only below 2^53 (after the scaling to ns or ps), and sums must fit int64:
# batches beyond these bounds take the per-event path.
_INT_EXACT_NS = 2 ** 53 / 1000       # |ts| + dur, us, when a ts or dur is an int
_INT_EXACT_PS = 2 ** 53 / 1_000_000  # dur, us, when a dur is an int
_INT64_NS = 2 ** 62 / 1000           # |ts| + dur, us
_INT64_PS = 2 ** 62 / 1_000_000      # a batch's summed dur, us


def _level(value):
    """A counter value as a number the aggregate can hold (floats beyond 2^53), else None."""
    if type(value) is float:
        return value if -_INF < value < _INF else None
    if type(value) is int:
        if -(2 ** 53) <= value <= 2 ** 53:
            return value
        return float(value) if -1e308 < value < 1e308 else None
    return None


def _label(value, default):
    """A usable row/domain label: a non-empty string, else the default."""
    return value if type(value) is str and value else default


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


def _by_thread(pids, tids):
    """``[((pid key, tid key), positions)]`` of a batch's events (positions: an index
    array, or ``slice(None)`` when all are on one thread)."""
    plain = set(map(type, pids)) <= _PLAIN_IDS
    if plain and set(map(type, tids)) == {int} and len(set(pids)) == 1:
        pid, tid_set = pids[0], set(tids)
        if len(tid_set) == 1:
            return [((pid, tids[0]), slice(None))]
        tid_set = sorted(tid_set)
        if -2 ** 63 <= tid_set[0] and tid_set[-1] < 2 ** 63:
            t = np.array(tids, dtype=np.int64)
            order = np.argsort(t, kind="stable")
            cuts = np.searchsorted(t[order], tid_set[1:])
            return [((pid, tid), sel) for tid, sel in zip(tid_set, np.split(order, cuts))]
    if plain and set(map(type, tids)) <= _PLAIN_IDS:
        threads = list(zip(pids, tids))
    else:
        threads = [(_key(p), _key(t)) for p, t in zip(pids, tids)]
    slot = {}
    ids = np.array([slot.setdefault(t, len(slot)) for t in threads], dtype=np.int64)
    return [(thread, np.flatnonzero(ids == j)) for thread, j in slot.items()]


class StatsCollector:
    """Feed batches of events with :meth:`feed`; :meth:`finish` returns a Stats."""

    def __init__(self, group_by="name"):
        self.stats = Stats()
        self._group_by = None if group_by == "name" else group_by   # see grouping.py
        self._open = OpenSlices()   # B events waiting for their E: (ts, name, cat)
        self._async_open = {}    # (cat, id, name) -> [(ts, pid)]
        self._async_by_pid = {}  # pid -> Stats of async pairs, merged in finish()
        self._process_names = {}
        self._threads = {}       # (pid, tid) -> (starts ns, ends ns, row ids): for Self
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

    def _slice(self, thread, cat, name, t0, t1, dur):
        """Count one thread-bound slice (``t0``/``t1``: its ends in ns, ``dur`` its length
        in us) in its row and keep it for self time and the wall-time span."""
        self.stats.add_time(cat, name, dur)
        self._widen_ns(t0, t1)
        # ps, exactly as Stats.add_time sums it
        self._keep_slice(thread, t0, t1, self._new_row(cat, name), round(dur * 1_000_000))

    def _keep_slice(self, thread, t0, t1, row, ps):
        """Keep one slice's columns for self time (``trace_stats.py`` keeps fewer)."""
        cols = self._threads.get(thread)
        if cols is None:
            cols = self._threads[thread] = (array("q"), array("q"), array("q"), array("q"))
        cols[0].append(t0)
        cols[1].append(t1)
        cols[2].append(row)
        cols[3].append(ps)

    def feed(self, events):
        """Add one batch: its ``X`` events column by column when every one is well formed
        and the batch holds no ``B``/``E`` (whose slices must stay in file order among
        the ``X`` ones), the rest event by event (:meth:`feed_events`, which gives the
        same statistics)."""
        v = view(events)
        if v is None or self._group_by or not v.x_pos or v.has_pairs or not self._feed_x(v):
            return self.feed_events(events)
        if len(v.x_pos) < len(events):
            self.feed_events(v.others())

    def _feed_x(self, v):
        """The ``X`` events of the batch view ``v`` as columns; False (nothing added)
        when one of them is not plainly well formed (the per-event path then judges
        each)."""
        cols = self._x_columns(v)
        if cols is None:
            return False
        self._count_x(v, *cols)
        return True

    def _x_columns(self, v):
        """``(ts, dur, cats, names, pids, tids, ps, t0, t1)`` of the view's ``X`` events
        (ps: their durations in picoseconds; t0, t1: their ends in ns), or None when one
        of them is not plainly well formed."""
        ts, dur, cats, names, pids, tids = v.fields()
        types = set(map(type, ts)) | set(map(type, dur))
        if not types <= _NUMBERS:
            return None
        ts, dur = np.array(ts, dtype=np.float64), np.array(dur, dtype=np.float64)
        reach = np.abs(ts) + dur
        if not ((dur >= 0).all() and (reach < _INT64_NS).all()
                and float(dur.sum()) < _INT64_PS):          # also False for a NaN
            return None
        if int in types and not ((reach < _INT_EXACT_NS).all()
                                 and (dur < _INT_EXACT_PS).all()):
            return None
        ps = np.rint(dur * 1_000_000).astype(np.int64)      # round(dur * 1_000_000)
        t0 = np.rint(ts * 1000).astype(np.int64)
        t1 = t0 + np.rint(dur * 1000).astype(np.int64)       # rules.end_ns
        return ts, dur, cats, names, pids, tids, ps, t0, t1

    def _count_x(self, v, ts, dur, cats, names, pids, tids, ps, t0, t1):
        """Count the view's well-formed ``X`` columns into their rows and keep them."""
        if set(map(type, cats)) != {str} or "" in cats:
            cats = [_label(c, NO_CATEGORY) for c in cats]
        if set(map(type, names)) != {str} or "" in names:
            names = [_label(n, NO_NAME) for n in names]
        row = self._rows_of(cats, names, v.names)
        self._add_rows(row, ps)
        self._widen_ns(int(t0.min()), int(t1.max()))
        self._keep_slices(pids, tids, t0, t1, row, ps)

    def _keep_slices(self, pids, tids, t0, t1, row, ps):
        """:meth:`_keep_slice` of a batch's ``X`` columns (pids, tids: lists)."""
        for thread, sel in _by_thread(pids, tids):
            cols = self._threads.get(thread)
            if cols is None:
                cols = self._threads[thread] = (array("q"), array("q"), array("q"), array("q"))
            for col, values in zip(cols, (t0, t1, row, ps)):
                col.frombytes(values[sel].tobytes())

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

    def _rows_of(self, cats, names, shared):
        """Row ids (int64 array) of a batch's slices (their domains and names)."""
        ix = self._numbering(shared)
        nid = list(map(ix.get, names))
        if None in nid:
            nid = [i if i is not None else ix.setdefault(n, len(ix)) for i, n in zip(nid, names)]
        nid = np.array(nid, dtype=np.int64)
        domains = set(cats)
        if len(domains) == 1:
            return self._rows_in(cats[0], nid, names, None)
        code = {d: k for k, d in enumerate(domains)}
        dom = np.fromiter(map(code.__getitem__, cats), dtype=np.int64, count=len(cats))
        row = np.empty(len(nid), dtype=np.int64)
        for d, k in code.items():
            sel = np.flatnonzero(dom == k)
            row[sel] = self._rows_in(d, nid[sel], names, sel)
        return row

    def _rows_in(self, domain, nid, names, sel):
        """Row ids of one domain's slices (name numbers ``nid``; ``names[sel[k]]`` is the
        name of the k-th, ``sel`` None: all), new rows made in order of appearance."""
        domain, tab = self._table(domain)
        row = tab[nid]
        new = np.flatnonzero(row < 0)
        if len(new):
            fresh, first = np.unique(nid[new], return_index=True)
            order = np.argsort(first)
            fresh, at = fresh[order], new[first[order]]
            tab[fresh] = np.arange(len(self._row_name), len(self._row_name) + len(fresh))
            self._row_domain.extend([domain] * len(fresh))
            pos = at if sel is None else sel[at]
            self._row_name.extend(map(names.__getitem__, pos.tolist()))
            row = tab[nid]
        return row.astype(np.int64)

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

    def feed_events(self, events):
        """Add one batch event by event (any event, in file order)."""
        add_time = self.stats.add_time
        for ev in events:
            if type(ev) is not dict:
                continue
            get = ev.get
            ph = get("ph")
            if ph == "X":
                dur = get("dur")
                ts = get("ts")
                if _span(dur):
                    cat, name = _label(get("cat"), NO_CATEGORY), _label(get("name"), NO_NAME)
                    if self._group_by:
                        name = row_name(name, get("args"), self._group_by, cat)
                    if _num(ts) and _num(ts + dur):
                        t0 = ns(ts)
                        self._slice((_key(get("pid")), _key(get("tid"))), cat, name,
                                    t0, t0 + ns(dur), dur)
                    else:   # a duration without a usable place in time: no self time
                        add_time(cat, name, dur)
            elif ph == "C":
                self._counter(ev)
            elif ph == "B" or ph == "E":
                self._sync(ev, ph)
            elif ph == "b" or ph == "e":
                self._async(ev, ph)
            elif ph == "M" and get("name") == "process_name":
                args = get("args")
                if type(args) is dict and type(args.get("name")) is str:
                    self._process_names[_key(get("pid"))] = args["name"]

    def _counter(self, ev):
        args = ev.get("args")
        if type(args) is not dict or not args:
            return
        name = _label(ev.get("name"), NO_NAME)
        cat = _label(ev.get("cat"), NO_CATEGORY)
        memory = cat == MEMORY_CATEGORY or name.startswith("Memory:")
        single = len(args) == 1
        for key, value in args.items():
            value = _level(value)
            if value is not None:
                series = name if single and key == name else f"{name}.{key}"
                self.stats.add_counter(cat, series, value, memory)

    def _sync(self, ev, ph):
        ts = ev.get("ts")
        if not _num(ts):
            return
        thread = (_key(ev.get("pid")), _key(ev.get("tid")))
        if ph == "B":
            name = _label(ev.get("name"), NO_NAME)
            cat = _label(ev.get("cat"), NO_CATEGORY)
            if self._group_by:
                name = row_name(name, ev.get("args"), self._group_by, cat)
            self._open.begin(thread, (ts, name, cat))
            return
        begun = self._open.end(thread)
        if begun is not None:
            begin, name, cat = begun
            if _span(ts - begin):
                self._slice(thread, cat, name, ns(begin), ns(ts), ts - begin)

    def _async(self, ev, ph):
        # helpers inlined (_num, _label, _key): a user task per step makes these many
        get = ev.get
        ts = get("ts")
        t = type(ts)
        if not ((t is int or t is float) and -_TIME_MAX < ts < _TIME_MAX):
            return
        cat = get("cat")
        if ph == "b" and cat == CALL_CATEGORY and is_call_args(get("args")):
            return   # a custom-op call span: the Custom Operator Calls section, not a Time row
        ident = _key(get("id", get("id2")))
        if type(cat) is not str or not cat:
            cat = NO_CATEGORY
        name = get("name")
        if type(name) is not str or not name:
            name = NO_NAME
        key = (cat, ident, name)
        stack = self._async_open.get(key)
        if ph == "b":
            if stack is None:
                stack = self._async_open[key] = []
            stack.append((ts, _key(ev.get("pid"))))
        elif stack:
            begin, pid = stack.pop()
            if not stack:
                del self._async_open[key]
            if ts >= begin:
                self._widen_ns(ns(begin), ns(ts))
                per_pid = self._async_by_pid.get(pid)
                if per_pid is None:
                    per_pid = self._async_by_pid[pid] = Stats()
                per_pid.add_time(cat, name, ts - begin)

    def _widen_ns(self, t0, t1):
        if self._first is None or t0 < self._first:
            self._first = t0
        if self._last is None or t1 > self._last:
            self._last = t1

    def _self_times(self):
        """Each row's time in slices nested directly inside its slices, thread by thread."""
        domain_of, name_of = self._row_domain, self._row_name
        inner = self._inner = {}
        threads, self._threads = self._threads, {}
        while threads:   # each thread's columns freed once walked
            starts, ends, rows, durs = threads.pop(next(iter(threads)))
            for row, ps in inner_by_row(rows, starts, ends, durs, 1000).items():
                self.stats.add_inner_ps(domain_of[row], name_of[row], ps)
                inner[row] = inner.get(row, 0) + ps
        self._threads = {}
        if self._first is not None:
            self.stats.add_span_ns(self._first, self._last)

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
        mask = np.array(keep(self._row_domain, self._row_name, cnt, tot, self_ps),
                        dtype=bool)
        del self_ps
        ix = self._names if self._names is not None else {}
        for domain, names in self.stats.time.items():   # also filled event by event
            tab = self._row_of.get(domain)
            if tab is None:
                continue
            for name in names:
                nid = ix.get(name)
                if nid is not None and nid < len(tab) and tab[nid] >= 0:
                    mask[tab[nid]] = True
        left = (cnt > 0) & ~mask
        if left.any():   # counted by domain (a domain's rows are few runs of row ids)
            codes = {d: k for k, d in enumerate(self._row_of)}
            domain = np.fromiter(map(codes.__getitem__, self._row_domain), dtype=np.int64,
                                 count=n)
            counts = np.bincount(domain[left], minlength=len(codes)).tolist()
            for d, k in codes.items():
                if counts[k]:
                    self.dropped[d] = counts[k]
                    self.stats.time.setdefault(d, {})
        self._flush(mask)

    def finish(self, sync_time=None, keep=None):
        """Merge async pairs (minus MXNet's mirrored duplicates), add self times, return the Stats.

        ``sync_time``: the synchronous rows a mirror duplicates (default this
        collector's own; ``xprof stats --by-process`` passes every process's).
        ``keep``: a page's choice of rows, ``keep(domains, names, count, total_ps,
        self_ps) -> bool array`` over the column path's rows (by row id); the others are
        left out of the Stats and counted in :attr:`dropped` ({domain: rows}), each domain
        kept as a (maybe empty) table. A row the per-event path also filled is kept."""
        self._self_times()
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
