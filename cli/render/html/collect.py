"""Collect what the HTML report shows, as plain dicts: the report's only contact with
trace files.

Why a separate stage: the renderer (``render.py``) then works on dicts alone, the same
documents other commands print (``xprof stats --format json``, ``xprof explain --format
json``), so a unit test can render a hand-made document and the page never disagrees
with the commands. The trace is loaded once into a ``Trace``; every part of the page is
a function of it: the statistics (``pagestats.py``), the overview (:func:`overview_of`:
counts, threads, the trace's time span), the memory counter samples
(:func:`memory_samples`) and the ``xprof explain`` analysis.

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

from xprof.traces.counters import is_memory

from xprof.mxcli.analysis.explain import analyze
from xprof.mxcli.analysis.callinputs import input_writers
from xprof.mxcli.analysis.stats_report import Report
from xprof.mxcli.render.html.pagestats import page_statistics
from xprof.mxcli.render.html.render import MAX_OPERATOR_ROWS, OPERATOR_ROWS

MAX_MEMORY_POINTS = 1500       # per series; peaks are kept (see _downsample)
MAX_ALLOCATIONS = 50


def overview_of(tl, stats):
    """Counts, threads, time span and origin of a ``Trace`` (``stats``: its statistics,
    whose domains name the kind of trace)."""
    top = tl.top
    other = top.get("otherData") if type(top.get("otherData")) is dict else {}
    domains = set(stats.time) if stats is not None else set()
    kind = ("xprof" if "xprof_version" in other else
            "PyTorch" if "schemaVersion" in top or "cpu_op" in domains else
            "MXNet" if domains & {"MXNET_C_API", "operator"} else "Chrome trace")
    t0, t1, threads = tl.extent
    names = sorted(str(tl.named_threads.get(t) or f"pid {t[0]} tid {t[1]}") for t in threads)
    return {
        "kind": kind,
        "script": other.get("command"),
        "engine": other.get("engine"),
        "start_time": other.get("start_time"),
        "os_pid": other.get("os_pid"),
        "events": tl.events,
        "threads": names,
        "wall_ms": (t1 - t0) / 1000 if t1 >= t0 else 0.0,
        "t0_us": t0 if t1 >= t0 else 0,
    }


def memory_samples(tl):
    """``{series: [(ts us, bytes)]}`` of the memory counters (``Device Storage``, or a name
    starting ``Memory:``), by arg key, in file order."""
    out = {}
    table = tl.counter_series_table
    memory = [is_memory(cat, name) for cat, name, _, _ in table]
    if not any(memory):
        return out
    sel = np.flatnonzero(np.array(memory)[tl.counter_series] & ~np.isnan(tl.counter_ts))
    for s, ts, v, i in zip(tl.counter_series[sel].tolist(), tl.counter_ts[sel].tolist(),
                           tl.counter_value[sel].tolist(), tl.counter_is_int[sel].tolist()):
        out.setdefault(table[s][2], []).append((ts, int(v) if i else v))
    return out


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
    """``(stats JSON document as ``xprof stats --format json`` prints it but for the
    ``Operator Latency`` section and the time rows the page does not show
    (``pagestats.py``; ``OPERATOR_ROWS``: how many operator rows there are), overview
    dict, memory samples, Trace, Python lines)`` of the trace at ``path``, loaded once;
    exit 2 for what is not a Chrome trace."""
    from xprof.mxcli.render.stats import Options, process
    from xprof.mxcli.streaming.sources import OneDNNLog, _claims, read_trace as load

    if _claims(OneDNNLog, path):
        _fail(f"{path}: a oneDNN verbose log, not a Chrome trace; xprof report reads "
              f"traces (xprof stats reads both)")
    # every async pair (the statistics' rows) and the dependency records (explain); no
    # flow step, no layer or shape column: the page reads none
    tl = load(path, links="pairs", records=True, keys=False)
    stats, rows = page_statistics(tl, MAX_OPERATOR_ROWS)
    report = Report(path=path, stats=stats, top=tl.top)
    lines = python_lines(tl, stats.calls)
    doc = process(report, Options()).doc
    doc[OPERATOR_ROWS] = rows
    return doc, overview_of(tl, stats), memory_samples(tl), tl, lines


MAX_LINES = 5   # the report's rows per custom op type (xprof stats --lines has them all)


def python_lines(tl, calls):
    """``{"rows": {op: top rows}, "summary": {op: ...}}`` of the trace's Python-line
    samples (``analysis/pylines.py``, as ``xprof stats --lines``), or None without any."""
    from xprof.mxcli.analysis import pylines

    samples = tl.python_lines
    if samples is None or not samples.tables:
        return None
    rows, summary = pylines.section(samples, calls, top=MAX_LINES)
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
    # the memory samples cut to the page's points before the analysis (a sample per
    # counter event: not kept while the critical path is walked)
    series = {name: _downsample(samples, overview["t0_us"]) for name, samples in memory.items()}
    memory = None
    explain = explain_doc(timeline)
    if explain is None:
        unavailable["explain"] = ("the trace holds no slices (complete events or B/E "
                                  "pairs) to explain")
    csv_path = memory_csv or find_memory_csv(path, overview["os_pid"])
    allocations = read_allocations(csv_path) if csv_path else None
    # the custom-op section's headline names the op each type's calls waited for
    call_inputs = input_writers(timeline) if stats.get("Custom Operator Calls") else {}
    return {"path": path, "overview": overview, "stats": stats, "explain": explain,
            "memory": series, "allocations": allocations, "unavailable": unavailable,
            "call_inputs": call_inputs, "python_lines": lines}
