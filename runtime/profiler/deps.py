"""Dependency records at dump time: what the encoder and ``dumps()`` make of them.

While profiling, every engine op is recorded with its push and ready times, the thread
that pushed it, the ``id()`` of each variable it read and wrote and its slice key (of its
name, and of its input shapes when operators are profiled) (:func:`.records.op_dep`; the
sub-operator and sync-point kinds). Nearly every event of a profile is such a record, so they are read as columns
(:class:`OpTable`), once per buffer prefix and kept on the buffer (as
:func:`.columns.table` keeps plain slices): ``dumps()``, ``dump()`` and continuous dumps
convert each record once, and the encoder writes them in bulk with numpy. Turning them
into the trace's ``args.dep = [p, q, t, v...]`` (docs/dependencies.md) and into the
``Operator Latency`` section happens here, so recording stays a tuple of integers.
"""
from itertools import chain
from operator import itemgetter

import numpy as np

from xprof.traces import latency as _latency
from xprof.traces.depgraph import binding, occurrences

from . import records, recorder as R

OP_DEP, SUB, SYNC, CALL_SPAN = (records.OP_DEP, records.SUB_OPERATOR, records.SYNC,
                                records.CALL_SPAN)
_CALL_START, _CALL_DONE = (records.position(CALL_SPAN, f) for f in ("t_start", "t_done"))
KIND, T = records.KIND, records.T
SUB_T_PUSH = records.position(SUB, "t_push")
SUB_T_READY, SUB_READS, SUB_WRITES = records.SUB_T_READY, records.SUB_READS, records.SUB_WRITES
SYNC_VARS = records.SYNC_VARS
_var_ids = records.var_ids
_KIND_OF = itemgetter(KIND)
_OP = {f: itemgetter(records.position(OP_DEP, f)) for f in records.KINDS[OP_DEP].fields}
_EMPTY = np.zeros(0, dtype=np.int64)


class OpTable:
    """The op records (``OP_DEP``) of an event list as columns, one row per record in
    recorded order: ``at`` (its position in the list), ``key`` (its slice key: name and
    category, or name and input shapes), ``t0``, ``t1``, ``p``/``q`` (ns pushed / ready
    before the start); ``rest``: the positions of the list's other records; ``seen``:
    how many events of the list it has read.

    What only the trace needs is read on first use (:meth:`with_vars`: ``dumps()``
    never needs it): ``pusher`` (-1: the thread itself), ``counts`` (variables per op)
    and, flat, ``ids``/``signs`` (their ``id()``s, +1 read, -1 written; an op's reads,
    then its writes)."""

    TIMES = ("at", "key", "t0", "t1", "p", "q")
    VARS = ("pusher", "counts")
    __slots__ = TIMES + VARS + ("ids", "signs", "rest", "seen", "_ops")

    @classmethod
    def of(cls, events, offset=0):
        """The table of ``events`` (positions counted from ``offset``)."""
        n = len(events)
        t = cls.__new__(cls)
        t.seen = offset + n
        kinds = np.fromiter(map(_KIND_OF, events), np.int64, n)
        is_op = kinds == OP_DEP
        if is_op.all():
            ops, at, t.rest = events, np.arange(n, dtype=np.int64), _EMPTY
        else:
            at = np.flatnonzero(is_op)
            t.rest = np.flatnonzero(~is_op) + offset
            ops = list(map(events.__getitem__, at.tolist()))
        t.at = at + offset
        m = len(ops)
        t.key = np.fromiter(map(_OP["key"], ops), np.int64, m)
        t.t0 = np.fromiter(map(_OP["t0"], ops), np.int64, m)
        t.t1 = np.fromiter(map(_OP["t1"], ops), np.int64, m)
        # not stamped (0/None): pushed and run at once, push and ready are the start
        # (fromiter: np.array of a list of ints costs several times more per item)
        tp = np.fromiter([v or 0 for v in map(_OP["t_push"], ops)], np.int64, m)
        tr = np.fromiter([v or 0 for v in map(_OP["t_ready"], ops)], np.int64, m)
        p = np.where(tp > 0, t.t0 - tp, 0).clip(0)
        t.p, t.q = p, np.minimum(np.where(tr > 0, t.t0 - tr, 0).clip(0), p)
        t._ops = ops
        t.pusher = t.counts = t.ids = t.signs = None
        return t

    def with_vars(self):
        """This table, its pusher and variable columns read (once).

        Reading a Python integer into numpy costs ~250 instructions (``np.fromiter``),
        and ~350 more through ``chain`` (an iterator per tuple): this was most of a
        dump's cost per op. So the common cases take shorter paths, to the same
        columns: no op pushed by another thread (NaiveEngine, the inline policy) is one
        ``list.count``; when every op reads (writes) the same number of variables,
        variable j of each is read by ``itemgetter(j)`` (:func:`_same_arity`)."""
        if self.ids is not None:
            return self
        ops, m = self._ops, len(self.t0)
        pushers = list(map(_OP["pusher"], ops))
        if pushers.count(None) == m:
            self.pusher = np.full(m, -1, dtype=np.int64)
        else:
            self.pusher = np.fromiter([-1 if v is None else v for v in pushers], np.int64, m)
        reads, writes = list(map(_OP["reads"], ops)), list(map(_OP["writes"], ops))
        (nr, r), (nw, w) = _same_arity(reads), _same_arity(writes)
        self.counts = nr + nw
        if r is not None and w is not None:   # rows of reads then writes, as below
            ids = np.concatenate((r, w), axis=1).reshape(-1)
            signs = np.tile(np.repeat(np.array([1, -1], dtype=np.int64),
                                      [r.shape[1], w.shape[1]]), m)
        else:
            total = int(self.counts.sum())
            ids = np.empty(total, dtype=np.int64)
            signs = np.empty(total, dtype=np.int64)
            starts = np.cumsum(self.counts) - self.counts
            for col, count, first, sign in ((reads, nr, starts, 1),
                                            (writes, nw, starts + nr, -1)):
                k = int(count.sum())
                if k:   # variable j of this kind of op i goes to first[i] + j
                    at = np.repeat(first - (np.cumsum(count) - count), count) + np.arange(k)
                    ids[at] = np.fromiter(chain.from_iterable(map(_var_ids, col)),
                                          np.int64, k)
                    signs[at] = sign
        self.ids, self.signs, self._ops = ids, signs, None
        return self

    @classmethod
    def join(cls, tables):
        """One table of ``tables`` in order (their positions as they are)."""
        if len(tables) == 1:
            return tables[0]
        t = cls.__new__(cls)
        for f in cls.TIMES + ("rest",):
            setattr(t, f, np.concatenate([getattr(x, f) for x in tables]))
        t.seen = tables[-1].seen
        t.pusher = t.counts = t.ids = t.signs = t._ops = None
        if any(x.ids is not None for x in tables):
            tables = [x.with_vars() for x in tables]
            for f in cls.VARS + ("ids", "signs"):
                setattr(t, f, np.concatenate([getattr(x, f) for x in tables]))
        elif all(x._ops is not None for x in tables):
            t._ops = [op for x in tables for op in x._ops]
        return t

    def __len__(self):
        return len(self.t0)

    def select(self, keep):
        """The rows where the boolean array ``keep`` is set (with their variables if
        read)."""
        if keep.all():
            return self
        t = OpTable.__new__(OpTable)
        for f in self.TIMES:
            setattr(t, f, getattr(self, f)[keep])
        t.rest, t.seen, t._ops = _EMPTY, self.seen, None
        t.pusher = t.counts = t.ids = t.signs = None
        if self.ids is not None:
            t.pusher, t.counts = self.pusher[keep], self.counts[keep]
            flat = np.repeat(keep, self.counts)
            t.ids, t.signs = self.ids[flat], self.signs[flat]
        return t

    def rows(self):
        """``(key, t0, t1)`` rows, as a buffer's plain slices (:func:`.columns.table`)."""
        return np.stack([self.key, self.t0, self.t1], axis=1)

    def within(self, events, e0, n, base_ns=None):
        """``(table, other records)`` of ``events[e0:n]`` (this table being that of
        ``events``), and only the ops begun at or after ``base_ns`` if given."""
        keep = (self.at >= e0) & (self.at < n)
        if base_ns is not None:
            keep &= self.t0 >= base_ns
        rest = self.rest
        rest = rest[(rest >= e0) & (rest < n)].tolist()
        return self.select(keep), [events[i] for i in rest]


def _same_arity(col):
    """``(lengths, ids)`` of the variable fields ``col`` (``records.var_ids``: one id or
    a tuple): ``ids`` is an (ops, k) matrix when every op has the same count k (a set of
    types, then of lengths, costs half a column of them), else None."""
    m = len(col)
    types = set(map(type, col))
    if types == {int}:   # one variable each: the ids are the column
        return np.ones(m, dtype=np.int64), np.fromiter(col, np.int64, m).reshape(m, 1)
    if int in types:
        col = list(map(_var_ids, col))
    arity = set(map(len, col))
    if len(arity) != 1:
        return np.fromiter(map(len, col), np.int64, m), None
    k = arity.pop()
    ids = np.empty((m, k), dtype=np.int64)
    for j in range(k):
        ids[:, j] = np.fromiter(map(itemgetter(j), col), np.int64, m)
    return np.full(m, k, dtype=np.int64), ids


def table(buf, n):
    """The :class:`OpTable` of ``buf.events[:n]`` (or of a longer prefix: select by
    ``at``). Kept on the buffer (``buf.ops``; ``recorder.clear`` drops it): only the
    records added since the last call are converted."""
    done = buf.ops
    if done is None:
        done = buf.ops = OpTable.of(buf.events[:n])
    elif done.seen < n:
        done = buf.ops = OpTable.join([done, OpTable.of(buf.events[done.seen:n], done.seen)])
    return done


def collect(snapshot, base_ns, numbered=0):
    """``({buffer: (OpTable, other records, variables)}, {id(): number}, last number)``:
    each buffer's op records of the snapshot begun at or after ``base_ns``, its other
    records and the op records' variables numbered from ``numbered + 1`` for the whole
    trace (signed as ``ids``: negative when written), the numbers of the variables
    other records name (sub-operators, sync points), and the last number given. An
    ``id()`` is unique among live objects only, so two variables that never lived at
    the same time may share a number; their ops never overlapped either, so the edge a
    reader draws between them is never the one an op waited for."""
    per_buf, others = {}, []
    for buf, n, _ in snapshot:
        if not n:
            continue
        ops, rest = table(buf, n).with_vars().within(buf.events, 0, n, base_ns)
        per_buf[buf] = (ops, rest)
        for ev in rest:
            kind = ev[KIND]
            if kind == SUB and len(ev) > SUB_T_READY:
                others.extend(_var_ids(ev[SUB_READS]) + _var_ids(ev[SUB_WRITES]))
            elif kind == SYNC and ev[SYNC_VARS] is not None:
                others.extend(ev[SYNC_VARS])
    every = [c.ids for c, _ in per_buf.values()] + [np.array(others, dtype=np.int64)]
    all_ids = np.concatenate(every)
    uniq, inverse = np.unique(all_ids, return_inverse=True)
    inverse = inverse.reshape(-1) + 1 + numbered
    at = 0
    for buf, (c, rest) in per_buf.items():
        per_buf[buf] = (c, rest, inverse[at:at + len(c.ids)] * c.signs)
        at += len(c.ids)
    numbers = dict(zip(others, inverse[at:].tolist())) if others else {}
    return per_buf, numbers, numbered + len(uniq)


def dep_args(t0, t_push, t_ready, pusher, tid, reads, writes, numbers):
    """``[p, q, t, v...]`` of one record kept as a tuple (a sub-operator; ``pusher``
    None: pushed by the thread that ran it; a stamp of 0 or None: not stamped, taken as
    the start)."""
    p = max(t0 - t_push, 0) if t_push else 0
    q = min(max(t0 - t_ready, 0), p) if t_ready else 0
    return [p, q, tid if pusher is None else pusher,
            *[numbers[i] for i in _var_ids(reads)], *[-numbers[i] for i in _var_ids(writes)]]


def latency_values(parts, base_ns):
    """``(names, name ids, dependency ns, queue ns, run ns)`` (the arguments of
    ``xprof.traces.latency.section``) of the ops in ``parts`` (the
    :class:`.aggregate.Part` list ``dumps()`` aggregates) that began at or after
    ``base_ns``: op records from their tables, sub-operators from their tuples."""
    keys = R.key_table()
    names = {}
    chunks = []
    for part in parts:
        ops = part.ops
        ops = ops.select(ops.t0 >= base_ns)
        if len(ops):
            uniq, inverse = np.unique(ops.key, return_inverse=True)
            lut = np.array([names.setdefault(keys[k][0], len(names)) for k in uniq.tolist()],
                           dtype=np.int64)
            chunks.append(np.stack([lut[inverse.reshape(-1)], ops.p - ops.q, ops.q,
                                    ops.t1 - ops.t0]))
        subs = []
        for ev in part.events:
            if ev[KIND] == SUB and len(ev) > SUB_T_READY and ev[T] >= base_ns:
                t0, t1, tp, tr = ev[T], ev[T + 1], ev[SUB_T_PUSH], ev[SUB_T_READY]
                p = max(t0 - tp, 0) if tp else 0
                q = min(max(t0 - tr, 0), p) if tr else 0
                subs.append((names.setdefault(ev[records.NAME], len(names)), p - q, q, t1 - t0))
        if subs:
            chunks.append(np.array(subs, dtype=np.int64).T)
    table = [None] * len(names)
    for name, k in names.items():
        table[k] = name
    cols = np.concatenate(chunks, axis=1) if chunks else np.zeros((4, 0), dtype=np.int64)
    return (table, *cols)


def join_latency_values(parts):
    """Several :func:`latency_values` as one (their name tables joined)."""
    names, chunks = {}, []
    for table, ids, *cols in parts:
        if len(ids):
            lut = np.array([names.setdefault(name, len(names)) for name in table],
                           dtype=np.int64)
            chunks.append(np.stack([lut[ids], *cols]))
    joined = [None] * len(names)
    for name, k in names.items():
        joined[k] = name
    cols = np.concatenate(chunks, axis=1) if chunks else np.zeros((4, 0), dtype=np.int64)
    return (joined, *cols)


def latency_section(values):
    """The ``Operator Latency`` section of :func:`latency_values`, computed as ``xprof
    stats`` computes it from the trace."""
    return _latency.section(*values)


def call_backlogs(tables, calls):
    """``{t_start: backlog ns}`` of the custom-op calls ``calls`` (``CALL_SPAN`` records,
    keyed by when their Python began): the part of a call's wait for its inputs before
    the op that made it ready (its *producer*: the engine's binding predecessor,
    ``xprof.traces.depgraph``, replayed over the op records of ``tables``) began to
    run. That part is earlier, already-queued work (a loop pushing steps ahead); the rest
    of Inputs, while the producer ran, is Producer. A call whose producer is not in the
    records (its writer was pushed before this profile began) waited for queued work
    only: all Backlog.

    Only the variables the calls read or write are replayed (their predecessors are
    decided by those alone), so a dump of many ops and few calls costs little more."""
    if not calls:
        return {}
    tabs = [t.with_vars() for t in tables if len(t)]
    if not tabs:
        return {}
    t0 = np.concatenate([t.t0 for t in tabs])
    t1 = np.concatenate([t.t1 for t in tabs])
    push = t0 - np.concatenate([t.p for t in tabs])
    ready = t0 - np.concatenate([t.q for t in tabs])
    counts = np.concatenate([t.counts for t in tabs])
    values = np.concatenate([t.ids * t.signs for t in tabs])
    # the calls' own records: the op record whose run is the call's Python (same start)
    by_start = np.argsort(t0, kind="stable")
    starts = np.array([ev[_CALL_START] for ev in calls], dtype=np.int64)
    k = np.minimum(np.searchsorted(t0[by_start], starts), len(t0) - 1)
    rows = np.where(t0[by_start[k]] == starts, by_start[k], -1)
    done = t1.copy()   # a call completes when its outputs are ready, after its Python
    found = rows >= 0
    done[rows[found]] = np.array([ev[_CALL_DONE] for ev in calls],
                                 dtype=np.int64)[found]
    # the variables the calls touch, and every use of them
    rec = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    mine = np.isin(rec, rows[found])
    keep = np.isin(np.abs(values), np.unique(np.abs(values[mine])))
    values, rec = values[keep], rec[keep]
    csr = np.r_[0, np.cumsum(np.bincount(rec, minlength=len(counts)))]
    order = np.argsort(push, kind="stable")
    pred = binding(occurrences(values, csr, order, push),
                   done, ready)
    out = {}
    for ev, r in zip(calls, rows.tolist()):
        _, inputs, *_ = records.call_split(ev)
        t_push = ev[T]
        p = int(pred[r]) if r >= 0 else -1
        out[ev[_CALL_START]] = inputs if p < 0 else min(max(int(t0[p]) - t_push, 0), inputs)
    return out
