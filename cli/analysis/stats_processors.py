"""Processors of ``xprof stats``: small functions ``report = processor(report, options)``.

Each one does one thing to the report and says so in its docstring; they run
in the order of :data:`PIPELINE`.  A new processor (a new section computed
from the aggregate or from what ``stats_report`` asked of the ``Trace``, a new filter): a
function here, one entry in :data:`PIPELINE` at the place its input is ready,
and, when it needs a command-line option, one field in :class:`Options` and
one ``click.option`` in ``cli/stats.py``.
"""
from __future__ import annotations

from dataclasses import dataclass

from xprof.traces import stats as shared_stats
from xprof.traces.callstats import CATEGORY as CUSTOM_OPERATOR, SECTION as CALLS

from xprof.mxcli.analysis.pylines import CATEGORY as PYTHON_LINE
from xprof.mxcli.analysis.flat import flatten
from xprof.mxcli.analysis import BadInput, by_process, communication, latency


@dataclass(frozen=True)
class Options:
    """What the user asked for (one field per ``xprof stats`` option that shapes the report)."""

    sort_by: str = "total"
    ascending: bool = False
    domains: frozenset = frozenset()
    top: int | None = None
    flat: bool = False             # one ranking across domains (flat.py)
    include_waits: bool = False    # keep the API domain's sync waits in --flat
    group_by: str = "name"         # row of an operator event (analysis/grouping.py)
    by_process: bool = False       # per-process tables and rank spread (by_process.py)
    lines: str | None = None       # --lines [OP_TYPE]: "" for every op type (pylines.py)


def order(report, options):
    """Build the JSON document: domains A to Z, rows by ``sort_by`` (shared with ``dumps()``).
    The Python-line samples' slices are no Time rows (``dumps()`` has none either: they
    are read by ``--lines``)."""
    report.sort_by, report.ascending = options.sort_by, options.ascending
    report.stats.time.pop(PYTHON_LINE, None)
    report.doc = shared_stats.to_json_obj(report.stats, options.sort_by, options.ascending)
    return report


def check_domains(report, options):
    """Refuse (exit 2) a ``--domain`` the file does not have, listing those it has."""
    st = report.stats
    available = sorted(set(st.time) | set(st.memory) | set(st.counter))
    for d in options.domains:
        if d not in available:
            raise BadInput(f"unknown domain {d!r}; available: "
                           f"{', '.join(map(repr, available)) or 'none'}")
    return report


def select(report, options):
    """Keep the chosen domains and the first ``top`` rows of each, in the document and the stats.

    The stats keep exactly the rows the document shows, so the plain-text
    table (rendered from the stats) and the JSON agree.
    """
    if not options.domains and not options.top:
        return report
    Stats = shared_stats.Stats
    st, doc, picked = report.stats, report.doc, Stats()
    picked.inner, picked.span = st.inner, st.span
    calls = doc.get(CALLS)
    if calls is not None:   # custom-op calls belong to the Custom Operator domain
        if options.domains and CUSTOM_OPERATOR not in options.domains:
            del doc[CALLS]
        else:
            picked.calls = st.calls
    for section, table, dst in (("Time", st.time, picked.time),
                                ("Memory", st.memory, picked.memory),
                                ("Counter", st.counter, picked.counter)):
        sec = doc.get(section)
        if sec is None:
            continue
        for domain in list(sec):
            if options.domains and domain not in options.domains:
                del sec[domain]
                continue
            names = list(sec[domain])[:options.top] if options.top else list(sec[domain])
            sec[domain] = {n: sec[domain][n] for n in names}
            dst[domain] = {n: table[domain][n] for n in names}
    report.stats = picked
    return report


# Run in this order by process().
PIPELINE = [order, check_domains, select, latency.add_section, flatten, by_process.sections,
            communication.sections]


def process(report, options):
    for processor in PIPELINE:
        report = processor(report, options)
    return report
