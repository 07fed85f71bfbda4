"""``xprof stats --by-process``: what the ranks' collectives moved, and how much of their
time computation hid.

A collective is a complete event whose args carry Kineto's ``Collective name`` (xprof's
distributed kvstores write them, ``runtime/dist/events.py``; PyTorch's traces too). The
collector (:class:`Communication`, collected with ``--by-process`` only) keeps, per
process, each collective's time and size, and the intervals of computation: every other
operator slice (category ``operator`` or ``Custom Operator``) but the kvstore's own
local copies and reductions.

Sections (processor :func:`sections`, present when the trace has collectives):

* ``Communication``: per event name and collective, over every rank: ``Count``,
  ``MB`` (``In msg size`` summed), ``Total``/``Avg`` time (ms) and the achieved
  ``GB/s`` (bytes over time in the collective: what one rank saw, waits included);
* ``Overlap``: per rank, as Holistic Trace Analysis defines it: the time computation ran
  while the rank communicated, over its communication time (``Overlap %``), with the
  communication, computation and overlapped times (ms).
"""
from __future__ import annotations

from xprof.traces.names import KVSTORE_EVENTS, OPERATOR_CATEGORIES

from xprof.mxcli.analysis.stats_collector import _key
from xprof.mxcli.analysis.by_process import process_rank

COMMUNICATION = "Communication"
OVERLAP = "Overlap"
_US_PER_MS = 1000.0


class Communication:
    """Per process: collectives ``(name, collective, ts, dur, bytes)`` and computation
    intervals (µs), and process names and labels (for ranks)."""

    name = "communication"

    def __init__(self):
        self.collectives = {}    # pid -> [(name, collective, ts, dur, bytes)]
        self.compute = {}        # pid -> [(ts, end)]
        self.names = {}
        self.labels = {}

    def feed(self, events):
        for ev in events:
            if type(ev) is not dict:
                continue
            ph = ev.get("ph")
            if ph == "M":
                args = ev.get("args")
                if type(args) is dict:
                    if ev.get("name") == "process_name" and type(args.get("name")) is str:
                        self.names[_key(ev.get("pid"))] = args["name"]
                    elif ev.get("name") == "process_labels" and \
                            type(args.get("labels")) is str:
                        self.labels[_key(ev.get("pid"))] = args["labels"]
                continue
            if ph != "X":
                continue
            ts, dur = ev.get("ts"), ev.get("dur")
            if not isinstance(ts, (int, float)) or not isinstance(dur, (int, float)):
                continue
            args = ev.get("args")
            pid = _key(ev.get("pid"))
            if type(args) is dict and "Collective name" in args:
                size = args.get("In msg size")
                self.collectives.setdefault(pid, []).append(
                    (ev.get("name"), str(args["Collective name"]), ts, dur,
                     size if isinstance(size, (int, float)) else 0))
            elif ev.get("cat") in OPERATOR_CATEGORIES and \
                    ev.get("name") not in KVSTORE_EVENTS:
                self.compute.setdefault(pid, []).append((ts, ts + dur))

    def finish(self, report):
        report.extra[self.name] = self


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
        rank = process_rank(comm.names.get(pid, ""), comm.labels.get(pid, ""))
        label = f"rank {rank}" if rank is not None else \
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
    comm = report.extra.get(Communication.name)
    if comm is None or not comm.collectives:
        return report
    report.doc[COMMUNICATION] = {"collectives": communication_rows(comm)}
    report.doc[OVERLAP] = {"ranks": overlap_rows(comm)}
    return report
