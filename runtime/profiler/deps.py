"""Dependency records at dump time: what the encoder and ``dumps()`` make of them.

While profiling, every engine op is recorded with its push and ready times, the thread
that pushed it and the ``id()`` of each variable it read and wrote
(:func:`.records.op_dep`, the sub-operator and sync-point kinds). Turning those into
the trace's ``args.dep = [p, q, t, v...]`` (docs/dependencies.md) and into the
``Operator Latency`` section happens here, once per dump, so recording stays a tuple
of integers.
"""
from xprof.shared import latency as _latency

from . import records

OP_DEP, SUB, SYNC = records.OP_DEP, records.SUB_OPERATOR, records.SYNC


def var_numbers(snapshot):
    """{id(): small number from 1} of every variable the snapshot's records name.
    An ``id()`` is unique among live objects only, so two variables that never lived at
    the same time may share a number; their ops never overlapped either, so the edge a
    reader draws between them is never the one an op waited for."""
    numbers = {}
    for buf, n, _ in snapshot:
        for ev in buf.events[:n]:
            kind = ev[0]
            if kind == OP_DEP:
                ids = ev[8] + ev[9]
            elif kind == SUB and len(ev) > 9:
                ids = ev[10] + ev[11]
            elif kind == SYNC and ev[5] is not None:
                ids = ev[5]
            else:
                continue
            for i in ids:
                if i not in numbers:
                    numbers[i] = len(numbers) + 1
    return numbers


def dep_args(t0, t_push, t_ready, pusher, tid, reads, writes, numbers):
    """``[p, q, t, v...]`` of one op (``pusher`` None: pushed by the thread that ran it;
    a stamp of 0 or None: not stamped, taken as the start)."""
    p = t0 - t_push if t_push else 0
    q = t0 - t_ready if t_ready else 0
    p = max(p, 0)
    q = min(max(q, 0), p)
    return [p, q, tid if pusher is None else pusher,
            *[numbers[i] for i in reads], *[-numbers[i] for i in writes]]


def latency_values(parts, base_ns):
    """``[(name, dependency ns, queue ns, run ns)]`` of the ops in ``[(event tuples,
    slice rows)]`` (the parts ``dumps()`` aggregates) that began at or after ``base_ns``."""
    out = []
    for events, _ in parts:
        for ev in events:
            kind = ev[0]
            if kind == OP_DEP:
                t0, t1, tp, tr = ev[3], ev[4], ev[5], ev[6]
            elif kind == SUB and len(ev) > 9:
                t0, t1, tp, tr = ev[3], ev[4], ev[5], ev[9]
            else:
                continue
            if t0 < base_ns:
                continue
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
