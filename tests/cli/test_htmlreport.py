"""The report's renderer on hand-made documents of the documented shapes (the stats JSON
with "Self" and "Custom Operator Calls", the explain document), and its collector on
small traces: each section shows its data, or says why it cannot."""
from __future__ import annotations

import re

from cli_helpers import X, meta, write_trace

from xprof.mxcli.render.html import collect, render, svg


def _row(total, self_=None, count=1):
    row = {"Count": count, "Total": total, "Min": total / count, "Max": total / count,
           "Avg": total / count}
    if self_ is not None:
        row["Self"] = self_
    return row


def _doc(stats=None, explain=None, memory=None, allocations=None, kind="xprof"):
    return {"path": "t.json",
            "overview": {"kind": kind, "script": "train.py", "engine": "ThreadedEngine",
                         "start_time": None, "os_pid": 1, "events": 10, "wall_ms": 12.5,
                         "threads": ["main thread", "engine worker 0"], "t0_us": 0},
            "stats": stats or {"Time": {}}, "explain": explain, "memory": memory or {},
            "allocations": allocations,
            "unavailable": {} if explain else {"explain": "needs xprof explain"}}


def _section(page, sid):
    m = re.search(rf'<section id="{sid}">(.*?)</section>', page, re.S)
    assert m, sid
    return m.group(1)


def _names_in_order(html):
    return re.findall(r"<tr><td class='text'>[^<]*</td><td class='text'>([^<]*)</td>", html)


def test_operators_ordered_by_self_time_when_present():
    stats = {"Time": {"operator": {"big_total": _row(10.0, 1.0), "big_self": _row(5.0, 4.0)},
                      "Custom Operator": {"mid": _row(3.0, 2.0)}}}
    ops = _section(render.render(_doc(stats)), "operators")
    assert _names_in_order(ops) == ["big_self", "mid", "big_total"]
    assert "not in these statistics" not in ops
    assert 'data-filter="operators-table"' in ops and "data-sortable" in ops


def test_operators_fall_back_to_total_and_say_so():
    stats = {"Time": {"operator": {"a": _row(1.0), "b": _row(5.0)}}}
    ops = _section(render.render(_doc(stats)), "operators")
    assert _names_in_order(ops) == ["b", "a"]
    assert "Self time is not in these statistics" in ops


def test_operator_table_is_capped():
    table = {f"op{i}": _row(float(i), float(i)) for i in range(render.MAX_OPERATOR_ROWS + 50)}
    ops = _section(render.render(_doc({"Time": {"operator": table}})), "operators")
    assert len(_names_in_order(ops)) == render.MAX_OPERATOR_ROWS
    assert f"of {render.MAX_OPERATOR_ROWS + 50:,} rows" in ops


def test_custom_op_calls_stacked_bar_segments_in_proportion():
    calls = {"MyAddOne": {"Count": 4, "Latency": {"Total": 10.0, "Min": 2.0, "Max": 3.0,
                                                  "Avg": 2.5, "P50": 2.4, "P95": 2.9},
                          "Queued": 1.0, "Python": 4.0, "Blocked": 3.0, "Tail": 2.0,
                          "Sub-operators": 8},
             "Small": {"Count": 1, "Latency": {"Total": 1.0}, "Queued": 0.5, "Python": 0.5,
                       "Blocked": 0.0, "Tail": 0.0, "Sub-operators": 1}}
    sec = _section(render.render(_doc({"Time": {}, "Custom Operator Calls": calls})),
                   "custom-ops")
    assert "Unavailable" not in sec
    bar = re.search(r'<g class="bar" data-label="MyAddOne">(.*?)</g>', sec).group(1)
    widths = {p: float(w) for p, w in
              re.findall(r'data-part="(\w+)" x="[\d.]+" y="\d+" width="([\d.]+)"', bar)}
    assert list(widths) == ["Queued", "Python", "Blocked", "Tail"]   # in that order
    assert abs(sum(widths.values()) - svg.BAR_W) < 1   # the largest row spans the width
    assert abs(widths["Python"] / widths["Queued"] - 4) < 0.01
    assert abs(widths["Blocked"] / widths["Tail"] - 1.5) < 0.01
    small = re.search(r'<g class="bar" data-label="Small">(.*?)</g>', sec).group(1)
    assert "Blocked" not in small   # a zero part draws nothing


def test_custom_op_calls_unavailable_reasons():
    for kind, words in (("MXNet", "it comes from xprof traces"),
                        ("xprof", "does not compute it")):
        sec = _section(render.render(_doc(kind=kind)), "custom-ops")
        assert "Unavailable" in sec and words in sec
    sec = _section(render.render(_doc({"Time": {}, "Custom Operator Calls": {}})), "custom-ops")
    assert "no custom-operator call in this trace" in sec


EXPLAIN = {"wall_ms": 20.0, "critical_path_ms": 18.0,
           "composition_ms": {"op": 9.0, "queue": 3.0, "dependency": 0.0, "python": 6.0},
           "by_name": {"dot": 9.0},
           "threads": {"main thread": {"busy_ms": 6.0, "blocked_ms": 14.0, "idle_ms": 0.0},
                       "engine worker 0": {"busy_ms": 12.0, "blocked_ms": 0.0,
                                           "idle_ms": 8.0}},
           "findings": [{"text": "The engine waited on dot for 45% of the wall time.",
                         "figure": "9.0 ms"}]}


def test_critical_path_composition_threads_and_findings():
    sec = _section(render.render(_doc(explain=EXPLAIN)), "critical-path")
    kinds = re.search(r'id="critical-path-kinds".*?</svg>', sec, re.S).group(0)
    widths = dict(re.findall(r'data-part="(\w+)" x="[\d.]+" y="\d+" width="([\d.]+)"', kinds))
    assert set(widths) == {"op", "queue", "python"}
    assert abs(float(widths["op"]) / float(widths["queue"]) - 3) < 0.01
    threads = re.search(r'id="thread-bars".*?</svg>', sec, re.S).group(0)
    assert threads.index("engine worker 0") < threads.index("main thread")   # busiest first
    main = threads[threads.index('data-label="main thread"'):]
    parts = dict(re.findall(r'data-part="(\w+)" x="[\d.]+" y="\d+" width="([\d.]+)"', main))
    assert set(parts) == {"busy", "blocked"}                      # no idle time: no segment
    assert abs(float(parts["blocked"]) / float(parts["busy"]) - 14 / 6) < 0.01
    assert "The engine waited on dot for 45% of the wall time." in sec and "9.0 ms" in sec
    assert "Wall time 20 ms, critical path 18 ms" in sec


def test_sections_without_data_say_why():
    page = render.render(_doc())
    for sid in ("custom-ops", "critical-path", "memory", "allocations"):
        assert "Unavailable: " in _section(page, sid), sid
    assert "needs xprof explain" in _section(page, "critical-path")


def test_page_is_self_contained():
    page = render.render(_doc({"Time": {"operator": {"<b>x</b>": _row(1.0, 1.0)}}},
                              explain=EXPLAIN, memory={"Memory: cpu/0": ([0, 1], [0, 2048])}))
    assert not re.search(r"""(src|href)\s*=|https?://|url\(|@import""", page)
    assert "default-src 'none'" in page          # the browser refuses any request too
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page   # names escaped


def test_collect_overview_memory_and_allocations(tmp_path):
    events = meta(tid=1, thread="main thread") + meta(tid=2, thread="engine worker 0")[1:] + [
        X("a", 100, 50, tid=1), X("b", 200, 400, tid=2),
        {"name": "Memory: cpu/0", "cat": "Device Storage", "ph": "C", "ts": 150, "pid": 0,
         "tid": 1, "args": {"Memory: cpu/0": 4096}},
        {"name": "Memory: cpu/0", "cat": "Device Storage", "ph": "C", "ts": 300, "pid": 0,
         "tid": 1, "args": {"Memory: cpu/0": 1024}}]
    trace = write_trace(tmp_path / "t.json", events,
                        otherData={"xprof_version": "0", "command": "train.py",
                                   "engine": "NaiveEngine", "os_pid": 4242})
    (tmp_path / "mem-pid_4242.csv").write_text(
        "Attribute Name,Requested Size,Device,Actual Size,Reuse?\n"
        "<unk>:in_arg:data,400,cpu/0,400,false\nfc1:weight,9000,cpu/0,9000,false\n")
    doc = collect.collect(str(trace))
    ov = doc["overview"]
    assert (ov["kind"], ov["script"], ov["engine"], ov["events"]) == \
        ("xprof", "train.py", "NaiveEngine", len(events))
    assert ov["threads"] == ["engine worker 0", "main thread"]
    assert ov["wall_ms"] == 0.5                       # 100 us .. 600 us
    assert doc["memory"] == {"Memory: cpu/0": ([0.05, 0.2], [4096, 1024])}
    assert [r["name"] for r in doc["allocations"]["rows"]] == ["fc1:weight", "<unk>:in_arg:data"]
    assert doc["stats"]["Time"]["operator"]["b"]["Total"] == 0.4
    page = render.render(doc)
    assert "fc1:weight" in _section(page, "allocations")
    assert "4 kB" in _section(page, "memory")


def test_downsample_keeps_peaks_troughs_and_the_last_sample():
    samples = [(i, 50 + i % 100) for i in range(10_000)] + [(5_000.5, 10**9), (7_000.5, -5)]
    xs, ys = collect._downsample(samples, 0, limit=200)
    assert len(xs) <= 200 and max(ys) == 10**9 and min(ys) == -5
    assert xs[-1] == 9_999 / 1000 and xs == sorted(xs)
    assert ys.count(50) > 50 and ys.count(149) > 50     # every run's low and high


def test_custom_op_parts_unknown_are_not_drawn_and_said():
    # an MXNet 1.x trace: the breakdown derived from rows, only Python known
    calls = {"Sigmoid": {"Count": 3, "Latency": dict.fromkeys(("Total", "Min", "Max", "Avg",
                                                               "P50", "P95")),
                         "Queued": None, "Python": 0.5, "Blocked": None, "Tail": None,
                         "Sub-operators": 0.2}}
    sec = _section(render.render(_doc({"Time": {}, "Custom Operator Calls": calls},
                                      kind="MXNet")), "custom-ops")
    bar = re.search(r'<g class="bar" data-label="Sigmoid">(.*?)</g>', sec).group(1)
    assert re.findall(r'data-part="(\w+)"', bar) == ["Python"]
    assert "Unknown for some op types" in sec and "Blocked, Queued, Tail" in sec


def test_a_trace_of_more_names_than_the_table_shows_draws_the_rows_of_the_whole_statistics(
        tmp_path):
    """The page keeps the first MAX_OPERATOR_ROWS operator rows by self time; it is built
    from the rows the reader kept for it (pagestats.py), and must draw exactly the rows,
    order (ties by domain, then name) and row count of the whole statistics. Durations
    repeat (many ties at the cut, some 0.4 ns apart: one rounded Self), rows nest (self
    time below total), and a sync wait and custom-op rows are there too."""
    from xprof.mxcli.render.stats import Options, process
    from xprof.mxcli.streaming.sources import read_report

    events = meta()
    for k in range(900):
        dur = [1.0, 2.0, 2.0004, 3.0][k % 4]
        events.append(X(f"op{k:04d}", k * 10.0, dur, tid=1 + k % 2))
        if k % 7 == 0:   # a child: its parent's self time drops
            events.append(X(f"inner{k % 5}", k * 10.0 + 0.1, 0.5, tid=1 + k % 2))
    events.append(X("waitall", 9500.0, 3.0, tid=0, cat="API"))
    events.append(X("MXImperativeInvoke", 9500.0, 1.0, tid=0, cat="API"))
    events.append(X("MyOp::pure_python", 9600.0, 1.0, tid=3, cat="Custom Operator"))
    trace = write_trace(tmp_path / "t.json", events)

    full = process(read_report([str(trace)]), Options()).doc   # every row, as xprof stats
    whole = dict(_doc(stats=full))
    page_doc = collect.collect(str(trace))
    assert len(page_doc["stats"]["Time"]["operator"]) < 900    # rows were left out
    assert page_doc["stats"][render.OPERATOR_ROWS] == 906     # 900 + 5 inner + 1 custom
    ours = _section(render.render({**whole, "stats": page_doc["stats"]}), "operators")
    theirs = _section(render.render(whole), "operators")
    assert ours == theirs
    assert "The first 300 of 906 rows" in ours
    assert "waitall" in ours and "MXImperativeInvoke" not in ours
