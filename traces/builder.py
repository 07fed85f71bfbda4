"""How a :class:`~.model.Trace` is built: one pass over the decoded batches of one or
several files, every table filled on the way (``Trace.load`` drives it).

Why apart from the model: the model says what a trace holds; this module is the import,
batch by batch, with the per-event rules of :mod:`.rules`. The common batch (well-formed
``X`` events) goes column by column, anything unusual event by event
(:meth:`Builder._feed_careful`); the other tables are filled by their own small
modules, fed from the same loops: :mod:`.links` (flows, async pairs, custom-op calls),
:mod:`.counters`, :mod:`.argkeys` (layer and shapes, ``keys=True``), :mod:`.linesamples`
(Python-line samples).

Options (what a reader needs, so that ``xprof stats`` keeps within its memory):
``links``: ``"all"`` (flow steps bound, every async pair), ``"pairs"`` (every async
pair, no flow step read), ``"calls"`` (only the custom-op calls' pairs and the largest
flow id: explain, diff); ``records``: ``True`` (dependency records and sync points),
``"times"`` (only each record's push and ready times: ``Operator Latency``; no pusher,
no variables), ``False``;
``keys``: the layer and shape columns.
"""
from __future__ import annotations

from array import array
from itertools import chain, repeat
from operator import itemgetter

import numpy as np

from .argkeys import ArgKeys
from .batch import view
from .columns import I32, csr, ordinal_type, table
from .counters import Counters
from .linesamples import LineSamples
from .links import FLOW_PHASES, Links
from .names import COLLECTIVE_NAME, PYTHON_LINE
from .rules import OpenSlices, TIME_MAX_US, id_key as _key, ns, thread_key, to_ns_exact, \
    usable_dur, usable_time as _num

_DEP = itemgetter("dep")
_EXACT_US = 2 ** 53 / 1000   # an integer time (us) beyond it is inexact as float64 ns
_EXACT_PS_US = 2 ** 53 / 1_000_000   # an integer duration (us) exact as float64 ps
_INT_LIMIT = 2 ** 62   # dependency record items beyond it are no xprof record (int64 math)
DUR_MAX_US = 2 ** 63 / 1_000_000   # a duration has int64 picoseconds below it
LAST_TO_ARRIVE = "Last to arrive"   # a collective's arrivals (runtime/dist/events.py)


_NOTHING = object()
_NUMBERS = frozenset((int, float))


def _ints(items):
    """Every item an integer within +-2^62 (what a dependency record holds)."""
    for v in items:
        if type(v) is not int or not -_INT_LIMIT < v < _INT_LIMIT:
            return False
    return True


def _is_collective(args):
    return type(args) is dict and (COLLECTIVE_NAME in args or LAST_TO_ARRIVE in args)


class Builder:
    """Collects rows batch by batch into growing columns: :meth:`feed` each batch of
    decoded events, then :meth:`finish` for the :class:`~.model.Trace` ``into`` (an empty
    one: ``model.Builder`` gives it). Options: see the module docstring."""

    def __init__(self, into, links="all", records=True, keys=False):
        if links not in ("all", "pairs", "calls") or records not in (True, False, "times"):
            raise ValueError(f"Builder(links={links!r}, records={records!r})")
        self.tl = into
        self.thread_ix = {}
        self.name_ix = {}
        self.cat_ix = {}
        self.thread_names = {}
        self.open = OpenSlices()   # thread index -> open B: (ts us, name, cat, ordinal)
        # the slice columns (thread, name, cat, start, end, ordinal), grown in place: an
        # array.array reallocates its one buffer (no chunk per batch left behind in the
        # heap when they are joined), 4 bytes an id, 8 a time, 4 an ordinal below 2^31
        self.rows = [array(I32), array(I32), array(I32), array("q"), array("q"),
                     array(I32)]
        # dependency records: their slices' rows, lengths and items, one after another
        # (grown in place as the slice columns are: a 1M-op trace has 6M items)
        self.deps = (array("q"), array("q"), array("q"))
        self.syncs = []         # (local row, vars or None, an instant)
        self.links = Links(self._label_ids, pairs="calls" if links == "calls" else "all",
                           flows={"all": "bound", "pairs": None, "calls": "max"}[links])
        self.link_mode = links
        # the phases of the events the careful path reads among a batch's non-X ones
        self.phases = frozenset("BEMC" + "i" * (records is True) + "be"
                                + "stf" * (links != "pairs"))
        self.records = records
        self.tl.records_read = records is True
        self.counters = Counters()
        self.keys = ArgKeys() if keys else None
        self.lines = LineSamples()
        self.collectives = []   # (ordinal, pid key, name, ts, dur, args)
        self.unplaced = []      # (ordinal, cat, name, dur us, pid): a duration, no usable ts
        self.exact = (array("q"), array("q"))   # (ordinal, ps) where ps != ns * 1000
        self.pids = {}          # pid key -> None, in order of first appearance
        self.process_names = {}
        self.process_labels = {}
        self.t0, self.t1 = float("inf"), float("-inf")   # the events' extent (us)
        self.timed_threads = set()    # thread indices of the X events (extent)
        self.timed_keys = set()       # thread keys of the other timed events
        self.count = 0          # slices so far
        self.index = 0          # events so far

    def _thread(self, pid, tid):
        try:
            return self.thread_ix[(pid, tid)]
        except KeyError:
            key = (pid, tid)
        except TypeError:       # an unhashable pid/tid (a list): keyed by its repr
            key = (_key(pid), _key(tid))
            ix = self.thread_ix.get(key)
            if ix is not None:
                return ix
        ix = self.thread_ix[key] = len(self.thread_ix)
        return ix

    def _label_ids(self, names, cats):
        """The ids of names and categories (lists of strings; new ones numbered)."""
        return self._ids(self.name_ix, names), self._ids(self.cat_ix, cats)

    def _ids(self, table, values, default=None):
        """The ids of ``values`` in ``table``, new ones numbered (a non-string: ``default``)."""
        ids = list(map(table.get, values))
        if None in ids:
            ids = [i if i is not None else self._intern(table, x if type(x) is str else default)
                   for i, x in zip(ids, values)]
        return ids

    def _intern(self, table, value):
        ix = table.get(value)
        if ix is None:
            ix = table[value] = len(table)
        return ix

    def feed(self, batch):
        """Add one batch of decoded events: the common case (well-formed ``X`` events)
        column by column (the batch's :mod:`~.batch` view, no per-event statements);
        anything unusual in the batch sends the whole batch through
        :meth:`_feed_careful`."""
        v = view(batch)
        self._note_pids(batch)
        if self.keys is not None:
            self.keys.feed(batch, v, self.index)
        try:
            done = v is not None and self._feed_columns(v)
        except (AttributeError, TypeError, ValueError, KeyError, OverflowError):
            done = False
        if not done:
            self._extent(batch)
            self._feed_careful(batch)
            return
        if len(v.x_pos) < len(batch):   # metadata, links, B/E pairs: one by one
            self._extent(v.others())
            wanted = self.phases
            try:
                items = [(k, batch[k]) for k, ph in enumerate(v.phs) if ph in wanted]
            except TypeError:   # an unhashable ph: every event to the careful path
                items = zip(v.other_pos(), v.others())
            self._feed_careful(batch, items)
        else:
            self.index += len(batch)

    def _note_pids(self, batch):
        """The processes in order of first appearance (any event with a ``pid``)."""
        pids = self.pids
        try:   # (dict.get mapped: a C-level walk; TypeError for an event not an object)
            new = [p for p in dict.fromkeys(map(dict.get, batch, repeat("pid"))) if p not in pids]
        except (TypeError, AttributeError):   # an unhashable pid, an event not an object
            new = [p for p in dict.fromkeys(_key(ev.get("pid")) for ev in batch
                                            if type(ev) is dict) if p not in pids]
        for p in new:
            pids[p] = None

    def _extent(self, events):
        """The time extent and the threads of the events that are not ``X`` (``X`` ones
        are taken from their columns), as ``xprof report``'s overview states them: every
        event with a numeric ``ts`` but counters and metadata, to its ``ts + dur``."""
        t0, t1, keys = self.t0, self.t1, self.timed_keys
        for e in events:
            try:
                ph = e["ph"]
                ts = e["ts"]
            except (KeyError, TypeError):
                continue
            if ph == "C" or ph == "M":
                continue
            try:   # (subscripts, not get calls: a third of a trace's events come here)
                if ts < t0:
                    t0 = ts
                end = ts + e["dur"] if "dur" in e and e["dur"] else ts
                if end > t1:
                    t1 = end
            except TypeError:   # a non-numeric ts/dur
                continue
            try:
                keys.add((e["pid"], e["tid"]))   # hashable ids: their own keys (rules.py)
            except (KeyError, TypeError):   # no pid or tid, or an unhashable one
                keys.add(thread_key(e.get("pid"), e.get("tid")))
        self.t0, self.t1 = t0, t1

    def _feed_columns(self, v):
        """The ``X`` events of a batch view; False (nothing added) if one is not well
        formed (the careful path then judges each event)."""
        xk = v.x_pos
        if not xk:
            return True
        ts_raw, dur_raw, cats_, names_, pids, tids = v.fields()
        types = set(map(type, ts_raw)) | set(map(type, dur_raw))
        if not types <= _NUMBERS:   # (numpy would read "3" as 3.0)
            return False
        ts = np.array(ts_raw, dtype=np.float64)
        dur = np.array(dur_raw, dtype=np.float64)
        if not ((dur >= 0).all() and (dur < TIME_MAX_US).all()
                and (np.abs(ts) < TIME_MAX_US).all()
                and (np.abs(ts + dur) < TIME_MAX_US).all()):   # rules.usable_*; False on NaN
            return False
        if int in types and \
                (max(float(np.abs(ts).max()), float(dur.max())) >= _EXACT_US
                 or float(dur.max()) >= _EXACT_PS_US):
            return False   # integer times float64 would round: rules.ns, event by event
        nm = self._ids(self.name_ix, names_, "(unnamed)")
        ct = self._ids(self.cat_ix, cats_, "uncategorized")
        th = list(map(self.thread_ix.get, zip(pids, tids)))
        if None in th:
            th = [t if t is not None else self._thread(*k) for t, k in zip(th, zip(pids, tids))]
        base = self.count
        args = v.args()
        if self.records:
            self._args(args, base)
        if any(args):
            self._collectives(v, args)
        if PYTHON_LINE in cats_:
            self.lines.feed(v.xs, cats_)
        start = to_ns_exact(ts)
        span = to_ns_exact(dur)
        ordinal = np.array(xk, dtype=ordinal_type(self.index + max(xk))) + self.index
        psf = np.rint(np.where(dur < DUR_MAX_US, dur, 0.0) * 1_000_000)
        fits = psf < 2.0 ** 63
        ps = np.where(fits, psf, 0.0).astype(np.int64)
        odd = (ps != span * 1000) & (dur < DUR_MAX_US) & fits
        if odd.any():   # digits below the nanosecond: the picoseconds kept apart
            self.exact[0].frombytes(ordinal[odd].astype(np.int64).tobytes())
            self.exact[1].frombytes(ps[odd].tobytes())
        self._add_rows(th, nm, ct, start, start + span, ordinal)
        self.t0 = min(self.t0, float(ts.min()))
        self.t1 = max(self.t1, float((ts + dur).max()))
        self.timed_threads.update(th)
        return True

    def _collectives(self, v, args):
        for k, a in enumerate(args):
            if a and _is_collective(a):
                ev = v.xs[k]
                self.collectives.append((self.index + v.x_pos[k], _key(ev.get("pid")),
                                         ev.get("name"), ev.get("ts"), ev.get("dur"), a))

    def _add_rows(self, th, nm, ct, start, end, ordinal):
        """One batch's slices appended to the columns (``th``, ``nm``, ``ct``: lists of
        ids; ``start``, ``end``, ``ordinal``: numpy arrays)."""
        cols = self.rows
        cols[0].fromlist(th)
        cols[1].fromlist(nm)
        cols[2].fromlist(ct)
        cols[3].frombytes(start.tobytes())
        cols[4].frombytes(end.tobytes())
        if cols[5].typecode != "q" and ordinal.dtype != np.int32:   # beyond 2^31 events
            cols[5] = array("q", cols[5])
        cols[5].frombytes(ordinal.astype(np.int64 if cols[5].typecode == "q" else np.int32,
                                         copy=False).tobytes())
        self.count += len(start)

    def _add_deps(self, rows, lens, flat):
        """Dependency records (int64 arrays: their slices' rows, lengths, items); with
        ``records="times"`` only their first two items (push, ready) and no lengths (a
        third fewer bytes kept while the file is read)."""
        if self.records == "times":
            if len(lens) and (lens != 2).any():
                head = np.zeros(len(lens), dtype=np.int64)
                np.cumsum(lens[:-1], out=head[1:])
                flat = flat[(head[:, None] + np.arange(2)).reshape(-1)]
            self.deps[0].frombytes(rows.tobytes())
            self.deps[2].frombytes(flat.tobytes())
            return
        for col, values in zip(self.deps, (rows, lens, flat)):
            col.frombytes(values.tobytes())

    def _args(self, args, base):
        """The dependency records and sync points among the ``X`` events' ``args``
        (rows from ``base``). The common batch, every event an engine op with its
        record, is read in a few C-level passes; any other in one loop."""
        if None not in args:
            try:   # one C-level walk when every op carries its record
                deps = list(map(_DEP, args))
            except KeyError:
                deps = [a.get("dep") for a in args]
            if set(map(type, deps)) == {list}:
                lens = list(map(len, deps))
                if min(lens) >= 3:
                    self._add_deps(np.arange(base, base + len(deps), dtype=np.int64),
                                   np.array(lens, dtype=np.int64),
                                   np.array(list(chain.from_iterable(deps)), dtype=np.int64))
                    return
        if not any(args):   # (a C-level test: most slices of most traces have no args)
            return
        with_args = [(i, a) for i, a in enumerate(args) if a]
        deps = [(i, a.get("dep")) for i, a in with_args]
        deps = [(i, d) for i, d in deps if type(d) is list and len(d) >= 3]
        if deps:
            rows, lists = zip(*deps)
            flat = np.array(list(chain.from_iterable(lists)), dtype=np.int64)
            self._add_deps(np.array(rows, dtype=np.int64) + base,
                           np.array(list(map(len, lists)), dtype=np.int64), flat)
        if len(deps) < len(with_args) and self.records is True:
            for i, a in with_args:
                if a.get("dep") is None and a.get("wait") is not None:
                    self.syncs.append((base + i, a["wait"], False))

    def _feed_careful(self, batch, items=None):
        """Event by event, skipping what is malformed; ``items``: the ``(position,
        event)`` pairs to read (default: every event of the batch)."""
        th, nm, ct, ts_, du_, od = [], [], [], [], [], []   # ts_, du_: start, end in ns
        names, cats = self.name_ix, self.cat_ix
        thread = self._thread
        syncs = self.syncs
        d_rows, d_lens, d_flat = [], [], []
        base = self.count
        index = self.index
        self.index += len(batch)
        last_pid = last_tid = _NOTHING   # (a pid or tid may be None)
        last_ix = None
        flows, pairs, counters = [], [], []   # to links.py and counters.py after the loop
        lines = []   # Python-line samples
        for k, ev in (enumerate(batch) if items is None else items):
            if type(ev) is not dict:
                continue
            get = ev.get
            ph = get("ph")
            if ph == "X":
                ts, dur = get("ts"), get("dur")
                cat = get("cat")
                if cat == PYTHON_LINE:
                    lines.append(ev)
                args = get("args")
                if args and _is_collective(args):
                    self.collectives.append((index + k, _key(get("pid")), get("name"), ts,
                                             dur, args))
                if not (_num(ts) and usable_dur(dur) and _num(ts + dur)):   # its end too
                    if usable_dur(dur) and dur < DUR_MAX_US:   # a duration, no place
                        self.unplaced.append((index + k, cat, get("name"), dur,
                                              _key(get("pid"))))
                    continue
                name = get("name")
                n = names.get(name) if type(name) is str else None
                if n is None:
                    n = self._intern(names, name if type(name) is str else "(unnamed)")
                c = cats.get(cat) if type(cat) is str else None
                if c is None:
                    c = self._intern(cats, cat if type(cat) is str else "uncategorized")
                pid, tid = get("pid"), get("tid")
                if tid is not last_tid or pid is not last_pid:
                    last_pid, last_tid, last_ix = pid, tid, thread(pid, tid)
                th.append(last_ix)
                nm.append(n)
                ct.append(c)
                t0 = ns(ts)   # exact for integer times (rules.ns), as xprof stats reads them
                ts_.append(t0)
                span = ns(dur)
                du_.append(t0 + span)
                od.append(index + k)
                if dur < DUR_MAX_US:
                    ps = round(dur * 1_000_000)
                    if ps != span * 1000 and ps < 2 ** 63:
                        self.exact[0].append(index + k)
                        self.exact[1].append(ps)
                if args and self.records and type(args) is dict:
                    dep = args.get("dep")
                    if dep is not None:
                        if type(dep) is list and len(dep) >= 3 and _ints(dep):
                            d_rows.append(base + len(ts_) - 1)
                            d_lens.append(len(dep))
                            d_flat.extend(dep)
                        else:   # validate reports it; here it is left out, counted
                            self.tl.skipped_deps += 1
                    elif self.records is True:
                        wait = args.get("wait")
                        if wait is not None:
                            syncs.append((base + len(ts_) - 1, wait, False))
            elif ph == "B" or ph == "E":
                self._pair(ev, ph, index + k, th, nm, ct, ts_, du_, od)
            elif ph == "C":
                counters.append(ev)
            elif ph == "b" or ph == "e":
                pairs.append((k, ev))
            elif ph == "i" and self.records is True:   # a sync point: at the end of the wait
                args, ts = get("args"), get("ts")
                if type(args) is dict and "wait" in args and _num(ts):
                    waited = args.get("waited")
                    waited = waited if type(waited) is int and 0 <= waited < _INT_LIMIT else 0
                    name, cat = get("name"), get("cat")
                    th.append(thread(get("pid"), get("tid")))
                    nm.append(self._intern(names, name if type(name) is str else "(unnamed)"))
                    ct.append(self._intern(cats, cat if type(cat) is str else "uncategorized"))
                    t1 = ns(ts)
                    ts_.append(t1 - waited)
                    du_.append(t1)
                    od.append(index + k)
                    syncs.append((base + len(ts_) - 1, args["wait"], True))
            elif ph == "M":
                self._metadata(ev)
            elif type(ph) is str and ph in FLOW_PHASES:   # (a ph may be any JSON value)
                flows.append((k, ev))
        if flows or pairs:
            self.links.feed(flows, pairs, index)
        if counters:
            self.counters.feed(counters)
        if lines:
            self.lines.feed(lines, [PYTHON_LINE] * len(lines))
        if ts_:
            self._add_rows(th, nm, ct, np.array(ts_, dtype=np.int64),
                           np.array(du_, dtype=np.int64),
                           np.array(od, dtype=ordinal_type(self.index, -1 - self.index)))
        if d_rows:
            try:
                flat = np.array(d_flat, dtype=np.int64)
            except (TypeError, ValueError, OverflowError):   # not all integers
                flat = np.array([v if type(v) is int and -2**62 < v < 2**62 else 0
                                 for v in d_flat], dtype=np.int64)
            self._add_deps(np.array(d_rows, dtype=np.int64), np.array(d_lens, dtype=np.int64),
                           flat)

    def _metadata(self, ev):
        """Thread names, process names and labels (``M`` events)."""
        name, args = ev.get("name"), ev.get("args")
        if type(args) is not dict:
            return
        if name == "thread_name":
            if type(args.get("name")) is str:
                self.thread_names[(_key(ev.get("pid")), _key(ev.get("tid")))] = args["name"]
        elif name == "process_name":
            if type(args.get("name")) is str:
                self.process_names[_key(ev.get("pid"))] = args["name"]
        elif name == "process_labels":
            if type(args.get("labels")) is str:
                self.process_labels[_key(ev.get("pid"))] = args["labels"]

    def _pair(self, ev, ph, ordinal, th, nm, ct, ts_, du_, od):
        """A ``B`` opens a slice, an ``E`` closes its thread's last open one (rules.py):
        the slice runs from the B's ns to the E's."""
        ts = ev.get("ts")
        if not _num(ts):
            return
        t = self._thread(ev.get("pid"), ev.get("tid"))
        if ph == "B":
            name, cat = ev.get("name"), ev.get("cat")
            self.open.begin(t, (ts, name if type(name) is str else "(unnamed)",
                                cat if type(cat) is str else "uncategorized", ordinal))
            return
        begun = self.open.end(t)
        if begun is not None:
            t0, name, cat, first = begun
            if ts >= t0:
                th.append(t)
                nm.append(self._intern(self.name_ix, name))
                ct.append(self._intern(self.cat_ix, cat))
                start, end = ns(t0), ns(ts)
                ts_.append(start)
                du_.append(end)
                od.append(-1 - first)
                if ts - t0 < DUR_MAX_US:
                    ps = round((ts - t0) * 1_000_000)
                    if ps != (end - start) * 1000 and ps < 2 ** 63:
                        self.exact[0].append(-1 - first)
                        self.exact[1].append(ps)

    def finish(self):
        tl = self._finish()
        # let go of the Trace (the links hold a method of the builder: a reference cycle
        # that would keep it until the next collection)
        self.tl = self.links = None
        return tl

    def _finish(self):
        tl = self.tl
        tl.events = self.index
        self._tables(tl)
        by_ix = {v: k for k, v in self.thread_ix.items()}
        tl.threads = [(by_ix[i][0], by_ix[i][1], self.thread_names.get(by_ix[i]))
                      for i in range(len(by_ix))]
        self.links.finish_pairs(tl, self.thread_ix, tl.pids)
        tl.names = table(self.name_ix)
        tl.cats = table(self.cat_ix)
        self.name_ix = {}   # done with; its room goes to the sort below (a name per row)
        if not self.count:
            self.links.finish_flows(tl, self.thread_ix)
            return tl
        # each column sorted and its unsorted copy let go before the next: a load's peak
        # is here, the columns, the sort order and one sorted copy
        thread, start, end = self._joined(0), self._joined(3), self._joined(4)
        order = np.lexsort((start - end, start, thread))   # thread, start, longer first
        lines = self.cat_ix.get(PYTHON_LINE)
        keep = cat = None
        if lines is not None:   # Python-line samples: no slices of the timeline
            cat = self._joined(2)
            keep = cat[order] != lines
            if keep.all():
                keep = None
            else:   # kept apart: the line_* columns
                line_order, order = order[~keep], order[keep]
                tl.line_thread, tl.line_start = thread[line_order], start[line_order]
                tl.line_end = end[line_order]
                tl.line_name = self._column(1)[line_order]
                tl.line_ordinal = self._column(5)[line_order]
                line_order = None
        # rows of the file's order -> sorted rows: only the dependency records and sync
        # points (rows counted in file order) need it
        rank = None
        if len(self.deps[0]) or self.syncs:
            rank = np.empty_like(order) if keep is None else np.full(self.count, -1, np.int64)
            rank[order] = np.arange(len(order))
        keep = None
        # ``thread`` stays until the dependency records are read (their rows are in file
        # order)
        tl.thread = thread[order]
        if rank is None:
            thread = None
        tl.start, start = start[order], None
        tl.end, end = end[order], None
        tl.name = self._joined(1)[order]
        tl.cat, cat = (cat if cat is not None else self._joined(2))[order], None
        tl.ordinal = self._joined(5)[order]
        order = None
        self._dependencies(tl, rank, thread)
        self._syncs(tl, rank)
        rank = thread = None
        # after the dependency records, whose columns are a load's peak
        self.links.finish_flows(tl, self.thread_ix)
        if self.keys is not None:
            tl.layer, tl.shape = self._keys(tl.ordinal)
        return tl

    def _tables(self, tl):
        """The tables beside the slices: counters, processes, Python-line samples,
        collectives, durations without a place, picoseconds kept, the extent."""
        self.counters.finish(tl)
        self.counters = None
        tl.pids = list(self.pids)
        tl.process_names = self.process_names
        tl.process_labels = self.process_labels
        tl.python_lines = self.lines
        tl.named_threads = self.thread_names
        tl.collectives = self.collectives
        tl.unplaced = self.unplaced
        if len(self.exact[0]):
            ords = np.frombuffer(self.exact[0], dtype=np.int64)
            order = np.argsort(ords, kind="stable")
            tl.ps_ordinal = ords[order]
            tl.ps_value = np.frombuffer(self.exact[1], dtype=np.int64)[order]
        self.exact = None
        by_ix = {v: k for k, v in self.thread_ix.items()}
        keys = self.timed_keys | {by_ix[i] for i in self.timed_threads}
        tl.extent = (self.t0, self.t1, keys)
        if self.keys is not None:
            tl.layer = tl.shape = np.zeros(0, dtype=np.int32)   # (no slice: none)
            keys = self.keys
            keys.finish()
            tl.layers, tl.shape_labels = keys.layers, keys.shape_labels
            if self.unplaced:
                layer, shape = self._keys(np.array([u[0] for u in self.unplaced]))
                tl.unplaced = [u + (tl.layers[a] if a >= 0 else None,
                                    tl.shape_labels[s] if s >= 0 else None)
                               for u, a, s in zip(self.unplaced, layer.tolist(), shape.tolist())]

    def _keys(self, ordinal):
        """``(layer ids, shape ids)`` (int32, -1: none) of slices by their ordinals (a
        ``B``/``E`` slice's is its ``B``'s)."""
        layer, shape = self.keys.of_slices(np.where(ordinal < 0, -1 - ordinal.astype(np.int64),
                                                    ordinal))
        return layer.astype(np.int32), shape.astype(np.int32)

    def _column(self, j):
        """Column ``j`` of every slice (file order), a numpy view of its buffer."""
        col = self.rows[j]
        return np.frombuffer(col, dtype=np.int64 if col.typecode == "q" else np.int32)

    def _joined(self, j):
        """Column ``j`` of every slice (file order) as a numpy array over the column's
        buffer (no copy), the builder's reference let go."""
        col = self.rows[j]
        self.rows[j] = None
        return np.frombuffer(col, dtype=np.int64 if col.typecode == "q" else np.int32)

    def _dependencies(self, tl, rank, thread):
        if not len(self.deps[0]):
            return
        if self.records == "times":
            self._times(tl, rank)
            return
        # numpy views of the columns (no copy); each array let go once read: a 1M-op
        # trace's records are a load's peak
        rows, lens, flat = (np.frombuffer(col, dtype=np.int64) for col in self.deps)
        self.deps = None
        head = np.zeros(len(lens) + 1, dtype=np.int64)
        np.cumsum(lens, out=head[1:])
        head = head[:-1]   # each record's first item
        p, q, t = flat[head], flat[head + 1], flat[head + 2]
        ok = (q >= 0) & (q <= p)
        # the pushing thread: tid t in the pid of the op's own slice, as a thread index
        pid_of_thread = [key[0] for key, _ in sorted(self.thread_ix.items(), key=lambda kv: kv[1])]
        tids, t_ix = np.unique(t, return_inverse=True)      # 1-D uniques: fast
        t = None
        pair = thread[rows].astype(np.int64) * len(tids) + t_ix.reshape(-1)
        t_ix = None
        pairs, inverse = np.unique(pair, return_inverse=True)
        pair = None
        found = np.array([self._thread(pid_of_thread[k // len(tids)], int(tids[k % len(tids)]))
                          for k in pairs.tolist()], dtype=np.int64)
        pusher = found[inverse.reshape(-1)]
        inverse = None
        if len(self.thread_ix) > len(tl.threads):   # a pusher that recorded no slice
            by_ix = {v: k for k, v in self.thread_ix.items()}
            tl.threads += [(by_ix[i][0], by_ix[i][1], self.thread_names.get(by_ix[i]))
                           for i in range(len(tl.threads), len(by_ix))]
        # variables: everything after the first three items, zeros dropped
        is_var = flat != 0
        for j in range(3):
            is_var[head + j] = False
        if (rank < 0).any():   # Python-line samples left out
            ok &= rank[rows] >= 0
        keep_rec = np.flatnonzero(ok)
        if len(keep_rec) < len(lens):   # variables of records left out: none
            is_var &= np.repeat(ok, lens)
        counts = np.add.reduceat(is_var, head, dtype=np.int64)   # >= 3 items each
        variables = flat[is_var]
        flat = is_var = lens = head = None
        r = rank[rows[keep_rec]]
        rows = None
        order = np.argsort(r, kind="stable")
        sel = keep_rec[order]
        tl.dep_slice = r[order]
        r = order = keep_rec = None
        start = tl.start[tl.dep_slice]
        tl.dep_push = start - p[sel]
        tl.dep_ready = start - q[sel]
        tl.dep_pusher = pusher[sel]
        start = p = q = pusher = None
        tl.dep_vars, tl.dep_var_start = csr(counts, variables, sel)

    def _times(self, tl, rank):
        """The dependency records of a ``records="times"`` load: ``dep_slice``,
        ``dep_push``, ``dep_ready`` only (``xprof stats``' ``Operator Latency``; no
        pusher, no variables: those columns stay empty), each temporary let go once
        read."""
        rows = np.frombuffer(self.deps[0], dtype=np.int64)
        flat = np.frombuffer(self.deps[2], dtype=np.int64)
        self.deps = None
        p, q = flat[0::2], flat[1::2]   # views: pushed p, ready q ns before the start
        ok = (q >= 0) & (q <= p)
        if (rank < 0).any():   # Python-line samples left out
            ok &= rank[rows] >= 0
        keep = np.flatnonzero(ok) if not ok.all() else None
        ok = None
        r = rank[rows] if keep is None else rank[rows[keep]]
        rows = None
        order = np.argsort(r, kind="stable")
        tl.dep_slice = r[order]
        r = None
        sel = order if keep is None else keep[order]
        order = keep = None
        start = tl.start[tl.dep_slice]
        tl.dep_push = start - p[sel]
        tl.dep_ready = start - q[sel]

    def _syncs(self, tl, rank):
        rows, every, counts, flat = [], [], [], []
        instants = [int(rank[row]) for row, _, instant in self.syncs if instant]
        if instants:
            tl.instant_slice = np.sort(np.array(instants, dtype=np.int64))
        for row, wait, _ in self.syncs:
            if wait == "all":
                rows.append(int(rank[row]))
                every.append(True)
                counts.append(0)
            elif type(wait) is list:
                vs = [v for v in wait if type(v) is int and 0 < v < _INT_LIMIT]
                rows.append(int(rank[row]))
                every.append(False)
                counts.append(len(vs))
                flat.extend(vs)
        self.syncs = []
        if not rows:
            return
        order = np.argsort(np.array(rows, dtype=np.int64), kind="stable")
        tl.sync_slice = np.array(rows, dtype=np.int64)[order]
        tl.sync_all = np.array(every, dtype=bool)[order]
        tl.sync_vars, tl.sync_var_start = csr(counts, flat, order)
