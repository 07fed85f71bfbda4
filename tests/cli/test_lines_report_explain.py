"""The Python lines in ``xprof report`` (a section on a hand-made document) and in
``xprof explain``'s findings (the top line of a custom op whose Python is on the
critical path), and the explain timeline leaving the ``python_line`` slices out."""
from __future__ import annotations

import re

from cli_helpers import X, meta

from xprof.mxcli.analysis.findings import findings
from xprof.mxcli.render.html import render
from xprof.traces.model import from_events

ROWS = {"MyOp": [{"function": "work", "file": "/src/op.py", "line": 12, "self_ms": 60.0,
                  "%": 75.0, "samples": 60, "±%": 9.8},
                 {"function": "(blocked in asnumpy)", "file": "", "line": None,
                  "self_ms": 10.0, "%": 100.0, "samples": 10, "±%": 0.0}]}
SUMMARY = {"MyOp": {"python_ms": 80.0, "sampled_ms": 60.0, "samples": 70, "calls": 2,
                    "error_%": 11.7}}


def _doc(lines):
    return {"path": "t.json",
            "overview": {"kind": "xprof", "script": "s.py", "engine": "ThreadedEngine",
                         "start_time": None, "os_pid": 1, "events": 10, "wall_ms": 12.5,
                         "threads": ["main thread"], "t0_us": 0},
            "stats": {"Time": {}}, "explain": None, "memory": {}, "allocations": None,
            "unavailable": {"explain": "needs xprof explain"}, "python_lines": lines}


def _section(page, sid):
    m = re.search(rf'<section id="{sid}">(.*?)</section>', page, re.S)
    assert m, sid
    return m.group(1)


def test_report_section_lists_each_ops_lines_with_the_error():
    html = _section(render.render(_doc({"rows": ROWS, "summary": SUMMARY})), "python-lines")
    assert "<h3>MyOp</h3>" in html and "80.000 ms Python, 70 samples" in html
    assert "\u00b111.7 points at most (95%)" in html
    cells = re.findall(r"<td class='text'>([^<]*)</td>", html)
    assert cells[:2] == ["work", "/src/op.py"] and "(blocked in asnumpy)" in cells


def test_report_section_says_why_when_the_trace_has_no_samples():
    html = _section(render.render(_doc(None)), "python-lines")
    assert "Unavailable" in html and "XPROF_PROFILER_SAMPLE_INTERVAL_MS" in html


def test_explain_names_the_top_line_of_a_custom_op_on_the_path(tmp_path):
    src = tmp_path / "op.py"
    src.write_text("\n" * 11 + "    y = np.einsum('ij,jk->ik', a, b)\n")
    rows = {"MyOp": [dict(ROWS["MyOp"][1]), dict(ROWS["MyOp"][0], file=str(src), **{"%": 62.4})]}
    base = {"wall": 1_000_000, "by_kind": {}, "by_name": {"MyOp::pure_python": 400_000},
            "calls": {"MyOp::pure_python": 4}, "threads": {}, "small_ops": (0, 0),
            "python_lines": rows}
    texts = [f["text"] for f in findings(base)]
    assert any(t.startswith("MyOp.forward: 62% in line 12 `y = np.einsum('ij,jk->ik', a, b)`")
               for t in texts), texts
    # below the threshold (10% of wall on the path), no such finding
    quiet = findings({**base, "by_name": {"MyOp::pure_python": 50_000}})
    assert not [f for f in quiet if "MyOp.forward" in f["text"]]
    # backward names the backward; no samples, no finding
    back = findings({**base, "by_name": {"_backward_MyOp::pure_python": 400_000},
                     "python_lines": {"_backward_MyOp": rows["MyOp"]}})
    assert any(f["text"].startswith("MyOp.backward: 62%") for f in back)
    assert not [f for f in findings({**base, "python_lines": {}}) if "MyOp.forward" in f["text"]]


def test_timeline_leaves_python_line_slices_out_and_keeps_their_tables():
    events = meta() + [
        X("MyOp::pure_python", 0, 100, tid=1, cat="Custom Operator"),
        X("MyOp", 0, 90, tid=9, cat="python_line",
          args={"op": "MyOp", "call": 1, "lines": [["work", "/a.py", 3, 90_000, 9, None]]}),
        X("work:3", 0, 80, tid=9, cat="python_line", args={"file": "/a.py"}),
    ]
    tl = from_events(events)
    assert [tl.names[n] for n in tl.name] == ["MyOp::pure_python"]
    assert tl.python_lines.tables["MyOp"] == {("work", "/a.py", 3, None): [90_000, 9]}
