"""Dependency records at dump time: what the encoder and ``dumps()`` make of them.

While profiling, every engine op is recorded with its push and ready times, the thread
that pushed it and the ``id()`` of each variable it read and wrote
(:func:`.records.op_dep`, the sub-operator and sync-point kinds). Turning those into
the trace's ``args.dep = [p, q, t, v...]`` (docs/dependencies.md) and into the
``Operator Latency`` section happens here, once per dump, so recording stays a tuple
of integers.
"""
import numpy as np

from xprof.shared import latency as _latency

from . import records

OP_DEP, SUB, SYNC = records.OP_DEP, records.SUB_OPERATOR, records.SYNC


class Columns:
    """One thread's plain op records (``OP_DEP``) as columns, in recorded order:
    ``events`` (the tuples), ``t0``, ``t1``, ``p``/``q`` (ns pushed / ready before the
    start), ``pusher`` (-1: the thread itself), ``counts`` (variables per op) and
    ``ids``/``signs`` (their ``id()``s, +1 read, -1 written), ``vars`` (numbered, signed,
    filled in by :func:`collect`)."""

    __slots__ = ("events", "t0", "t1", "p", "q", "pusher", "counts", "ids", "signs", "vars")

    def __init__(self, evs):
        n = len(evs)
        self.events = evs
        self.t0 = np.fromiter((e[3] for e in evs), np.int64, n)
        self.t1 = np.fromiter((e[4] for e in evs), np.int64, n)
        tp = np.fromiter((e[5] or 0 for e in evs), np.int64, n)
        tr = np.fromiter((e[6] or 0 for e in evs), np.int64, n)
        # not stamped (0/None): pushed and run at once, push and ready are the start
        p = np.where(tp > 0, self.t0 - tp, 0).clip(0)
        q = np.minimum(np.where(tr > 0, self.t0 - tr, 0).clip(0), p)
        self.p, self.q = p, q
        self.pusher = np.fromiter((-1 if e[7] is None else e[7] for e in evs), np.int64, n)
        nr = np.fromiter((len(e[8]) for e in evs), np.int64, n)
        nw = np.fromiter((len(e[9]) for e in evs), np.int64, n)
        self.counts = nr + nw
        total = int(self.counts.sum())
        self.ids = np.fromiter((i for e in evs for i in e[8] + e[9]), np.int64, total)
        starts = np.cumsum(self.counts) - self.counts
        within = np.arange(total) - np.repeat(starts, self.counts)
        self.signs = np.where(within < np.repeat(nr, self.counts), 1, -1)
        self.vars = None


def collect(snapshot, base_ns):
    """``({buffer: Columns}, {id(): number})``: the plain op records of each buffer of
    the snapshot (begun at or after ``base_ns``), their variables numbered from 1 for
    the whole trace, and the numbers of the variables other records name
    (sub-operators, sync points, ops with input shapes). An ``id()`` is unique among live objects only, so two
    variables that never lived at the same time may share a number; their ops never
    overlapped either, so the edge a reader draws between them is never the one an op
    waited for."""
    per_buf, others = {}, []
    for buf, n, _ in snapshot:
        evs = []
        for ev in buf.events[:n]:
            kind = ev[0]
            if kind == OP_DEP:
                if ev[3] < base_ns:
                    continue
                if ev[10] is None:
                    evs.append(ev)
                else:   # with input shapes: its own event (chrome._op_dep)
                    others.extend(ev[8] + ev[9])
            elif kind == SUB and len(ev) > 9:
                others.extend(ev[10] + ev[11])
            elif kind == SYNC and ev[5] is not None:
                others.extend(ev[5])
        if evs:
            per_buf[buf] = Columns(evs)
    every = [c.ids for c in per_buf.values()] + [np.array(others, dtype=np.int64)]
    all_ids = np.concatenate(every)
    uniq, inverse = np.unique(all_ids, return_inverse=True)
    inverse = inverse.reshape(-1) + 1
    at = 0
    for c in per_buf.values():
        c.vars = inverse[at:at + len(c.ids)] * c.signs
        at += len(c.ids)
    numbers = dict(zip(others, inverse[at:].tolist())) if others else {}
    return per_buf, numbers


def dep_args(t0, t_push, t_ready, pusher, tid, reads, writes, numbers):
    """``[p, q, t, v...]`` of one record kept as a tuple (a sub-operator; ``pusher``
    None: pushed by the thread that ran it; a stamp of 0 or None: not stamped, taken as
    the start)."""
    p = max(t0 - t_push, 0) if t_push else 0
    q = min(max(t0 - t_ready, 0), p) if t_ready else 0
    return [p, q, tid if pusher is None else pusher,
            *[numbers[i] for i in reads], *[-numbers[i] for i in writes]]


def latency_values(parts, base_ns):
    """``[(name, dependency ns, queue ns, run ns)]`` of the ops in ``[(event tuples,
    slice rows)]`` (the parts ``dumps()`` aggregates) that began at or after ``base_ns``."""
    out = []
    for part in parts:   # (events, rows) or a folded (events, rows, threads)
        events = part[0]
        ops = [ev for ev in events if ev[0] == OP_DEP and ev[3] >= base_ns]
        if ops:
            c = Columns(ops)
            out.extend(zip([ev[1] for ev in ops], (c.p - c.q).tolist(), c.q.tolist(),
                           (c.t1 - c.t0).tolist()))
        for ev in events:
            if ev[0] == SUB and len(ev) > 9 and ev[3] >= base_ns:
                t0, t1, tp, tr = ev[3], ev[4], ev[5], ev[9]
                p = max(t0 - tp, 0) if tp else 0
                q = min(max(t0 - tr, 0), p) if tr else 0
                out.append((ev[1], p - q, q, t1 - t0))
    return out


def latency_section(values):
    """The ``Operator Latency`` section of :func:`latency_values` rows, computed as
    ``xprof stats`` computes it from the trace."""
    names = {}
    ids = [names.setdefault(v[0], len(names)) for v in values]
    table = [None] * len(names)
    for name, k in names.items():
        table[k] = name
    return _latency.section(table, ids, [v[1] for v in values], [v[2] for v in values],
                            [v[3] for v in values])
