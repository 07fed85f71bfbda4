"""Render the collected report documents (``collect.py``) as one self-contained HTML page.

Why one file with everything inline (CSS, a few lines of JavaScript for sorting and
searching the operator table, SVG charts drawn by ``svg.py``): it is read from disk,
attached to a ticket or mailed, with no server and no request leaving the page. Every
section either shows its data or says in one sentence why it cannot ("unavailable"),
so a reader of an MXNet or PyTorch trace knows what is missing and why.

Sizes stay bounded whatever the trace: the operator table keeps the first
:data:`MAX_OPERATOR_ROWS` rows by self time, bar charts the first :data:`MAX_BARS`,
memory lines are downsampled by the collector.
"""
from __future__ import annotations

from html import escape

from xprof.mxcli.analysis.flat import API_DOMAINS, is_sync_wait
from xprof.mxcli.render.html import svg

MAX_OPERATOR_ROWS = 300
# key of the stats document: how many operator rows the trace has, when the document
# holds only those the page can show (collect.py, pagestats.py)
OPERATOR_ROWS = "Operator rows"
MAX_BARS = 15
CALL_PARTS = ("Queued", "Python", "Blocked", "Tail")             # add up to the latency
CALL_SPLIT_PARTS = ("Inputs", "Pool", "Python", "Blocked", "Tail")   # Queued split
# and Inputs split too: the wait behind earlier queued work, and while its producer ran
CALL_INPUT_PARTS = ("Backlog", "Producer", "Pool", "Python", "Blocked", "Tail")
PATH_KINDS = ("op", "queue", "dependency", "python", "blocked")

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2330;
background:#f6f7f9}
header{background:#22304a;color:#fff;padding:16px 28px}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;opacity:.8}
main{padding:8px 28px 40px;max-width:1200px}
section{background:#fff;border:1px solid #dde1e8;border-radius:6px;margin:16px 0;padding:12px 18px}
h2{font-size:16px;margin:4px 0 10px}
.unavailable{color:#7a6200;background:#fff8dc;border-left:4px solid #e0b400;padding:6px 10px}
table{border-collapse:collapse;width:100%}th,td{padding:3px 8px;text-align:right;
border-bottom:1px solid #eef0f3;white-space:nowrap}
th:first-child,td:first-child,th.text,td.text{text-align:left}
td.text{white-space:normal;word-break:break-all}
th.sortable{cursor:pointer;user-select:none}th.sortable:after{content:" \\2195";opacity:.35}
th[aria-sort=ascending]:after{content:" \\2191";opacity:1}
th[aria-sort=descending]:after{content:" \\2193";opacity:1}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 18px;margin:0}
dl.kv dt{color:#5a6473}dl.kv dd{margin:0;word-break:break-all}
input[type=search]{width:320px;padding:4px 8px;margin:0 0 8px;border:1px solid #c5cbd5;
border-radius:4px}
.note{color:#5a6473;font-size:12px}
svg.chart{max-width:100%;height:auto;font-size:12px;fill:#1d2330}
svg .axis{stroke:#8a93a3}svg .line{stroke-width:1.5}
.k0{fill:#4e79a7;stroke:#4e79a7}.k1{fill:#f28e2b;stroke:#f28e2b}.k2{fill:#e15759;stroke:#e15759}
.k3{fill:#76b7b2;stroke:#76b7b2}.k4{fill:#59a14f;stroke:#59a14f}.k5{fill:#b07aa1;stroke:#b07aa1}
polyline.k0,polyline.k1,polyline.k2,polyline.k3,polyline.k4,polyline.k5{fill:none}
.k0-text{fill:#4e79a7}.k1-text{fill:#f28e2b}.k2-text{fill:#e15759}.k3-text{fill:#76b7b2}
ul.findings li{margin:4px 0}
"""

# Sorting (click a header) and searching (type in the box) of tables marked
# data-sortable; cells sort by their data-v number when they have one.
JS = """
(function(){
  function key(row,i){var c=row.cells[i];var v=c.getAttribute('data-v');
    return v===null?c.textContent.toLowerCase():parseFloat(v);}
  document.querySelectorAll('table[data-sortable]').forEach(function(table){
    var heads=table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads,function(th,i){
      th.classList.add('sortable');
      th.addEventListener('click',function(){
        var asc=th.getAttribute('aria-sort')!=='ascending';
        Array.prototype.forEach.call(heads,function(h){h.removeAttribute('aria-sort');});
        th.setAttribute('aria-sort',asc?'ascending':'descending');
        var body=table.tBodies[0];var rows=Array.prototype.slice.call(body.rows);
        rows.sort(function(a,b){var x=key(a,i),y=key(b,i);
          return (x<y?-1:x>y?1:0)*(asc?1:-1);});
        rows.forEach(function(r){body.appendChild(r);});
      });
    });
  });
  document.querySelectorAll('input[data-filter]').forEach(function(box){
    var table=document.getElementById(box.getAttribute('data-filter'));
    box.addEventListener('input',function(){
      var q=box.value.toLowerCase();
      Array.prototype.forEach.call(table.tBodies[0].rows,function(r){
        r.hidden=q!=='' && r.textContent.toLowerCase().indexOf(q)<0;});
    });
  });
})();
"""


def _ms(v):
    return "" if v is None else f"{v:,.3f}"


def _num_cell(v, text=None):
    if v is None:
        return "<td></td>"
    return f'<td data-v="{v}">{escape(text if text is not None else _ms(v))}</td>'


DISPLAY_LIMIT = 160   # characters of a name shown in a table cell (all of it, bounded, on hover)


def _name_cell(name):
    """A table cell with a name: shown up to :data:`DISPLAY_LIMIT` characters, the name
    (bounded: ``svg.bounded``) in its title, escaped, so a huge name keeps the page small."""
    name = svg.bounded(name)
    if len(name) <= DISPLAY_LIMIT:
        return f"<td class='text'>{escape(name)}</td>"
    return (f"<td class='text' title=\"{escape(name)}\">"
            f"{escape(name[:DISPLAY_LIMIT - 1])}\u2026</td>")


def _section(sid, title, body):
    return f'<section id="{sid}"><h2>{escape(title)}</h2>{body}</section>'


def _unavailable(reason):
    return f'<p class="unavailable">Unavailable: {escape(reason)}.</p>'


def overview(doc):
    ov = doc["overview"]
    items = [("Trace", doc["path"]), ("Kind", ov["kind"]),
             ("Script", ov.get("script") or "not recorded in the trace"),
             ("Engine", ov.get("engine") or "unknown (not recorded in the trace)"),
             ("Started", ov.get("start_time")),
             ("Wall time", svg.fmt_ms(ov["wall_ms"])),
             ("Events", f"{ov['events']:,}"),
             ("Threads", f"{len(ov['threads'])}: " + ", ".join(svg.bounded(t, 200)
                                                              for t in ov["threads"][:40])
              + (" \u2026" if len(ov["threads"]) > 40 else ""))]
    body = "".join(f"<dt>{escape(k)}</dt><dd>{escape(svg.bounded(str(v), 10_000))}</dd>"
                   for k, v in items if v is not None)
    return _section("overview", "Overview", f'<dl class="kv">{body}</dl>')


def operator_rows(stats):
    """``(rows, waits, has_self)``: ``(domain, name, row)`` of every operator time row
    (every domain but the API calls), largest self time first (total when the
    statistics carry no self time); the API domain's sync waits apart (``waitall``
    blocks for everything queued before it: its time is the operators' time, waited
    for); and whether self time was there. The other API rows (the time to push each
    call) are ``xprof stats``' to list."""
    rows, waits = [], []
    for domain, table in stats.get("Time", {}).items():
        for name, row in table.items():
            if is_sync_wait(domain, name):
                waits.append((domain, name, row))
            elif domain not in API_DOMAINS:
                rows.append((domain, name, row))
    has_self = any("Self" in row for _, _, row in rows + waits)
    field = "Self" if has_self else "Total"
    for group in (rows, waits):
        group.sort(key=lambda r: (-(r[2].get(field) or 0), r[0], r[1]))
    return rows, waits, has_self


def _time_table(rows, table_id=None):
    head = ("<thead><tr><th class='text'>Domain</th><th class='text'>Name</th><th>Calls</th>"
            "<th>Self (ms)</th><th>Total (ms)</th><th>Avg (ms)</th><th>Min (ms)</th>"
            "<th>Max (ms)</th></tr></thead>")
    body = []
    for domain, name, r in rows:
        body.append(f"<tr>{_name_cell(domain)}{_name_cell(name)}"
                    + _num_cell(r.get("Count"), f"{r.get('Count', 0):,}")
                    + _num_cell(r.get("Self")) + _num_cell(r.get("Total"))
                    + _num_cell(r.get("Avg")) + _num_cell(r.get("Min"))
                    + _num_cell(r.get("Max")) + "</tr>")
    ident = f' id="{table_id}"' if table_id else ""
    return f'<table{ident} data-sortable>{head}<tbody>{"".join(body)}</tbody></table>'


def top_operators(doc):
    rows, waits, has_self = operator_rows(doc["stats"])
    if not rows and not waits:
        return _section("operators", "Top operators by self time",
                        _unavailable("the trace holds no timed events"))
    note = ("" if has_self else
            '<p class="unavailable">Self time is not in these statistics; rows are ordered '
            'by total time.</p>')
    total = doc["stats"].get(OPERATOR_ROWS, len(rows))
    more = (f'<p class="note">The first {MAX_OPERATOR_ROWS:,} of {total:,} rows; '
            f'<code>xprof stats</code> lists them all.</p>' if total > MAX_OPERATOR_ROWS
            else "")
    search = ('<input type="search" placeholder="Search operators" aria-label="Search operators" '
              'data-filter="operators-table">')
    body = note + search + _time_table(rows[:MAX_OPERATOR_ROWS], "operators-table") + more
    if waits:
        body += ('<h3>Waiting at sync points</h3><p class="note">Time the script blocked '
                 'until the engine had done the work above (not an operator of its own).</p>'
                 + _time_table(waits))
    return _section("operators", "Top operators by self time", body)


def custom_op_calls(doc):
    """The custom-op section: a stacked bar per op type (Inputs, Pool, Python, Blocked,
    Tail, or Queued whole when a row cannot split it), one sentence per op type on what
    dominates (``callstats.headline``, naming the op its inputs waited for from
    ``doc["call_inputs"]``), and the per-call table."""
    from xprof.traces.callstats import headline

    calls = doc["stats"].get("Custom Operator Calls")
    title = "Custom operator calls: where a call's latency goes"
    if not calls:
        reason = ("the statistics hold no custom-operator call breakdown"
                  + (" (it comes from xprof traces of custom operators)"
                     if doc["overview"]["kind"] != "xprof" else
                     " (no custom-operator call in this trace)" if calls == {} else
                     " (this build's xprof stats does not compute it)"))
        return _section("custom-ops", title, _unavailable(reason))
    # ranked by the op's own cost over its calls (the section's order: a loop running
    # ahead makes every call's latency mostly backlog, which is no op's own doing)
    ordered = list(calls.items())[:MAX_BARS]
    split = all(row.get("Inputs") is not None for _, row in ordered)
    by_input = split and all(row.get("Backlog") is not None for _, row in ordered)
    parts = CALL_INPUT_PARTS if by_input else CALL_SPLIT_PARTS if split else CALL_PARTS
    bars = [(op, [row.get(p) or 0 for p in parts]) for op, row in ordered]
    chart = svg.stacked_bars(bars, parts, "Custom operator calls: " + ", ".join(parts)
                             + " (ms per call)", css_id="custom-op-bars")
    unknown = sorted({p for _, row in ordered for p in parts if row.get(p) is None})
    writers = doc.get("call_inputs") or {}
    says = ('<ul class="findings">' + "".join(
        f"<li><b>{escape(svg.bounded(op, DISPLAY_LIMIT))}</b>: "
        f"{escape(svg.bounded(headline(row, writers.get(op)), 4000))}</li>"
        for op, row in ordered) + "</ul>")
    columns = ("Queued", "Inputs", "Backlog", "Producer", "Pool", "Python", "Blocked", "Tail",
               "Own", "Ahead", "Sub-operators", "Setup")
    head = ("<thead><tr><th class='text'>Operator</th><th>Calls</th><th>Latency/call</th>"
            "<th>P50</th><th>P95</th><th>Max</th>"
            + "".join(f"<th>{p}</th>" for p in columns) + "</tr></thead>")
    body = []
    for op, row in ordered:
        lat = row.get("Latency") or {}
        body.append(f"<tr>{_name_cell(op)}"
                    + _num_cell(row.get("Count"), f"{row.get('Count', 0):,}")
                    + "".join(_num_cell(lat.get(k)) for k in ("Avg", "P50", "P95", "Max"))
                    + "".join(_num_cell(row.get(p), None if p != "Ahead" or row.get(p) is None
                                        else f"{row[p]:.1f}") for p in columns)
                    + "</tr>")
    table = f'<table data-sortable>{head}<tbody>{"".join(body)}</tbody></table>'
    note = ('<p class="note">Per call, on average (ms): Queued, pushed until its Python '
            'code starts on a custom-operator thread, made of Inputs (until its input '
            'arrays are written: Backlog, earlier queued work before the op writing them '
            'started, then Producer, while that op ran) and Pool (then until a '
            'custom-operator thread takes it); Python, that code running; Blocked, that '
            'code waiting at sync points; Tail, its outputs not ready yet after it returned '
            '(sub-operators finishing). Own = Python + Blocked + Tail, what the op itself '
            'takes: the rows are ranked by it over their calls. Ahead: how many earlier '
            'calls of the op were still in flight when a call was pushed (median), the '
            'steps a loop runs ahead. Beside the sum: Sub-operators, their engine run time '
            '(overlaps the rest), and Setup, the Python time of creating the operator '
            '(create_operator).</p>')
    if unknown:
        note += (f'<p class="unavailable">Unknown for some op types (no call spans in the '
                 f'trace, as in MXNet 1.x traces): {escape(", ".join(unknown))}; blank in the '
                 f'table, not drawn.</p>')
    elif not split:
        note += ('<p class="unavailable">Inputs and Pool are unknown for some op types '
                 '(a trace written before xprof split Queued): Queued is drawn whole.</p>')
    return _section("custom-ops", title, chart + says + note + table)


def python_lines(doc):
    """Per custom op type, the lines its Python time went to (the first rows of ``xprof
    stats --lines``), with the sampling error."""
    title = "Custom operators: which lines their Python time went to"
    lines = doc.get("python_lines")
    if not lines:
        return _section("python-lines", title, _unavailable(
            "the trace holds no Python-line samples (xprof run samples custom operators' "
            "code every XPROF_PROFILER_SAMPLE_INTERVAL_MS, default 1 ms)"))
    parts = []
    ordered = sorted(lines["rows"].items(),
                     key=lambda kv: -(lines["summary"][kv[0]]["python_ms"]
                                      or lines["summary"][kv[0]]["sampled_ms"]))[:MAX_BARS]
    for op, rows in ordered:
        s = lines["summary"][op]
        py = "" if s["python_ms"] is None else f"{s['python_ms']:,.3f} ms Python, "
        if s.get("op_calls") and s["op_calls"] > s["calls"]:   # (shares: of the sampled)
            py += f"{s['calls']:,} of {s['op_calls']:,} calls sampled, "
        head = ("<thead><tr><th class='text'>Function</th><th class='text'>File</th>"
                "<th>Line</th><th>Self (ms)</th><th>%</th><th>\u00b1%</th></tr></thead>")
        body = "".join(
            f"<tr>{_name_cell(r['function'])}{_name_cell(r['file'])}"
            + _num_cell(r["line"], "" if r["line"] is None else str(r["line"]))
            + _num_cell(r["self_ms"]) + _num_cell(r["%"], f"{r['%']:.1f}")
            + _num_cell(r["±%"], f"{r['±%']:.1f}") + "</tr>" for r in rows)
        parts.append(f"<h3>{escape(svg.bounded(op, DISPLAY_LIMIT))}</h3>"
                     f"<p class='note'>{escape(py)}{s['samples']:,} samples; shares "
                     f"\u00b1{s['error_%']:.1f} points at most (95%)</p>"
                     f"<table data-sortable>{head}<tbody>{body}</tbody></table>")
    note = ("<p class='note'>Self time by line, sampled: each sample counts for the "
            "innermost line of your code on the stack (a wait at a sync point is its "
            "blocked row); % is of the op's Python time. All rows: xprof stats --lines."
            "</p>")
    return _section("python-lines", title, note + "".join(parts))


THREAD_PARTS = ("busy_ms", "blocked_ms", "idle_ms")


def critical_path(doc):
    title = "Critical path and thread use"
    ex = doc.get("explain")
    if not ex:
        return _section("critical-path", title,
                        _unavailable(doc["unavailable"].get("explain", "no explain data")))
    by_kind = {**dict.fromkeys(PATH_KINDS, 0.0), **(ex.get("composition_ms") or {})}
    parts = [k for k in by_kind if by_kind[k] > 0] or list(PATH_KINDS)
    out = [] if ex.get("dependencies", True) else [_unavailable(
        "the engine's dependency records (this trace has none; the xprof engine writes "
        "them), so this path assumes each thread's ops ran one after another "
        "(per-thread serial)")]
    out += [f'<p>Wall time {escape(svg.fmt_ms(ex.get("wall_ms") or 0))}, critical path '
            f'{escape(svg.fmt_ms(ex.get("critical_path_ms") or 0))}.</p>',
            svg.stacked_bars([("critical path", [by_kind[k] for k in parts])], parts,
                             "Critical path by kind of wait", css_id="critical-path-kinds")]
    by_name = sorted((ex.get("by_name") or {}).items(), key=lambda kv: -kv[1])[:MAX_BARS]
    if by_name:
        out.append("<h3>Operators on the critical path (run time on it)</h3>")
        out.append(svg.stacked_bars([(n, [ms]) for n, ms in by_name], ["run time on the path"],
                                    "Operators on the critical path", css_id="critical-path-ops"))
    threads = sorted((ex.get("threads") or {}).items(),
                     key=lambda kv: (-(kv[1].get("busy_ms") or 0), kv[0]))
    if threads:
        out.append("<h3>Threads: busy, blocked and idle</h3>")
        out.append(svg.stacked_bars(
            [(n, [t.get(k) or 0 for k in THREAD_PARTS]) for n, t in threads[:40]],
            ["busy", "blocked", "idle"], "Per-thread busy, blocked and idle time",
            css_id="thread-bars"))
        out.append('<p class="note">Busy: running an op or Python code; blocked: waiting '
                   'at a sync point (<code>waitall</code>, <code>wait_to_read</code>, '
                   '<code>asnumpy</code>, <code>asscalar</code>), on the main thread or '
                   'inside a custom op\'s <code>forward</code>; idle: nothing to run. '
                   'As <code>xprof explain</code> reports them.</p>')
    helps = ex.get("what_would_help") or []
    if helps:
        replay = ex.get("replay") or {}
        head = ("<thead><tr><th class='text'>Op</th><th>On the path</th>"
                "<th>Gain if 2x faster</th><th>Gain if free</th><th>Slack</th></tr></thead>")
        body = "".join(
            f"<tr>{_name_cell(r['name'])}{_num_cell(r['path_ms'])}"
            f"{_num_cell(r['gain_2x_ms'])}{_num_cell(r['gain_free_ms'])}"
            f"{_num_cell(r['slack_ms']) if r.get('slack_ms') is not None else '<td></td>'}"
            "</tr>" for r in helps)
        out.append("<h3>What would help</h3>"
                   f'<table data-sortable id="what-would-help">{head}<tbody>{body}</tbody>'
                   "</table>"
                   '<p class="note">The run replayed from its dependency records with '
                   'each op 2x faster, and taking no time (the ceiling): the wall time '
                   'gained (ms). An op with slack gains nothing. Any change: '
                   "<code>xprof explain --what-if 'OP=0.5x'</code>; check one with "
                   "<code>xprof run --slow 'OP=2x'</code>."
                   + (f' The unchanged replay: {replay["replayed_ms"]:,.3f} ms against '
                      f'{replay["recorded_ms"]:,.3f} ms recorded.' if replay else "")
                   + "</p>")
    findings = ex.get("findings") or []
    if findings:
        out.append('<h3>Findings</h3><ul class="findings">' + "".join(
            f"<li>{escape(svg.bounded(str(f.get('text', '')), 4000))}"
            + (f" <span class='note'>({escape(str(f['figure']))})</span>"
               if f.get("figure") not in (None, "") else "") + "</li>"
            for f in findings) + "</ul>")
    return _section("critical-path", title, "".join(out))


def memory(doc):
    title = "Memory over time"
    series = doc.get("memory") or {}
    if not series:
        return _section("memory", title, _unavailable(
            "the trace holds no memory counters (xprof run records them with --mode "
            "including memory)"))
    chart = svg.step_line({n: s for n, s in list(series.items())[:6]},
                          "Memory allocated over time", y_unit=_bytes,
                          x_range=(0, max(doc["overview"]["wall_ms"],
                                          max(x for xs, _ in series.values() for x in xs))))
    peaks = ", ".join(f"{escape(n)} peak {escape(_bytes(max(v)))}"
                      for n, (_, v) in series.items() if v)
    return _section("memory", title, chart + f'<p class="note">{peaks}</p>')


def allocations(doc):
    title = "Largest allocations"
    al = doc.get("allocations")
    if not al:
        return _section("allocations", title, _unavailable(
            "no allocation list next to the trace: run the script with "
            "XPROF_PROFILER_MEMORY_PREFIX=mem (xprof run writes mem-pid_<pid>.csv beside "
            "the trace), or pass --memory-csv FILE"))
    head = ("<thead><tr><th class='text'>Attribute</th><th class='text'>Device</th>"
            "<th>Bytes</th><th>Requested</th><th class='text'>Reuse</th></tr></thead>")
    body = "".join(
        f"<tr>{_name_cell(r['name'])}<td class='text'>{escape(r['device'])}"
        f"</td>{_num_cell(r['bytes'], format(r['bytes'], ','))}"
        f"<td>{escape(str(r['requested']))}</td><td class='text'>{escape(r['reuse'])}</td></tr>"
        for r in al["rows"])
    note = (f'<p class="note">{len(al["rows"]):,} largest of {al["total_rows"]:,} allocations '
            f'({escape(_bytes(al["total_bytes"]))} in all) from {escape(al["path"])}.</p>')
    return _section("allocations", title,
                    note + f'<table data-sortable>{head}<tbody>{body}</tbody></table>')


def _bytes(v):
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if abs(v) >= size:
            return f"{v / size:.3g} {unit}"
    return f"{v:g} B"


SECTIONS = (overview, top_operators, custom_op_calls, python_lines, critical_path, memory,
            allocations)


def render(doc):
    """The whole page for a collected document, as a string."""
    title = f"xprof report: {doc['path']}"
    body = "".join(section(doc) for section in SECTIONS)
    ov = doc["overview"]
    sub = f"{ov['kind']} trace, {ov['events']:,} events, {svg.fmt_ms(ov['wall_ms'])} wall time"
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; "
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
            f"<header><h1>{escape(title)}</h1><p>{escape(sub)}</p></header>"
            f"<main>{body}</main><script>{JS}</script></body></html>")
