"""The ``Operator Latency`` section of ``xprof stats``: collector, processor, renderer rows.

:func:`rows_of` reads the dependency record every xprof engine op carries in its slice's
``args.dep`` (``[p, q, ...]``: pushed ``p`` ns and ready ``q`` ns before it started, see
docs/dependencies.md), from the ``Trace``'s ``dep_*`` columns; the processor builds the section
with ``xprof.traces.latency.section``, the runtime's own, (so ``profiler.dumps(format="json")`` and
``xprof stats --format json`` agree to the digit). Traces without dependency records
(MXNet, PyTorch, older xprof) have no such section.
"""
from __future__ import annotations

import numpy as np

from xprof.traces import latency as shared_latency
from xprof.traces.names import bounded



def rows_of(tl):
    """``(section rows, {name: category})`` of the ``Trace``'s dependency records (a load
    with ``records`` at least ``"times"``), None without any."""
    if not len(tl.dep_slice):
        return None
    rows = tl.dep_slice
    name_ids = tl.name[rows]
    first = np.full(len(tl.names), -1, dtype=np.int64)   # each name's first record, in
    ords = tl.ordinal[rows].astype(np.int64)              # file order: its category
    order = np.argsort(ords, kind="stable")[::-1]
    ords = None
    first[name_ids[order]] = rows[order]
    order = None
    cat_of = {tl.names[n]: tl.cats[tl.cat[r]] for n, r in enumerate(first.tolist()) if r >= 0}
    first = None

    # each part made when the section reads it (pushed p, ready q ns before the start)
    def dependency():
        return tl.dep_ready - tl.dep_push

    def queue():
        return tl.start[rows] - tl.dep_ready

    def run():
        return tl.end[rows] - tl.start[rows]

    return shared_latency.section(tl.names, name_ids, dependency, queue, run), cat_of


def add_section(report, options):
    """Put the ``Operator Latency`` section (when the trace has dependency records) into
    the document, before ``Unit``; ``--domain`` keeps ops of those categories, ``--top N``
    the first N rows."""
    found = report.latency
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
        table.add_row(bounded(name), str(r["Count"]),
                      *(f"{r[p][s]:.4f}" for p in parts for s in ("Avg", "P95")))
    return table
