"""``xprof stats`` as a function of a ``Trace``: :func:`stats_report` answers every
question the statistics ask of it, into a :class:`Report` that flows through the
processors (``stats_processors.py``) to a renderer.

Why a small class and not the JSON dict alone: renderers need both the
ordered JSON document (json, csv, rich) and the aggregate :class:`Stats`
(the plain-text table is the runtime's own ``render_text`` of it, so
``profiler.dumps()`` and ``xprof stats`` print the same text).
"""
from __future__ import annotations

from dataclasses import dataclass, field

# Sections of the JSON document in display order; ``Unit`` is not a section.
# A new section: add its name here, fill ``Report.doc[name]`` in a processor
# (from a field :func:`stats_report` filled) and give every renderer an entry for it.
SECTIONS = ("Time", "Memory", "Counter", "Operator Latency")


@dataclass
class Report:
    """What ``xprof stats`` knows about one trace (or one oneDNN log).

    ``stats``: the aggregate (durations in integer picoseconds); ``doc``: the
    ``to_json_obj`` document, ordered and filtered by the processors (every
    renderer shows exactly this); ``top``: a Chrome trace's other top-level keys
    (``otherData``, ``displayTimeUnit``, ...). What the ``Trace`` answered beside the
    aggregate (None when not asked or not there): ``latency`` (``Operator Latency``
    rows and each op's category), ``lines`` (the Python-line samples), ``processes``
    and ``communication`` (``--by-process``).
    """

    path: str
    stats: object
    doc: dict = field(default_factory=dict)
    sort_by: str = "total"
    ascending: bool = False
    truncated: bool = False
    top: dict = field(default_factory=dict)
    latency: object = None
    lines: object = None
    processes: object = None
    communication: object = None

    def sections(self):
        """``(name, {domain: {row name: row}})`` of the sections present, in display order."""
        return doc_sections(self.doc)


def doc_sections(doc):
    """The sections of a ``to_json_obj``-shaped document: known ones first, then the rest."""
    more = [k for k in doc if k not in SECTIONS and k != "Unit"]
    return [(name, doc[name]) for name in (*SECTIONS, *more) if name in doc]


def stats_report(tl, options, path=None, truncated=False):
    """The :class:`Report` of a ``Trace`` for ``options`` (``stats_processors.Options``):
    the statistics (``trace_stats.time_stats``), the latency rows, the Python-line
    samples, and with ``--by-process`` the per-process tables and the collectives."""
    from xprof.mxcli.analysis import by_process, communication, latency
    from xprof.mxcli.analysis.trace_stats import time_stats

    stats, _ = time_stats(tl, options.group_by)
    report = Report(path=path, stats=stats, truncated=truncated, top=tl.top,
                    latency=latency.rows_of(tl), lines=tl.python_lines)
    if options.by_process:
        report.processes = by_process.processes(tl, options.group_by)
        report.communication = communication.of_trace(tl)
    return report
