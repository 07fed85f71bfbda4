"""``xprof stats --by-process``: a Time table per process, and for a job of several
ranks the spread of each operator's total over the ranks.

The collector (:class:`ByProcess`, given to ``read_report`` only when ``--by-process``
is asked, so plain ``xprof stats`` pays nothing for it) keeps one :class:`~..readers.chrome.StatsCollector`
per process; MXNet's mirrored async rows are dropped against the synchronous rows of
*every* process (the mirror lives in a process of its own). A process belongs to rank
R when its ``process_labels`` say ``rank R`` (what ``xprof trace`` gives a ranked
input's processes) or its name starts with ``rank R:`` (a ranked xprof trace).

Sections (processor :func:`sections`):

* ``Time by process``: rows as in ``Time``, under ``<process name> / <domain>``;
* ``Rank spread`` (two ranks or more): per domain and name, over the ranks, the
  ``Min`` / ``Median`` / ``Max`` / ``Avg`` of the op's total time per rank (ms; a rank
  that never ran the op counts 0), ``Ranks`` that ran it, and the ``Slowest`` rank:
  a straggler shows as a Max far above the Median.
"""
from __future__ import annotations

import re
import statistics

from xprof.traces import stats as shared_stats
from xprof.traces.rules import id_key as _key

from xprof.mxcli.analysis.stats_collector import StatsCollector

BY_PROCESS = "Time by process"
RANK_SPREAD = "Rank spread"
_RANK_LABEL = re.compile(r"(?:^|,\s*)rank (\d+)(?:\s*,|$)")
_RANK_NAME = re.compile(r"^rank (\d+):")
_PS_PER_MS = 10**9


class ByProcess:
    """Per-process aggregates (only collected when ``--by-process`` is asked)."""

    name = "by_process"

    def __init__(self):
        self._collectors = {}     # pid key -> StatsCollector, in order of appearance
        self._names = {}
        self._labels = {}

    def feed(self, events):
        groups = {}
        for ev in events:
            if type(ev) is not dict:
                continue
            pid = _key(ev.get("pid"))
            group = groups.get(pid)
            if group is None:
                group = groups[pid] = []
            group.append(ev)
            if ev.get("ph") == "M":
                args = ev.get("args")
                if type(args) is not dict:
                    continue
                if ev.get("name") == "process_name" and type(args.get("name")) is str:
                    self._names[pid] = args["name"]
                elif ev.get("name") == "process_labels" and type(args.get("labels")) is str:
                    self._labels[pid] = args["labels"]
        for pid, group in groups.items():
            collector = self._collectors.get(pid)
            if collector is None:
                collector = self._collectors[pid] = StatsCollector()
            collector.feed(group)

    def finish(self, report):
        sync = {}
        for collector in self._collectors.values():
            for domain, names in collector.stats.time.items():
                sync.setdefault(domain, {}).update(dict.fromkeys(names))
        processes = []
        for pid, collector in self._collectors.items():
            st = collector.finish(sync)
            if st.time:
                processes.append((self._names.get(pid) or f"process {pid}",
                                  self._rank(pid), st))
        report.extra[self.name] = processes

    def _rank(self, pid):
        return process_rank(self._names.get(pid, ""), self._labels.get(pid, ""))


def process_rank(name, labels):
    """The rank a process belongs to, from its ``process_labels`` (``rank R``) or its
    name (``rank R: ...``); None when neither says."""
    found = _RANK_LABEL.search(labels) or _RANK_NAME.match(name)
    return int(found.group(1)) if found else None


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
                "Avg": _ms(sum(totals) / len(totals)), "Slowest": f"rank {slowest}"}
    for domain, names in rows.items():   # the largest Max first: where stragglers are
        rows[domain] = dict(sorted(names.items(), key=lambda kv: (-kv[1]["Max"], kv[0])))
    return rows


def sections(report, options):
    """Add ``Time by process`` and ``Rank spread`` (``--by-process``), honouring
    ``--domain``, ``--sort-by``/``--ascending`` and ``--top``."""
    processes = report.extra.get(ByProcess.name)
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
