"""``xprof report``'s statistics take self time from the read model's slice columns
(``analysis/trace_stats.py``: one copy of the slices in a report's pass); its rows must be
``xprof stats``' own, on what the ``Trace`` holds differently: Python-line samples
(no ``Trace`` slices, but parents of ops), a sync point's instant (a ``Trace`` slice,
no statistics slice), durations with digits below the nanosecond (picoseconds), B/E
pairs, an empty name, a thread of Python-line samples only."""
from __future__ import annotations

import json

from cli_helpers import cli

from xprof.mxcli.render.html.collect import read_trace


def _x(name, ts, dur, tid=1, cat="operator"):
    return {"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur, "pid": 0, "tid": tid}


EVENTS = [
    _x("outer", 0, 100),
    _x("line 5", 5, 50, cat="python_line"),            # the parent of "inner"
    _x("inner", 10, 20, tid=True),                      # tid true: thread 1
    {"ph": "B", "name": "pair", "cat": "operator", "ts": 60, "pid": 0, "tid": 1},
    _x("sub", 61, 0.0015),                               # 1500 ps, 2 ns
    {"ph": "E", "ts": 70, "pid": 0, "tid": 1},
    {"ph": "i", "name": "WaitForAll", "cat": "sync", "ts": 95, "pid": 0, "tid": 1, "s": "t",
     "args": {"wait": "all", "waited": 30000}},         # a Trace slice [65, 95] us
    _x("late", 80, 10),                                  # inside outer, not inside a wait
    _x("a", 0, 10, tid=2), _x("b", 2, 3.0004, tid=2),   # 3000400 ps, 3000 ns
    _x("", 20, 5, tid=2), _x("c", 21, 1, tid=2),        # the unnamed row's child
    _x("l1", 0, 10, tid=3, cat="python_line"), _x("l2", 1, 2, tid=3, cat="python_line"),
]


def test_the_reports_rows_are_xprof_stats_rows(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": EVENTS}))
    res = cli("stats", path, "--format", "json")
    assert res.exit_code == 0, res.stderr
    stats = json.loads(res.stdout)["Time"]
    page = read_trace(str(path))[0]["Time"]
    assert page == stats
    op = stats["operator"]
    # outer [0, 100] holds line 5 (50), pair (10) and late (10): the wait is no slice
    assert op["outer"]["Self"] == 0.03
    # (the Python-line rows are their own section, not Time rows)
    assert op["pair"]["Self"] == 0.009999            # 10 us - 1500 ps (not - 2 ns)
    assert op["inner"]["Self"] == op["inner"]["Total"]
    assert op["(unnamed)"]["Self"] == 0.004
