"""Collect what the HTML report shows, as plain dicts: the report's only contact with
trace files.

Why a separate stage: the renderer (``render.py``) then works on dicts alone, the same
documents other commands print (``xprof stats --format json``, ``xprof explain --format
json``), so a unit test can render a hand-made document and the page never disagrees
with the commands. One streaming pass over the trace feeds every collector: the
aggregate statistics, the :class:`Overview` (counts, threads, the trace's time span,
memory counter samples) and the timeline ``xprof explain`` analyses
(:class:`TimelineCollector`), so the file is read and decoded once.

:func:`collect` returns::

    {"path", "overview": {...}, "stats": <stats JSON document, the rows the page shows>,
     "explain": <explain document without its segment list, plus "composition_ms"
                 and "dependencies"> | None,
     "memory": {series: ([ms], [bytes])},
     "allocations": {"path", "rows": [{...}], "total_rows"} | None,
     "unavailable": {section: reason},
     "call_inputs": {custom op type: the op its calls waited for (callinputs.py)}}
"""
from __future__ import annotations

import csv
import glob
import os

import numpy as np

from xprof.traces.batch import view
from xprof.traces.rules import id_key, thread_key

from xprof.mxcli.analysis.explain import analyze
from xprof.mxcli.analysis.callinputs import input_writers
from xprof.mxcli.analysis.timeline import TimelineCollector
from xprof.mxcli.render.html.pagestats import PageStatsTotals
from xprof.mxcli.render.html.render import MAX_OPERATOR_ROWS, OPERATOR_ROWS

MAX_MEMORY_POINTS = 1500       # per series; peaks are kept (see _downsample)
MAX_ALLOCATIONS = 50
MEMORY_CATEGORY = "Device Storage"


class Overview:
    """Feed batches of events; :meth:`finish` gives counts, threads, time span and the
    memory counter samples (``ts`` in us, values as recorded: bytes)."""

    def __init__(self):
        self.events = 0
        self.thread_names = {}
        self.process_names = {}
        self.threads = set()
        self.t0 = float("inf")
        self.t1 = float("-inf")
        self.memory = {}

    def feed(self, events):
        # the X events (most of a trace) from the batch's columns, the others in one
        # plain loop: this pass shares its time budget with the statistics (a million
        # events in a few seconds)
        v = view(events)
        rest = events
        if v is not None and v.x_pos and self._feed_x(v):
            rest = v.others()
        t0, t1, threads, memory = self.t0, self.t1, self.threads, self.memory
        for e in rest:
            try:
                ph = e["ph"]
                ts = e["ts"]
            except (KeyError, TypeError):     # metadata (no ts), or not an event at all
                if type(e) is dict and e.get("ph") == "M":
                    self._metadata(e)
                continue
            try:
                if ph == "C":
                    name = e.get("name")
                    if e.get("cat") == MEMORY_CATEGORY or (type(name) is str
                                                          and name.startswith("Memory:")):
                        for series, value in e["args"].items():
                            if type(value) in (int, float):
                                memory.setdefault(series, []).append((ts, value))
                    continue
                if ph == "M":
                    self._metadata(e)
                    continue
                if ts < t0:
                    t0 = ts
                dur = e.get("dur")
                end = ts + dur if dur else ts
                if end > t1:
                    t1 = end
                threads.add(thread_key(e.get("pid"), e.get("tid")))
            except (TypeError, AttributeError):   # a non-numeric ts/dur
                continue
        self.events += len(events)
        self.t0, self.t1 = t0, t1

    def _feed_x(self, v):
        """Span and threads of a batch's ``X`` events; False when one has a time that
        is not a finite number or unhashable ids (the loop then takes them one by one)."""
        ts, dur, _, _, pids, tids = v.fields()
        if not set(map(type, ts)) | set(map(type, dur)) <= {int, float}:
            return False
        ts, dur = np.array(ts, dtype=np.float64), np.array(dur, dtype=np.float64)
        if not (np.isfinite(ts).all() and np.isfinite(dur).all()):
            return False
        try:
            self.threads.update(zip(pids, tids))
        except TypeError:
            return False
        self.t0 = min(self.t0, float(ts.min()))
        self.t1 = max(self.t1, float((ts + dur).max()))
        return True

    def _metadata(self, e):
        args = e.get("args")
        name = args.get("name") if type(args) is dict else None
        if e.get("name") == "thread_name":
            self.thread_names[thread_key(e.get("pid"), e.get("tid"))] = name
        elif e.get("name") == "process_name":
            self.process_names[id_key(e.get("pid"))] = name

    def finish(self, report):
        """Store the overview in ``report.extra["overview"]`` (a stats-pipeline collector)."""
        top = report.top
        other = top.get("otherData") if type(top.get("otherData")) is dict else {}
        domains = set(report.stats.time) if report.stats is not None else set()
        kind = ("xprof" if "xprof_version" in other else
                "PyTorch" if "schemaVersion" in top or "cpu_op" in domains else
                "MXNet" if domains & {"MXNET_C_API", "operator"} else "Chrome trace")
        names = sorted(str(self.thread_names.get(t) or f"pid {t[0]} tid {t[1]}")
                       for t in self.threads)
        report.extra["overview"] = {
            "kind": kind,
            "script": other.get("command"),
            "engine": other.get("engine"),
            "start_time": other.get("start_time"),
            "os_pid": other.get("os_pid"),
            "events": self.events,
            "threads": names,
            "wall_ms": (self.t1 - self.t0) / 1000 if self.t1 >= self.t0 else 0.0,
            "t0_us": self.t0 if self.t1 >= self.t0 else 0,
        }


def _downsample(samples, t0_us, limit=MAX_MEMORY_POINTS):
    """``(ms since the trace's start, values)`` in time order, at most ``limit`` points:
    the samples cut into equal runs, each kept as its lowest and its highest sample (in
    their order), and the last sample, so the line keeps every peak and trough."""
    samples.sort(key=lambda s: s[0])
    if len(samples) > limit:
        runs = (limit - 1) // 2
        step = len(samples) / runs
        picked = []
        for i in range(runs):
            run = samples[int(i * step):int((i + 1) * step)]
            if run:
                lo, hi = min(run, key=lambda s: s[1]), max(run, key=lambda s: s[1])
                picked.extend(sorted({lo, hi}, key=lambda s: s[0]))
        if picked[-1] is not samples[-1]:
            picked.append(samples[-1])
        samples = picked
    return [(ts - t0_us) / 1000 for ts, _ in samples], [v for _, v in samples]


def read_trace(path):
    """One pass, through ``xprof stats``'s own stages: ``(stats JSON document as ``xprof
    stats --format json`` prints it but for the ``Operator Latency`` section and the
    time rows the page does not show (``pagestats.py``; ``OPERATOR_ROWS``: how many
    operator rows there are), overview dict, memory samples, timeline)``; exit 2 for
    what is not a Chrome trace."""
    from xprof.mxcli.render.stats import Options, process
    from xprof.mxcli.analysis.latency import LatencyCollector
    from xprof.mxcli.streaming.sources import CustomOpCalls, StatsTotals, read_report

    overview = Overview()
    # no Operator Latency section on the page: its collector is left out of the pass;
    # the aggregate tables are those the page shows (pagestats.py); the custom-op calls
    # are the Trace's (paired once, in its build); the Trace is finished first: the
    # statistics' self time is computed on its slice columns (pagestats.py)
    report = read_report(path, collectors=[TimelineCollector(),
                                           PageStatsTotals(MAX_OPERATOR_ROWS), overview],
                         skip=(StatsTotals, CustomOpCalls, LatencyCollector))
    if "overview" not in report.extra:
        _fail(f"{path}: a oneDNN verbose log, not a Chrome trace; xprof report reads "
              f"traces (xprof stats reads both)")
    timeline = report.extra["timeline"]
    report.stats.calls = timeline.call_stats
    if timeline.call_span is not None:   # the calls widen the wall time, as in xprof stats
        report.stats.add_span_ns(*timeline.call_span)
    lines = python_lines(report)
    doc = process(report, Options()).doc
    doc[OPERATOR_ROWS] = report.extra["operator rows"]
    return doc, report.extra["overview"], overview.memory, timeline, lines


MAX_LINES = 5   # the report's rows per custom op type (xprof stats --lines has them all)


def python_lines(report):
    """``{"rows": {op: top rows}, "summary": {op: ...}}`` of the trace's Python-line
    samples (``analysis/pylines.py``, as ``xprof stats --lines``), or None without any."""
    from xprof.mxcli.analysis import pylines

    collector = report.extra.get(pylines.SECTION)
    if collector is None or not collector.tables:
        return None
    rows, summary = pylines.section(collector, getattr(report.stats, "calls", None),
                                    top=MAX_LINES)
    return {"rows": rows, "summary": summary}


def _fail(message):
    from xprof.mxcli.errors import fail

    fail(message)


def explain_doc(timeline):
    """The ``xprof explain`` document of a timeline (the dict ``xprof explain --format
    json`` prints, so the page's critical path never disagrees with the command), without
    the segment list the page does not draw, ``by_name`` and ``top_ops`` cut to the first
    :data:`MAX_OPERATOR_ROWS` names (the page draws 15; a bounded document whatever the
    trace), with ``composition_ms`` (the path's time
    per kind of segment: ``op``, ``queue``, ``dependency``, ``python``) and
    ``dependencies`` (False: no dependency records, the path assumes per-thread serial
    ops, as for MXNet and PyTorch traces); None when the trace holds no slice."""
    if not len(timeline.start):
        return None
    analysis = analyze(timeline)
    doc = analysis.to_dict(segments=False, top=MAX_OPERATOR_ROWS)
    doc["composition_ms"] = {kind: round(ns / 1e6, 6) for kind, ns in analysis.by_kind.items()}
    doc["dependencies"] = not analysis.serial
    from xprof.mxcli.analysis import whatif
    key, answer, replayed = whatif.answer(analysis, [])   # "what would help" (the replay)
    if key is not None:
        doc[key], doc["replay"] = answer, replayed
    return doc


def find_memory_csv(trace_path, os_pid):
    """The memory profile CSV written with this trace (``<prefix>-pid_<pid>.csv`` in the
    trace's folder, MXNet's name), or None."""
    if os_pid is None:
        return None
    folder = os.path.dirname(os.path.abspath(trace_path))
    found = sorted(glob.glob(os.path.join(glob.escape(folder), f"*-pid_{int(os_pid)}.csv")))
    return found[0] if found else None


def read_allocations(csv_path, limit=MAX_ALLOCATIONS):
    """The largest allocations of a memory profile CSV (``Attribute Name, Requested
    Size, Device, Actual Size, Reuse?``), largest first; exit 2 if it is not one."""
    try:
        with open(csv_path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as exc:
        _fail(f"--memory-csv {csv_path!r}: cannot read ({exc.strerror or exc})")
    need = {"Attribute Name", "Requested Size", "Device", "Actual Size"}
    if rows and not need <= set(rows[0]):
        _fail(f"--memory-csv {csv_path!r}: not a memory profile CSV (columns "
              f"{', '.join(sorted(need))} expected)")
    out = []
    for r in rows:
        try:
            size = int(r["Actual Size"] or r["Requested Size"])
        except ValueError:
            continue
        out.append({"name": r["Attribute Name"], "device": r["Device"], "bytes": size,
                    "requested": r["Requested Size"], "reuse": r.get("Reuse?", "")})
    out.sort(key=lambda r: -r["bytes"])
    return {"path": csv_path, "rows": out[:limit], "total_rows": len(out),
            "total_bytes": sum(r["bytes"] for r in out)}


def collect(path, memory_csv=None):
    """Everything the report renders, for the trace at ``path``."""
    stats, overview, memory, timeline, lines = read_trace(path)
    unavailable = {}
    explain = explain_doc(timeline)
    if explain is None:
        unavailable["explain"] = ("the trace holds no slices (complete events or B/E "
                                  "pairs) to explain")
    series = {name: _downsample(samples, overview["t0_us"]) for name, samples in memory.items()}
    csv_path = memory_csv or find_memory_csv(path, overview["os_pid"])
    allocations = read_allocations(csv_path) if csv_path else None
    # the custom-op section's headline names the op each type's calls waited for
    call_inputs = input_writers(timeline) if stats.get("Custom Operator Calls") else {}
    return {"path": path, "overview": overview, "stats": stats, "explain": explain,
            "memory": series, "allocations": allocations, "unavailable": unavailable,
            "call_inputs": call_inputs, "python_lines": lines}
