"""``xprof stats --by-process``: what the ranks' collectives moved, and how much of their
time computation hid.

A collective is a complete event whose args carry Kineto's ``Collective name`` (xprof's
distributed kvstores write them, ``runtime/dist/events.py``; PyTorch's traces too).
:class:`Communication` (made with ``--by-process`` only) keeps, per
process, each collective's time and size, and the intervals of computation: every other
operator slice (category ``operator`` or ``Custom Operator``) but the kvstore's own
local copies and reductions: :func:`of_trace`, from the ``Trace``'s ``collectives`` and
slices.

Sections (processor :func:`sections`, present when the trace has collectives):

* ``Communication``: per event name and collective, over every rank: ``Count``,
  ``MB`` (``In msg size`` summed), ``Total``/``Avg`` time (ms) and the achieved
  ``GB/s`` (bytes over time in the collective: what one rank saw, waits included);
* ``Overlap``: per rank, as Holistic Trace Analysis defines it: the time computation ran
  while the rank communicated, over its communication time (``Overlap %``), with the
  communication, computation and overlapped times (ms).
"""
from __future__ import annotations

import numpy as np

from xprof.traces.names import COLLECTIVE_NAME, KVSTORE_EVENTS, OPERATOR_CATEGORIES
from xprof.traces.rules import rank_label, rank_of

COMMUNICATION = "Communication"
OVERLAP = "Overlap"
_US_PER_MS = 1000.0


class Communication:
    """Per process: collectives ``(name, collective, ts, dur, bytes)`` and computation
    intervals (µs), and process names and labels (for ranks): :func:`of_trace`."""

    def __init__(self):
        self.collectives = {}    # pid -> [(name, collective, ts, dur, bytes)]
        self.compute = {}        # pid -> [(ts, end)]
        self.names = {}
        self.labels = {}


def of_trace(tl):
    """The :class:`Communication` of a ``Trace``: its collectives (``Collective name`` in
    their args) and, per process, its other operator slices (``X`` events) as
    computation."""
    comm = Communication()
    comm.names, comm.labels = tl.process_names, tl.process_labels
    talking = set()
    for ordinal, pid, name, ts, dur, args in tl.collectives:
        if COLLECTIVE_NAME not in args or not isinstance(ts, (int, float)) or \
                not isinstance(dur, (int, float)):
            continue
        talking.add(ordinal)
        size = args.get("In msg size")
        comm.collectives.setdefault(pid, []).append(
            (name, str(args[COLLECTIVE_NAME]), ts, dur,
             size if isinstance(size, (int, float)) else 0))
    if not comm.collectives:
        return comm
    cats = np.array([c in OPERATOR_CATEGORIES for c in tl.cats] or [False])
    names = np.array([n not in KVSTORE_EVENTS for n in tl.names] or [False])
    use = cats[tl.cat] & names[tl.name] & (tl.ordinal >= 0)   # X events, no B/E pair
    if talking:
        use &= ~np.isin(tl.ordinal, np.array(sorted(talking), dtype=np.int64))
    sel = np.flatnonzero(use)
    process = tl.thread_process()[tl.thread[sel]].tolist()
    for k, t0, t1 in zip(process, (tl.start[sel] / 1000).tolist(), (tl.end[sel] / 1000).tolist()):
        comm.compute.setdefault(tl.pids[k], []).append((t0, t1))
    return comm


def _union(intervals):
    """Sorted, disjoint intervals covering the same time as ``intervals``."""
    out = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1][1] = b
        else:
            out.append([a, b])
    return out


def _length(intervals):
    return sum(b - a for a, b in intervals)


def _intersection(xs, ys):
    """The time two sorted disjoint interval lists share."""
    i = j = 0
    shared = 0.0
    while i < len(xs) and j < len(ys):
        a, b = max(xs[i][0], ys[j][0]), min(xs[i][1], ys[j][1])
        if b > a:
            shared += b - a
        if xs[i][1] < ys[j][1]:
            i += 1
        else:
            j += 1
    return shared


def communication_rows(comm):
    """``{name (collective): row}`` over every process."""
    rows = {}
    for records in comm.collectives.values():
        for name, collective, _, dur, size in records:
            row = rows.setdefault(f"{name} ({collective})", {"Count": 0, "bytes": 0,
                                                             "us": 0.0})
            row["Count"] += 1
            row["bytes"] += size
            row["us"] += dur
    out = {}
    for label, row in sorted(rows.items(), key=lambda kv: -kv[1]["us"]):
        ms = row["us"] / _US_PER_MS
        out[label] = {"Count": row["Count"], "MB": round(row["bytes"] / 1e6, 6),
                      "Total": round(ms, 6), "Avg": round(ms / row["Count"], 6),
                      "GB/s": round(row["bytes"] / (row["us"] * 1e3), 6) if row["us"]
                      else None}
    return out


def overlap_rows(comm):
    """``{"rank R" (or the process name): row}``: HTA's overlap per rank."""
    out = {}
    for pid, records in comm.collectives.items():
        rank = rank_of(comm.names.get(pid, ""), comm.labels.get(pid, ""))
        label = rank_label(rank) if rank is not None else \
            comm.names.get(pid, f"process {pid}")
        talking = _union((ts, ts + dur) for _, _, ts, dur, _ in records)
        computing = _union(comm.compute.get(pid, ()))
        c, k = _length(talking), _length(computing)
        both = _intersection(talking, computing)
        out[label] = {"Communication": round(c / _US_PER_MS, 6),
                      "Computation": round(k / _US_PER_MS, 6),
                      "Overlapped": round(both / _US_PER_MS, 6),
                      "Overlap %": round(100.0 * both / c, 2) if c else None}
    return dict(sorted(out.items()))


def sections(report, options):
    """Add ``Communication`` and ``Overlap`` when ``--by-process`` found collectives."""
    comm = report.communication
    if comm is None or not comm.collectives:
        return report
    report.doc[COMMUNICATION] = {"collectives": communication_rows(comm)}
    report.doc[OVERLAP] = {"ranks": overlap_rows(comm)}
    return report
