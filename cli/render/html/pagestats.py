"""The statistics rows the report page shows, picked before their JSON rows are made.

Why: the page's operator table shows the first ``limit`` rows by self time (``render.py``:
``operator_rows``), whatever the trace holds. A trace of a million distinct names has a
million time rows, and making each one's JSON row (``shared/stats.py:time_row``: a dict,
six roundings) for a page that shows 300 of them took most of ``xprof report``'s time
and memory. :func:`page_stats` keeps, out of a :class:`~xprof.traces.stats.Stats`, every
row that can be among those the page shows, with the same values, so the rows, their
order and the figures drawn are those of the whole document:

* in the API domains only the sync waits (their own table); the other API rows (the
  time to push each call) are ``xprof stats``' to list;
* the custom-operator domain whole (the ``Custom Operator Calls`` section derives rows
  of op types without call spans from it);
* in the other domains, the first ``limit`` rows in the table's order (self time as the
  document rounds it, to 1 ns, largest first, then domain and name), found among the
  rows whose self time reaches the ``limit``-th largest less 2 ns (no row below that
  can rank among them).

Memory, counters, self times and the span are kept as they are, and every domain (maybe
with no row). :func:`page_statistics` leaves out, before they become rows, those
:func:`candidates` says cannot be shown.
"""
from __future__ import annotations

import heapq

import numpy as np

from xprof.traces.callstats import CATEGORY as CUSTOM_OPERATOR
from xprof.traces.stats import _MS_DIGITS, _PS_PER_MS, Stats

from xprof.mxcli.analysis.flat import API_DOMAINS, is_sync_wait

_MARGIN_PS = 2000   # two 1-ns steps of the rounded Self: ranks cannot cross it


def page_statistics(tl, limit):
    """``(Stats, operator rows)``: the statistics of a ``Trace`` as the page needs them
    (:func:`page_stats`), and how many operator rows the whole statistics hold. The
    rows :func:`candidates` says cannot be shown are left out before they become rows
    (``trace_stats.time_stats(keep=...)``), so a trace of a million names never holds a
    million rows."""
    from xprof.mxcli.analysis.trace_stats import time_stats

    stats, dropped = time_stats(tl, keep=lambda *cols: candidates(*cols, limit=limit))
    left = sum(n for d, n in dropped.items() if d not in API_DOMAINS)
    stats, rows = page_stats(stats, limit)
    return stats, rows + left


def candidates(domains, names, count, total, self_ps, limit):
    """Which rows (by row id: their domain and name, count, total and self time in ps)
    may be on the page: every custom-operator row, the API domains' sync waits, and the
    other rows whose self time reaches the ``limit``-th largest less 2 ns, at most the
    first ``limit`` of them in the table's order (as :func:`page_stats` picks: a superset
    of its choice; a row of count 0 is none)."""
    n = len(count)
    api = np.fromiter((d in API_DOMAINS for d in domains), dtype=bool, count=n)
    custom = np.fromiter((d == CUSTOM_OPERATOR for d in domains), dtype=bool, count=n)
    waits = np.zeros(n, dtype=bool)
    for r in np.flatnonzero(api).tolist():
        waits[r] = is_sync_wait(domains[r], names[r])
    live = count > 0
    ranked = live & ~api & ~custom
    floor = None
    if np.count_nonzero(ranked) > limit:   # the limit-th largest, the others at the bottom
        ranks = np.where(ranked, self_ps, np.iinfo(np.int64).min)
        ranks.partition(len(ranks) - limit)
        floor = int(ranks[len(ranks) - limit]) - _MARGIN_PS
        del ranks
    near = ranked if floor is None else ranked & (self_ps >= floor)
    if floor is not None and np.count_nonzero(near) > limit:
        # ties at the floor (a trace of few distinct durations: a seventh of a million
        # rows): the first ``limit`` in the table's order, as page_stats orders them,
        # a heap of ``limit`` at a time
        ids = np.flatnonzero(near).tolist()
        first = heapq.nsmallest(limit, ((-round(p / _PS_PER_MS, _MS_DIGITS), domains[r],
                                         names[r], r)
                                        for r, p in zip(ids, self_ps[ids].tolist())))
        near = np.zeros(n, dtype=bool)
        near[[r for *_, r in first]] = True
    return live & (near | custom | (api & waits))


def page_stats(stats, limit):
    """``(picked Stats, rows)``: the statistics the page needs (see the module
    docstring) and how many operator rows the whole statistics hold (every domain but
    the API calls), which the table's note counts."""
    picked = Stats()
    picked.memory, picked.counter = stats.memory, stats.counter
    picked.inner, picked.span, picked.calls = stats.inner, stats.span, stats.calls
    ranked = {d: names for d, names in stats.time.items() if d not in API_DOMAINS}
    rows = sum(map(len, ranked.values()))
    for domain, names in stats.time.items():
        if domain in API_DOMAINS:
            picked.time[domain] = {n: e for n, e in names.items() if is_sync_wait(domain, n)}
    if rows <= limit:
        picked.time.update(ranked)
        return picked, rows
    selfs = []
    for domain, names in ranked.items():
        inner = stats.inner.get(domain, {})
        selfs.extend(e[1] - inner.get(n, 0) for n, e in names.items())
    floor = heapq.nlargest(limit, selfs)[-1] - _MARGIN_PS
    del selfs
    near = []   # (-Self as the table shows it, domain, name): the table's order
    for domain, names in ranked.items():
        if domain == CUSTOM_OPERATOR:
            picked.time[domain] = names
            continue
        inner = stats.inner.get(domain, {})
        near.extend((-round((e[1] - inner.get(n, 0)) / _PS_PER_MS, _MS_DIGITS), domain, n)
                    for n, e in names.items() if e[1] - inner.get(n, 0) >= floor)
    for _, domain, name in heapq.nsmallest(limit, near):
        picked.time.setdefault(domain, {})[name] = stats.time[domain][name]
    for domain in stats.time:   # every domain stays known (the overview names the kind
        picked.time.setdefault(domain, {})   # of trace by them)
    return picked, rows
