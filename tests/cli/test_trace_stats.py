"""``xprof stats``' rows as a query on the ``Trace`` (``analysis/trace_stats.py``), on the
cases the ``Trace`` holds apart from its slices: Python-line samples, sync points'
instants, durations with digits below the nanosecond, a slice longer than 2^63 ps, a
duration without a usable start, ``B``/``E`` pairs, async pairs and counters; the same
figures whatever the batches and whichever path of the load (columns or event by event)
read them, and whatever the load kept (records or not). The expected figures are worked
out by hand from the events."""
from __future__ import annotations

import pytest

from xprof.mxcli.analysis.trace_stats import time_stats
from xprof.traces.batch import Batch
from xprof.traces.model import Builder
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


def _stats(events, batches, records, careful=False):
    builder = Builder(links="pairs", records=records)
    size = -(-len(events) // batches)
    for k in range(0, len(events), size):
        part = events[k:k + size]
        if careful:   # event by event, as a batch with anything unusual is read
            builder._note_pids(part)
            builder._feed_careful(part)
        else:
            builder.feed(Batch(part))
    return to_json_obj(time_stats(builder.finish())[0], "total")


@pytest.mark.parametrize("batches", [1, 3, 14])
@pytest.mark.parametrize("records", [True, "times", False])
def test_the_statistics_of_a_trace_whatever_its_load(batches, records):
    got = _stats(_events(), batches, records)
    assert got == _stats(_events(), 1, True, careful=True)
    time = got["Time"]
    assert set(time) == {"operator", "python_line", "API", "user", "uncategorized"}
    ops = time["operator"]
    # 20.0004 + 20.0006 us, kept in ps (not 20.000 + 20.001 from the ns columns)
    assert ops["inner"]["Count"] == 2 and ops["inner"]["Total"] == 0.040001
    # outer: 100 us less its two children; inner: less the Python-line sample in it
    assert ops["outer"]["Self"] == 0.059999 and ops["inner"]["Self"] == 0.035001
    assert "huge" not in ops and ops["nowhere"]["Total"] == 0.007   # no place: counted
    assert "WaitForAll" not in ops                                   # an instant's wait
    assert time["API"]["pair"]["Total"] == 0.0105 and time["user"]["task"]["Total"] == 0.009
    assert time["uncategorized"]["(unnamed)"]["Count"] == 1
    assert got["Memory"]["Device Storage"]["Memory: cpu/0"]["Max"] == 4.096
