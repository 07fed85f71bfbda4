"""``xprof stats --flat``: one ranking of every time row across domains.

Why: per-domain tables answer "which op is slowest?" once per domain, and the top of
the API table is usually a sync wait (``waitall`` blocks for everything queued before
it). The flat table ranks the time rows of all (selected) domains by the sort key in one
list, the domain as a column, and leaves the API domain's sync waits out unless
``--include-waits``: their time is other rows' time, waited for.

The document becomes ``{"Flat": [{"Domain", "Name", "Count", "Total", "Self", "%",
"Min", "Max", "Avg"}, ...], "Unit": ...}`` (a list: the ranking is the order); ``--top``
keeps the first N rows of the list.
"""
from __future__ import annotations

from xprof.traces import stats as S

SECTION = "Flat"
# The API domains' names for calls that block until work is done: xprof's, MXNet 1.x's.
API_DOMAINS = frozenset({"API", "MXNET_C_API"})
SYNC_WAITS = frozenset({
    "waitall", "wait_to_read", "wait_to_write", "asnumpy", "asscalar", "wait_for_var",
    "MXNDArrayWaitAll", "MXNDArrayWaitToRead", "MXNDArrayWaitToWrite",
    "MXNDArraySyncCopyToCPU",
})


def is_sync_wait(domain, name):
    return domain in API_DOMAINS and name in SYNC_WAITS


def flat_rows(stats, sort_by, ascending, domains=frozenset(), include_waits=False):
    """Every time row as a JSON row with ``Domain`` and ``Name``, ranked (ties: domain, name)."""
    wall = stats.wall_ps()
    rows = []
    for domain in sorted(stats.time):
        if domains and domain not in domains:
            continue
        for name, entry, self_ps in S.time_items(stats, domain, sort_by, ascending):
            if include_waits or not is_sync_wait(domain, name):
                rows.append({"Domain": domain, "Name": name, **S.time_row(entry, self_ps, wall)})
    rows.sort(key=lambda r: S.sort_value(r, sort_by), reverse=not ascending)   # stable
    return rows


def flatten(report, options):
    """With ``--flat``, replace the document by the one ranked table of time rows."""
    if not options.flat:
        return report
    rows = flat_rows(report.stats, options.sort_by, options.ascending, options.domains,
                     options.include_waits)
    if options.top:
        rows = rows[:options.top]
    report.doc = {SECTION: rows, "Unit": report.doc.get("Unit", {"Time": "ms"})}
    return report


def table_cells(rows):
    """``(headers, rows of strings)`` of the flat table: the text and the rich table."""
    headers = ["Name", "Domain", "Count", "Total (ms)", "Self (ms)", "%", "Min (ms)", "Max (ms)",
               "Avg (ms)"]
    body = [[r["Name"], r["Domain"], str(r["Count"]), f"{r['Total']:.4f}", f"{r['Self']:.4f}",
             f"{r['%']:.2f}" if "%" in r else "-",
             *(f"{r[k]:.4f}" for k in ("Min", "Max", "Avg"))] for r in rows]
    return headers, body


def text(rows):
    """The plain-text flat table, aligned like ``render_text``'s."""
    headers, body = table_cells(rows)
    if not body:
        return "No profiling records.\n"
    widths = [max(len(h), *(len(c[i]) for c in body)) for i, h in enumerate(headers)]

    def fmt(cols):
        left = [c.ljust(w) for c, w in zip(cols[:2], widths[:2])]
        right = [c.rjust(w) for c, w in zip(cols[2:], widths[2:])]
        return "  ".join(left + right).rstrip()

    lines = [SECTION, "=" * len(SECTION), fmt(headers), fmt(["-" * len(h) for h in headers])]
    return "\n".join(lines + [fmt(c) for c in body]) + "\n"
