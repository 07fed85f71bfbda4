"""``xprof stats``' rows as a query on the ``Trace`` (``analysis/trace_stats.py``) equal the
streaming reader's (``analysis/stats_collector.py``) on the cases the ``Trace`` holds differently:
Python-line samples, sync points' instants, durations with digits below the nanosecond,
a slice longer than 2^63 ps, a duration without a usable start, ``B``/``E`` pairs, async
pairs and counters, in one batch or event by event."""
from __future__ import annotations

import pytest

from xprof.mxcli.analysis.stats_collector import StatsCollector
from xprof.mxcli.analysis.timeline import Builder
from xprof.mxcli.analysis.trace_stats import TraceStats
from xprof.traces.batch import Batch
from xprof.traces.stats import to_json_obj


def _x(name, ts, dur, tid=1, cat="operator", **more):
    return dict({"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur, "pid": 0,
                 "tid": tid}, **more)


def _events():
    return [
        _x("outer", 0, 100), _x("inner", 10, 20.0004), _x("inner", 40, 20.0006),
        _x("python_line", 12, 5, cat="python_line", args={"lines": []}),
        _x("op", 0, 50, tid=2, args={"dep": [5, 3, 1, 4, -5]}),
        {"ph": "i", "name": "WaitForAll", "cat": "operator", "ts": 90, "s": "t", "pid": 0,
         "tid": 1, "args": {"wait": "all", "waited": 30}},
        _x("huge", 200, 9.3e12, tid=3), _x("nowhere", "x", 7, tid=3),
        {"ph": "B", "name": "pair", "cat": "API", "ts": 300, "pid": 0, "tid": 1},
        {"ph": "E", "ts": 310.5, "pid": 0, "tid": 1},
        {"ph": "b", "name": "task", "cat": "user", "id": 1, "ts": 0, "pid": 0},
        {"ph": "e", "name": "task", "cat": "user", "id": 1, "ts": 9, "pid": 0},
        {"ph": "C", "name": "Memory: cpu/0", "cat": "Device Storage", "ts": 5, "pid": 0,
         "args": {"Memory: cpu/0": 4096}},
        _x("", 400, 1, tid=4, cat=""),
    ]


@pytest.mark.parametrize("batches", [1, 3, 14])
@pytest.mark.parametrize("records", [True, False])
def test_trace_stats_equal_the_streaming_reader(batches, records):
    events = _events()
    size = -(-len(events) // batches)
    parts = [events[k:k + size] for k in range(0, len(events), size)]
    streaming = StatsCollector()
    query = TraceStats()
    builder = Builder(records=records)
    names = {}   # the pass's one numbering (Batch.names)
    for part in parts:
        streaming.feed(Batch(part))
        batch = Batch(part, names)
        builder.feed(batch)
        query.feed(batch)
    query.use_trace(builder.finish())
    expected = to_json_obj(streaming.finish(), "total")
    got = to_json_obj(query.finish(), "total")
    assert got == expected
    assert set(got["Time"]) == {"operator", "python_line", "API", "user", "uncategorized"}
    assert got["Time"]["operator"]["inner"]["Count"] == 2
    assert "huge" not in got["Time"]["operator"] and got["Time"]["operator"]["nowhere"]
    assert "WaitForAll" not in got["Time"]["operator"]


def test_trace_stats_needs_its_trace():
    query = TraceStats()
    query.feed(Batch([_x("a", 0, 1)]))
    with pytest.raises(RuntimeError):
        query.finish()
