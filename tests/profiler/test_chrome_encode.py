"""The trace encoder: byte-templated complete events must read back exactly as the
recorded slices, whatever the names (quotes, backslashes, non-ASCII) and timestamps."""
import json

import orjson
from hypothesis import given, settings, strategies as st

from xprof.runtime.profiler import chrome, recorder as R

BASE = 10**12

names = st.text(min_size=1, max_size=12)
slices = st.lists(st.tuples(names, st.sampled_from(["operator", "API", "my \"domain\""]),
                            st.integers(0, 10**13), st.integers(0, 10**10)),
                  max_size=30)


def _buffer(events, tid=3):
    buf = R.ThreadBuffer(tid, "test thread", 1000)
    buf.events.extend(events)
    return buf


@settings(max_examples=60, deadline=None)
@given(slices)
def test_complete_events_read_back_exactly(items):
    events = [(R.X, name, cat, BASE + t0, BASE + t0 + dur) for name, cat, t0, dur in items]
    buf = _buffer(events)
    data = chrome.encode([(buf, len(events))], BASE, "proc", {"k": "v"})
    for doc in (orjson.loads(data), json.loads(data)):   # two independent JSON parsers
        assert doc["displayTimeUnit"] == "ms" and doc["otherData"] == {"k": "v"}
        got = [e for e in doc["traceEvents"] if e["ph"] == "X"]
        assert len(got) == len(items)
        for e, (name, cat, t0, dur) in zip(got, items):
            assert (e["name"], e["cat"], e["pid"], e["tid"]) == (name, cat, chrome.PID, 3)
            assert e["ts"] == t0 / 1000.0 and e["dur"] == dur / 1000.0


def test_events_before_the_session_base_are_left_out():
    buf = _buffer([(R.X, "old", "operator", BASE - 5, BASE + 5),
                   (R.X, "new", "operator", BASE + 7, BASE + 9)])
    doc = orjson.loads(chrome.encode([(buf, 2)], BASE, "proc", {}))
    assert [e["name"] for e in doc["traceEvents"] if e["ph"] == "X"] == ["new"]


def test_metadata_comes_first_and_untracked_buffers_get_no_thread_track():
    counters = R.ThreadBuffer(9, "counters", 1000, track=False)
    counters.events.append((R.C, "Memory: cpu/0", "Device Storage", BASE + 1, 64))
    buf = _buffer([(R.X, "a", "operator", BASE + 2, BASE + 3)])
    doc = orjson.loads(chrome.encode([(counters, 1), (buf, 1)], BASE, "proc", {}))
    phases = [e["ph"] for e in doc["traceEvents"]]
    assert phases[:3] == ["M", "M", "M"] and "M" not in phases[3:]
    named = {e["tid"] for e in doc["traceEvents"] if e["name"] == "thread_name"}
    assert named == {3}
    (c,) = [e for e in doc["traceEvents"] if e["ph"] == "C"]
    assert c["args"] == {"Memory: cpu/0": 64} and c["ts"] == 0.001


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(names, st.dictionaries(names, st.text(max_size=5), max_size=2),
                          st.integers(0, 10**9)), min_size=1, max_size=10))
def test_slices_with_args_keep_their_args_and_order(items):
    events = []
    for i, (name, args, dur) in enumerate(items):
        events.append((R.X, name, "operator", BASE + 10 * i, BASE + 10 * i + dur))
        events.append((R.XA, name, "operator", BASE + 10 * i + 1, BASE + 10 * i + 1 + dur,
                       args))
    doc = json.loads(chrome.encode([(_buffer(events), len(events))], BASE, "p", {}))
    got = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    assert [e["ts"] for e in got] == [(ev[3] - BASE) / 1000.0 for ev in events]
    assert [e.get("args") for e in got] == [ev[5] if ev[0] == R.XA else None
                                            for ev in events]
