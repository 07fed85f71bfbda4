"""The ``Operator Latency`` section of ``xprof stats``: collector, processor, renderer rows.

The collector reads the dependency record every xprof engine op carries in its slice's
``args.dep`` (``[p, q, ...]``: pushed ``p`` ns and ready ``q`` ns before it started, see
docs/dependencies.md) and keeps three integers per op; the processor builds the section
with ``xprof.traces.latency.section``, the runtime's own, (so ``profiler.dumps(format="json")`` and
``xprof stats --format json`` agree to the digit). Traces without dependency records
(MXNet, PyTorch, older xprof) have no such section.
"""
from __future__ import annotations

import numpy as np

from xprof.traces import latency as shared_latency

from xprof.traces.batch import view

NAME = "latency"


class LatencyCollector:
    """Per op with ``args.dep``: name, category, dependency/queue/run ns."""

    def __init__(self, options=None):   # (every trace collector is built with the Options)
        self.names = {}
        self.cat_of = {}
        self.chunks = []

    def feed(self, events):
        ids, dep, queue, run = [], [], [], []
        names = self.names
        v = view(events)
        if v is None:
            xs = [ev for ev in events if type(ev) is dict and ev.get("ph") == "X"]
            pairs = zip(xs, [ev.get("args") for ev in xs])
        else:
            pairs = zip(v.xs, v.args())
        for ev, args in pairs:
            if not args or type(args) is not dict:
                continue
            rec = args.get("dep")
            if type(rec) is not list or len(rec) < 3:
                continue
            p, q, dur = rec[0], rec[1], ev.get("dur")
            if not (type(p) is int and type(q) is int and 0 <= q <= p < 2 ** 62) \
                    or type(dur) not in (int, float) or not dur >= 0:
                continue
            name = ev.get("name")
            if type(name) is not str:
                name = "(unnamed)"
            k = names.get(name)
            if k is None:
                k = names[name] = len(names)
                cat = ev.get("cat")
                self.cat_of[name] = cat if type(cat) is str else "uncategorized"
            ids.append(k)
            dep.append(p - q)
            queue.append(q)
            run.append(round(dur * 1000))
        if ids:
            self.chunks.append(np.array([ids, dep, queue, run], dtype=np.int64))

    def finish(self, report):
        if not self.chunks:
            return
        cols = np.concatenate(self.chunks, axis=1)
        names = [None] * len(self.names)
        for n, k in self.names.items():
            names[k] = n
        report.extra[NAME] = (shared_latency.section(names, *cols), self.cat_of)


def add_section(report, options):
    """Put the ``Operator Latency`` section (when the trace has dependency records) into
    the document, before ``Unit``; ``--domain`` keeps ops of those categories, ``--top N``
    the first N rows."""
    found = report.extra.get(NAME)
    if not found:
        return report
    rows, cat_of = found
    if options.domains:
        rows = {n: r for n, r in rows.items() if cat_of.get(n) in options.domains}
    if options.top:
        rows = dict(list(rows.items())[:options.top])
    section = shared_latency.SECTION
    doc = {k: v for k, v in report.doc.items() if k != "Unit"}
    doc[section] = rows
    if "Unit" in report.doc:
        doc["Unit"] = report.doc["Unit"]
    report.doc = doc
    return report


def csv_rows(rows):
    """The section as CSV rows ``(domain, name, count, total, min, max, avg, unit)``:
    one row per op name and part (domain = the part: Dependency, Queue, Run)."""
    parts = shared_latency.PARTS
    return [(part, name, r["Count"], "", "", r[part]["Max"], r[part]["Avg"], "ms")
            for part in parts for name, r in rows.items()]


def text(rows):
    return shared_latency.render_text(rows)


def rich_table(rows):
    from rich.table import Table

    parts = shared_latency.PARTS
    table = Table(title="Latency", title_justify="left", title_style="bold")
    table.add_column("Name", overflow="fold")
    table.add_column("Count", justify="right")
    for part in parts:
        for stat in ("Avg", "P95"):
            table.add_column(f"{part[:5]} {stat} (ms)", justify="right")
    for name, r in rows.items():
        table.add_row(name, str(r["Count"]),
                      *(f"{r[p][s]:.4f}" for p in parts for s in ("Avg", "P95")))
    return table
