"""One read model of a trace file: :class:`Trace`, columns built in one pass.

Why one model: ``xprof explain``, ``report``, ``diff`` and the ``xprof run`` summary read
the same events; each building its own view of them meant several copies of the same
columns and of the rules that make them (issue #25). A :class:`Trace` is built once,
while the file's batches are decoded, with the per-event rules of :mod:`.rules`, and
queried by the commands; nothing per event survives as a Python object, so a
million-op trace is walked in seconds and well under a gigabyte. ``xprof stats`` is a
query on it too, so it is built within the streaming statistics' memory: columns grown
in place (``array.array``, no chunk per batch to join), 4 to 8 bytes a value, parts
only some readers need (nesting) made on first use, and parts a reader never reads
(dependency records, flow steps) left out by its ``Builder``'s options.

What it holds (the encoding is the runtime's, see docs/dependencies.md):

* every complete slice: ``X`` events (start and end usable times, :mod:`.rules`), and
  ``B``/``E`` pairs folded per thread (MXNet);
  times in integer nanoseconds (:func:`.rules.ns`: one rounding, integers exact);
  name and category ids; the thread (its process and thread keys, :func:`.rules.thread_key`);
* nesting, as Perfetto's ``slice`` table has it: per slice its ``parent`` (row, or -1)
  and ``depth`` (:mod:`.slices`' rules), computed once, when a reader first asks;
* ``args.dep = [p, q, t, v...]`` on an engine op's slice: pushed ``p`` ns and made ready
  ``q`` ns before it started, pushed by thread ``t`` (same pid), variables read (``v``)
  and written (``-v``);
* ``args.wait`` on a sync point's slice (``WaitForVar``/``WaitForAll``): the variables
  it waited for, or ``"all"``;
* flows, bound once: every ``s``/``t``/``f`` step with the slice it binds to by
  :mod:`.slices`' rules (``flow_*``; a marked copy numbers its own arrows above them);
* async ``b``/``e`` pairs, paired once by :func:`.rules.async_key` (``async_*``), and from
  the same pairing the custom-op calls' breakdown (``call_stats``, :mod:`.callstats`:
  the pairs whose ``b`` carries a call's split);
* thread names (``thread_name`` metadata);
* ``otherData.settings``: the engine settings the run used (``xprof run`` records them;
  a finding proposes changing one only knowing its value), and the file's top-level keys.

Python-line samples (category ``python_line``, docs/lines.md) are no work slices: they
are left out of the columns (the collectors that read them are fed the batches).
"""
from __future__ import annotations

import gc
from array import array
from itertools import chain
from operator import itemgetter

import numpy as np

from . import callstats, slices
from .batch import Batch, view
from .columns import I32, csr, ordinal_type, table
from .names import PYTHON_LINE
from .links import LINK_PHASES, Links
from .rules import OpenSlices, TIME_MAX_US, id_key as _key, ns, to_ns_exact, usable_dur, \
    usable_time as _num
from .tracefile import TraceReader

_EMPTY_I64 = np.zeros(0, dtype=np.int64)
_DEP = itemgetter("dep")


_EXACT_US = 2 ** 53 / 1000   # an integer time (us) beyond it is inexact as float64 ns
_INT_LIMIT = 2 ** 62   # dependency record items beyond it are no xprof record (int64 math)


def _ints(items):
    """Every item an integer within +-2^62 (what a dependency record holds)."""
    for v in items:
        if type(v) is not int or not -_INT_LIMIT < v < _INT_LIMIT:
            return False
    return True


class Trace:
    """Columns of one trace (plain data; build it with :meth:`load`, :func:`from_events`
    or a :class:`Builder` fed by another pass).

    Slices (one row each, sorted by thread, then start, longer first at equal starts):
      ``thread`` (index into ``threads``), ``name``/``cat`` (indices into ``names``/
      ``cats``), ``start``/``end`` (int ns), ``ordinal`` (the event's index in the file;
      ``-1 - i`` for a folded ``B``/``E`` pair whose ``B`` is event ``i``), ``parent``
      (the row of the innermost slice of its thread it starts inside, -1 at top level)
      and ``depth`` (0 at top level).
    Dependency records (``dep_*``, one row per slice carrying ``args.dep``, same order):
      ``dep_slice`` (row of its slice), ``dep_push``/``dep_ready`` (int ns),
      ``dep_pusher`` (thread index), ``dep_vars``/``dep_var_start`` (CSR: the variables of
      record i are ``dep_vars[dep_var_start[i]:dep_var_start[i + 1]]``, > 0 read, < 0
      written).
    Sync points (``sync_*``): ``sync_slice``, ``sync_all`` (bool), ``sync_vars``/
    ``sync_var_start`` (CSR of the variables waited for); ``instant_slice``: the rows of
    the slices made of a sync point's instant (an ``i`` at the end of the wait, its
    ``waited`` before it): no slice of the file to a statistics reader.
    Flow steps (``flow_*``, one row per ``s``/``t``/``f`` event, by flow then file order):
      ``flow_id`` (the id: an integer in [0, 2^62), else ``-1 - k`` for
      ``flow_other_ids[k]``, the id as :func:`.rules.id_key` keys it; ``flow_key(i)``),
      ``flow_phase`` (``links.FLOW_PHASES``: 0 ``s``, 1 ``t``, 2 ``f``), ``flow_thread``,
      ``flow_ts`` (int ns), ``flow_slice`` (the row of the slice it binds to, -1: none),
      ``flow_ordinal``; ``max_flow_id``: the largest integer flow id (0 without).
    Async pairs (``async_*``, one row per ``b`` closed by its ``e``, by start): ``async_name``/
      ``async_cat``, ``async_thread`` (the ``b``'s), ``async_start``/``async_end`` (int ns),
      ``async_ordinal`` (the ``b``'s index in the file), ``async_call`` (True: a custom-op
      call span, counted in ``call_stats``).
    ``threads``: ``[(pid, tid, name)]``;
    ``settings``: ``otherData.settings`` of the file ({setting: value}, empty if none);
    ``top``: the file's other top-level keys.
    """

    @classmethod
    def load(cls, path, on_batch=None, collectors=()):
        """The :class:`Trace` of the file at ``path`` (see :func:`load`; the reader dropped)."""
        return load(path, on_batch, collectors)[0]

    def __init__(self):
        self.threads = []
        self.names = []
        self.cats = []
        self.thread = self.name = self.cat = np.zeros(0, dtype=np.int32)
        self.start = self.end = self.ordinal = _EMPTY_I64
        self.dep_slice = self.dep_push = self.dep_ready = self.dep_pusher = _EMPTY_I64
        self.dep_vars = _EMPTY_I64
        self.dep_var_start = np.zeros(1, dtype=np.int64)
        self.sync_slice = self.sync_vars = _EMPTY_I64
        self.sync_all = np.zeros(0, dtype=bool)
        self.sync_var_start = np.zeros(1, dtype=np.int64)
        self.instant_slice = _EMPTY_I64
        self.flow_thread = np.zeros(0, dtype=np.int32)
        self.flow_phase = np.zeros(0, dtype=np.int8)
        self.flow_id = self.flow_ts = self.flow_slice = self.flow_ordinal = _EMPTY_I64
        self.flow_other_ids = []
        self.async_name = self.async_cat = self.async_thread = np.zeros(0, dtype=np.int32)
        self.async_start = self.async_end = self.async_ordinal = _EMPTY_I64
        self.async_call = np.zeros(0, dtype=bool)
        self.call_stats = callstats.CallStats()
        # "all"; "calls": a load for a reader that binds only the custom-op calls'
        # pairs and keeps only max_flow_id of the flows (Builder(links="calls")); "spans":
        # only the calls' pairs, no flow step read (max_flow_id None: xprof stats)
        self.links_bound = "all"
        # False: a load that read no dependency records nor sync points (Builder(records=))
        self.records_read = True
        self._max_flow_id = None
        self.events = 0
        self.skipped_deps = 0   # dependency records that were not integer lists (skipped)
        self.settings = {}
        self.top = {}
        self._nesting = None   # (parent, depth, overlapping), on first use
        # set by readers that collect them in the same pass (cli/analysis/timeline.py): the
        # Python-line samples' tables
        self.python_lines = None

    # Nesting is computed once, when a reader first asks (flow binding, a query by
    # parent or depth): explain, diff and the report never do, and on a thread whose
    # slices overlap their parents' ends it is a Python walk (0.34 s of a 1M-op explain)
    @property
    def parent(self):
        """Per slice, the row of the slice it starts inside, or -1 (int32)."""
        return self._nested()[0]

    @property
    def depth(self):
        """Per slice, its nesting depth, 0 at top level (int32)."""
        return self._nested()[1]

    @property
    def overlapping(self):
        """Per slice, True when it ends after its parent (it parents nobody)."""
        return self._nested()[2]

    def _nested(self):
        if self._nesting is None:
            self._nesting = slices.nesting(self.thread, self.start, self.end)
        return self._nesting

    @property
    def max_flow_id(self):
        if self.links_bound == "spans":   # a load that read no flow step
            return None
        if self._max_flow_id is not None:   # a load that bound only the calls
            return self._max_flow_id
        big = [i for i in self.flow_other_ids if type(i) is int]   # beyond 2^62, negative
        return max([int(self.flow_id.max()) if len(self.flow_id) else 0, 0] + big)

    @max_flow_id.setter
    def max_flow_id(self, value):
        self._max_flow_id = value

    def flow_key(self, i):
        """The id of flow step ``i`` as the file has it (:func:`.rules.id_key`'s key)."""
        ident = int(self.flow_id[i])
        return ident if ident >= 0 else self.flow_other_ids[-1 - ident]

    @property
    def call_span(self):
        """``(first, last)`` ns of the custom-op call spans, or None without any."""
        if not self.async_call.any():
            return None
        return (int(self.async_start[self.async_call].min()),
                int(self.async_end[self.async_call].max()))

    @property
    def has_dependencies(self):
        return len(self.dep_slice) > 0

    def thread_name(self, i):
        pid, tid, name = self.threads[i]
        return name if name else f"thread {tid}" + (f" (pid {pid})" if pid not in (0, None) else "")


class Builder:
    """Collects rows batch by batch into growing columns: :meth:`feed` each batch of
    decoded events, then :meth:`finish` for the :class:`Trace`. Public so that a
    caller already streaming the file (``xprof report``'s statistics pass) builds the
    trace from the same batches instead of reading the file again. ``collectors`` (each
    with ``feed(batch)``) are fed every batch first: readers of events the columns leave
    out (Python-line samples, call spans). ``links``: see :class:`Trace`;
    ``records=False`` leaves out the dependency records and sync points (their
    instants make no slices then): a reader of slices alone (``xprof stats``)."""

    def __init__(self, collectors=(), links="all", records=True):
        self.tl = Trace()
        self.collectors = tuple(collectors)
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
        # flow steps, async pairs (links="calls": only what the readers read, see Trace)
        self.links = Links(self._label_ids, only_calls=links != "all")
        self.link_mode = links
        # the phases of the events the careful path reads among a batch's non-X ones
        self.phases = frozenset("BEM" + "i" * records + "be" + "stf" * (links != "spans"))
        # records=False: no dependency records nor sync points (``xprof stats`` reads
        # neither; a 1M-op trace's records are several times its slice columns)
        self.records = self.tl.records_read = records
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

    def _label_ids(self, name, cat):
        return self._intern(self.name_ix, name), self._intern(self.cat_ix, cat)

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
        if v is not None and v.names is not None and not self.name_ix and not self.index:
            self.name_ix = v.names   # numbered with the pass's other collectors
        for collector in self.collectors:
            collector.feed(batch)
        try:
            done = v is not None and self._feed_columns(v)
        except (AttributeError, TypeError, ValueError, KeyError, OverflowError):
            done = False
        if not done:
            self._feed_careful(batch)
            return
        if len(v.x_pos) < len(batch):   # metadata, links, B/E pairs: one by one
            wanted = self.phases
            try:
                items = [(k, batch[k]) for k, ph in enumerate(v.phs) if ph in wanted]
            except TypeError:   # an unhashable ph: every event to the careful path
                items = zip(v.other_pos(), v.others())
            self._feed_careful(batch, items)
        else:
            self.index += len(batch)

    def _feed_columns(self, v):
        """The ``X`` events of a batch view; False (nothing added) if one is not well
        formed (the careful path then judges each event)."""
        xk = v.x_pos
        if not xk:
            return True
        ts_raw, dur_raw, cats_, names_, pids, tids = v.fields()
        ts = np.array(ts_raw, dtype=np.float64)
        dur = np.array(dur_raw, dtype=np.float64)
        if not ((dur >= 0).all() and (dur < TIME_MAX_US).all()
                and (np.abs(ts) < TIME_MAX_US).all()
                and (np.abs(ts + dur) < TIME_MAX_US).all()):   # rules.usable_*; False on NaN
            return False
        if max(float(np.abs(ts).max()), float(dur.max())) >= _EXACT_US \
                and int in set(map(type, ts_raw)) | set(map(type, dur_raw)):
            return False   # integer times float64 would round: rules.ns, event by event
        names, cats = self.name_ix, self.cat_ix
        nm = list(map(names.get, names_))
        if None in nm:
            nm = [n if n is not None else self._intern(names, x if type(x) is str else "(unnamed)")
                  for n, x in zip(nm, names_)]
        ct = list(map(cats.get, cats_))
        if None in ct:
            ct = [c if c is not None else self._intern(cats, x if type(x) is str else "uncategorized")
                  for c, x in zip(ct, cats_)]
        th = list(map(self.thread_ix.get, zip(pids, tids)))
        if None in th:
            th = [t if t is not None else self._thread(*k) for t, k in zip(th, zip(pids, tids))]
        base = self.count
        if self.records:
            self._args(v.args(), base)
        start = to_ns_exact(ts)
        self._add_rows(th, nm, ct, start, start + to_ns_exact(dur),
                       np.array(xk, dtype=ordinal_type(self.index + max(xk))) + self.index)
        return True

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
        """Dependency records (int64 arrays: their slices' rows, lengths, items)."""
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
        with_args = [(i, a) for i, a in enumerate(args) if a]
        if not with_args:
            return
        deps = [(i, a.get("dep")) for i, a in with_args]
        deps = [(i, d) for i, d in deps if type(d) is list and len(d) >= 3]
        if deps:
            rows, lists = zip(*deps)
            flat = np.array(list(chain.from_iterable(lists)), dtype=np.int64)
            self._add_deps(np.array(rows, dtype=np.int64) + base,
                           np.array(list(map(len, lists)), dtype=np.int64), flat)
        if len(deps) < len(with_args):
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
        last_pid = last_tid = last_ix = None
        links = []   # flow steps and async events: traces/links.py, after the loop
        for k, ev in (enumerate(batch) if items is None else items):
            if type(ev) is not dict:
                continue
            get = ev.get
            ph = get("ph")
            if ph == "X":
                ts, dur = get("ts"), get("dur")
                if not (_num(ts) and usable_dur(dur) and _num(ts + dur)):   # its end too
                    continue
                name = get("name")
                n = names.get(name) if type(name) is str else None
                if n is None:
                    n = self._intern(names, name if type(name) is str else "(unnamed)")
                cat = get("cat")
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
                du_.append(t0 + ns(dur))
                od.append(index + k)
                args = get("args")
                if args and self.records:
                    dep = args.get("dep")
                    if dep is not None:
                        if type(dep) is list and len(dep) >= 3 and _ints(dep):
                            d_rows.append(base + len(ts_) - 1)
                            d_lens.append(len(dep))
                            d_flat.extend(dep)
                        else:   # validate reports it; here it is left out, counted
                            self.tl.skipped_deps += 1
                    else:
                        wait = args.get("wait")
                        if wait is not None:
                            syncs.append((base + len(ts_) - 1, wait, False))
            elif ph == "B" or ph == "E":
                self._pair(ev, ph, index + k, th, nm, ct, ts_, du_, od)
            elif ph == "i" and self.records:   # a sync point: an instant at the end of the wait
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
                if get("name") == "thread_name":
                    args = get("args")
                    if type(args) is dict and type(args.get("name")) is str:
                        self.thread_names[(_key(get("pid")), _key(get("tid")))] = args["name"]
            elif type(ph) is str and ph in LINK_PHASES:   # (a ph may be any JSON value)
                links.append((k, ev))
        if links:
            self.links.feed(links, index)
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
                ts_.append(ns(t0))
                du_.append(ns(ts))
                od.append(-1 - first)

    def finish(self):
        tl = self._finish()
        # let go of the Trace (the links hold a method of the builder: a reference cycle
        # that would keep it until the next collection)
        self.tl = self.links = None
        if self.link_mode == "spans":
            tl.links_bound = "spans"
        return tl

    def _finish(self):
        tl = self.tl
        tl.events = self.index
        by_ix = {v: k for k, v in self.thread_ix.items()}
        tl.threads = [(by_ix[i][0], by_ix[i][1], self.thread_names.get(by_ix[i]))
                      for i in range(len(by_ix))]
        self.links.finish_pairs(tl, self.thread_ix)
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
            else:
                order = order[keep]
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
        return tl

    def _joined(self, j):
        """Column ``j`` of every slice (file order) as a numpy array over the column's
        buffer (no copy), the builder's reference let go."""
        col = self.rows[j]
        self.rows[j] = None
        return np.frombuffer(col, dtype=np.int64 if col.typecode == "q" else np.int32)

    def _dependencies(self, tl, rank, thread):
        if not len(self.deps[0]):
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
        keep_rec = np.flatnonzero(ok)
        if len(keep_rec) < len(lens):   # variables of records left out: none
            is_var &= ok[np.repeat(np.arange(len(lens)), lens)]
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


def settings_of(top):
    """``otherData.settings`` of a trace's top-level keys, as a dict (empty if absent)."""
    other = top.get("otherData") if isinstance(top, dict) else None
    found = other.get("settings") if isinstance(other, dict) else None
    return dict(found) if isinstance(found, dict) else {}


def from_events(events, builder=None):
    """A :class:`Trace` of an in-memory list of events (tests, callers with events)."""
    b = builder if builder is not None else Builder()
    b.feed(list(events))
    return b.finish()


def load(path, on_batch=None, collectors=(), builder=None):
    """A :class:`Trace` of the trace file at ``path`` (streamed; raises TraceError).
    Returns ``(trace, reader)``; ``on_batch()`` is called after each batch, and each
    of ``collectors`` is fed each batch's events (``feed(events)``) in the same pass."""
    reader = TraceReader(path)
    b = builder if builder is not None else Builder()
    was = gc.isenabled()
    gc.disable()   # millions of short-lived dicts, no cycles
    try:
        for batch, _ in reader.batches():
            b.feed(Batch(batch))
            for collector in collectors:
                collector.feed(batch)
            if on_batch is not None:
                on_batch()
    finally:
        if was:
            gc.enable()
    tl = b.finish()
    tl.settings = settings_of(reader.top)
    tl.top = reader.top
    return tl, reader
