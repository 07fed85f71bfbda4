"""``xprof stats --by-process``: a Time table per process, and for a job of several
ranks the spread of each operator's total over the ranks.

:func:`processes` (run only when ``--by-process`` is asked) is the statistics of
the ``Trace`` grouped by its thread -> process view, with ``--group-by``'s rows; MXNet's
mirrored async rows are dropped against the synchronous rows of *every* process (the
mirror lives in a process of its own). A process belongs to rank R when its
``process_labels`` say ``rank R`` (what ``xprof trace``, or ``xprof stats`` given
several files, gives a ranked input's processes) or its name starts with ``rank R:``
(a ranked xprof trace): ``traces/rules.py:rank_of``.

Sections (processor :func:`sections`):

* ``Time by process``: rows as in ``Time``, under ``<process name> / <domain>``;
* ``Rank spread`` (two ranks or more): per domain and name, over the ranks, the
  ``Min`` / ``Median`` / ``Max`` / ``Avg`` of the op's total time per rank (ms; a rank
  that never ran the op counts 0), ``Ranks`` that ran it, and the ``Slowest`` rank:
  a straggler shows as a Max far above the Median.
"""
from __future__ import annotations

import statistics

from xprof.traces import stats as shared_stats
from xprof.traces.rules import rank_label

from xprof.mxcli.analysis.trace_stats import _Query

BY_PROCESS = "Time by process"
RANK_SPREAD = "Rank spread"
_PS_PER_MS = 10**9


def processes(tl, group_by="name"):
    """``[(process name, rank or None, Stats)]`` of the ``Trace``'s processes that have
    time rows, in order of first appearance: the statistics grouped by the thread ->
    process view (``trace_stats.time_stats(process=...)``); MXNet's mirrored async rows
    are dropped against the synchronous rows of every process."""
    queries = []
    for k in range(len(tl.pids)):
        q = _Query(tl, group_by, k)
        q.count()
        queries.append(q)
    sync = {}
    for q in queries:   # every process's synchronous rows (slices)
        for domain, name in zip(q._row_domain, q._row_name):
            sync.setdefault(domain, {})[name] = None
    out = []
    for k, q in enumerate(queries):
        st = q.finish(sync)
        if st.time:
            pid = tl.pids[k]
            out.append((tl.process_names.get(pid) or f"process {pid}",
                        tl.process_rank(pid), st))
    return out


def _ms(ps):
    return round(ps / _PS_PER_MS, 6)


def rank_spread(processes):
    """``{domain: {name: row}}`` over the ranks of ``processes`` ((name, rank, Stats));
    empty for fewer than two ranks."""
    Stats = shared_stats.Stats
    per_rank = {}
    for _, rank, st in processes:
        if rank is not None:
            per_rank.setdefault(rank, Stats()).merge(st)
    if len(per_rank) < 2:
        return {}
    ranks = sorted(per_rank)
    rows = {}
    for domain in sorted({d for st in per_rank.values() for d in st.time}):
        names = sorted({n for st in per_rank.values() for n in st.time.get(domain, {})})
        for name in names:
            totals = [per_rank[r].time.get(domain, {}).get(name, (0, 0))[1] for r in ranks]
            slowest = ranks[max(range(len(ranks)), key=lambda i: (totals[i], -i))]
            rows.setdefault(domain, {})[name] = {
                "Ranks": sum(1 for t in totals if t), "Min": _ms(min(totals)),
                "Median": _ms(statistics.median(totals)), "Max": _ms(max(totals)),
                "Avg": _ms(sum(totals) / len(totals)), "Slowest": rank_label(slowest)}
    for domain, names in rows.items():   # the largest Max first: where stragglers are
        rows[domain] = dict(sorted(names.items(), key=lambda kv: (-kv[1]["Max"], kv[0])))
    return rows


def sections(report, options):
    """Add ``Time by process`` and ``Rank spread`` (``--by-process``), honouring
    ``--domain``, ``--sort-by``/``--ascending`` and ``--top``."""
    processes = report.processes
    if processes is None:
        return report
    to_json_obj = shared_stats.to_json_obj
    table = {}
    for name, _, st in processes:
        time = to_json_obj(st, options.sort_by, options.ascending).get("Time", {})
        for domain, rows in time.items():
            if options.domains and domain not in options.domains:
                continue
            keep = list(rows)[:options.top] if options.top else list(rows)
            table[f"{name} / {domain}"] = {n: rows[n] for n in keep}
    report.doc[BY_PROCESS] = table
    spread = rank_spread(processes)
    if spread:
        report.doc[RANK_SPREAD] = {
            d: dict(list(rows.items())[:options.top] if options.top else rows.items())
            for d, rows in spread.items() if not options.domains or d in options.domains}
    return report
