"""The page of ``xprof diff --report``: one self-contained HTML file, as ``xprof report``'s.

The same inline CSS and table script (``render.py``), no request leaving the page: the
wall time and the critical path's change in one sentence, the matched rows by impact
(sortable, searchable), rows added and removed, custom-op call changes, the custom ops'
Python lines whose share moved, memory peaks.
"""
from __future__ import annotations

from html import escape

from xprof.mxcli.analysis.diff import label
from xprof.mxcli.render.html.render import CSS, JS, _name_cell, _num_cell, _section, _unavailable

MAX_ROWS = 500


def _rows_table(rows):
    head = ("<thead><tr><th class='text'>Row</th><th class='text'>Input shapes</th>"
            "<th>Calls A</th><th>Calls B</th><th>Median A (ms)</th><th>Median B (ms)</th>"
            "<th>P90 A (ms)</th><th>P90 B (ms)</th><th>B/A</th><th class='text'>Significant</th>"
            "<th>Total change (ms)</th><th>Impact on wall (ms)</th></tr></thead>")
    body = "".join(
        f"<tr>{_name_cell(label(r))}{_name_cell(r.get('shapes') or '')}"
        + _num_cell(r["a"]["count"], f"{r['a']['count']:,}")
        + _num_cell(r["b"]["count"], f"{r['b']['count']:,}")
        + _num_cell(r["a"]["median_ms"]) + _num_cell(r["b"]["median_ms"])
        + _num_cell(r["a"]["p90_ms"]) + _num_cell(r["b"]["p90_ms"])
        + _num_cell(r["ratio"], f"{r['ratio']:.3f}")
        + f"<td class='text'>{'yes' if r['significant'] else ''}</td>"
        + _num_cell(r["change_ms"], f"{r['change_ms']:+,.3f}")
        + _num_cell(r["impact_ms"], f"{r['impact_ms']:+,.3f}") + "</tr>"
        for r in rows[:MAX_ROWS])
    search = ('<input type="search" placeholder="Search rows" aria-label="Search rows" '
              'data-filter="diff-rows">')
    more = (f'<p class="note">The first {MAX_ROWS:,} of {len(rows):,} rows; '
            f'<code>xprof diff --format json</code> lists them all.</p>'
            if len(rows) > MAX_ROWS else "")
    return (search + f'<table id="diff-rows" data-sortable>{head}<tbody>{body}</tbody>'
            f'</table>' + more)


def _list(group, what):
    if not group:
        return f'<p class="note">No row {what}.</p>'
    head = ("<thead><tr><th class='text'>Row</th><th class='text'>Input shapes</th>"
            "<th>Calls</th><th>Median (ms)</th><th>Total (ms)</th></tr></thead>")
    body = "".join(
        f"<tr>{_name_cell(label(r))}{_name_cell(r.get('shapes') or '')}"
        + _num_cell(r["count"], f"{r['count']:,}")
        + _num_cell(r["median_ms"]) + _num_cell(r["total_ms"]) + "</tr>"
        for r in group[:MAX_ROWS])
    return f"<table data-sortable>{head}<tbody>{body}</tbody></table>"


def _custom(doc):
    ops = [c for c in doc["custom_ops"] if c.get("change_ms")]
    if not ops:
        return _unavailable("no custom-operator calls in both traces")
    keys = sorted({k for c in ops for k in c["change_ms"]})
    head = "<thead><tr><th class='text'>Op type</th>" + "".join(
        f"<th>{escape(k)} change (ms/call)</th>" for k in keys) + "</tr></thead>"
    body = "".join(
        f"<tr>{_name_cell(c['name'])}" + "".join(
            _num_cell(c["change_ms"].get(k), "" if c["change_ms"].get(k) is None
                      else f"{c['change_ms'][k]:+,.3f}") for k in keys) + "</tr>"
        for c in ops)
    return f"<table data-sortable>{head}<tbody>{body}</tbody></table>"


def _lines(doc):
    entries = [e for e in doc.get("python_lines") or [] if e["lines"]]
    if not entries:
        return _unavailable("no custom op has Python-line samples in both traces")
    head = ("<thead><tr><th class='text'>Op</th><th class='text'>Function</th>"
            "<th class='text'>File</th><th>Line</th><th>% A</th><th>% B</th>"
            "<th>Change (points)</th><th>Change (ms/call)</th>"
            "<th class='text'>Significant</th></tr></thead>")
    body = "".join(
        f"<tr>{_name_cell(e['op'])}{_name_cell(r['function'])}{_name_cell(r['file'])}"
        + _num_cell(r["line"], "" if r["line"] is None else str(r["line"]))
        + _num_cell(r["a"]["%"] if r["a"] else None, f"{r['a']['%']:.1f}" if r["a"] else "-")
        + _num_cell(r["b"]["%"] if r["b"] else None, f"{r['b']['%']:.1f}" if r["b"] else "-")
        + _num_cell(r["change_points"], f"{r['change_points']:+.1f}")
        + _num_cell(r["change_per_call_ms"], "" if r["change_per_call_ms"] is None
                    else f"{r['change_per_call_ms']:+,.3f}")
        + f"<td class='text'>{'yes' if r['significant'] else ''}</td></tr>"
        for e in entries for r in e["lines"][:MAX_ROWS])
    note = ("<p class='note'>Each line's share of its op's Python time, sampled (xprof "
            "stats --lines), in A and B; significant: the change exceeds both runs' "
            "sampling errors combined (95%).</p>")
    return note + f"<table data-sortable>{head}<tbody>{body}</tbody></table>"


def render(doc):
    w, m, cpath = doc["wall"], doc["memory"], doc["critical_path"]
    title = f"xprof diff: {doc['a']} vs {doc['b']}"
    items = [("A (before)", doc["a"]), ("B (after)", doc["b"]),
             ("Wall time", f"{w['a_ms']:,.3f} ms -> {w['b_ms']:,.3f} ms "
                           f"({w['change_ms']:+,.3f} ms)"),
             ("Critical path", cpath["summary"] if cpath["available"] else cpath["reason"]),
             ("Memory peak", "not recorded" if m["change_kb"] is None else
              f"{m['a_peak_kb']:,.0f} kB -> {m['b_peak_kb']:,.0f} kB ({m['change_kb']:+,.0f} kB)")]
    summary = "".join(f"<dt>{escape(k)}</dt><dd>{escape(str(v))}</dd>" for k, v in items)
    body = (_section("summary", "Summary", f'<dl class="kv">{summary}</dl>')
            + _section("rows", "Matched rows: significant changes first, by impact on wall time", _rows_table(doc["rows"]))
            + _section("added", "Added (only in B)", _list(doc["added"], "added"))
            + _section("removed", "Removed (only in A)", _list(doc["removed"], "removed"))
            + _section("custom", "Custom-operator calls", _custom(doc))
            + _section("python-lines", "Custom operators' Python lines", _lines(doc)))
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; "
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
            f"<header><h1>{escape(title)}</h1><p>{escape(cpath['summary'])}</p></header>"
            f"<main>{body}</main><script>{JS}</script></body></html>")
