"""The one read model (``xprof.traces.model.Trace``): columns built in one pass, nesting
computed once at load (parent and depth per slice, as Perfetto's ``slice`` table)."""
from __future__ import annotations

import json

from xprof.traces.model import Trace, from_events


def _x(name, ts, dur, tid=1, pid=0):
    return {"ph": "X", "name": name, "cat": "operator", "ts": ts, "dur": dur, "pid": pid,
            "tid": tid}


def _rows(tr):
    """``{name: (parent name or None, depth)}`` of every slice."""
    names = [tr.names[n] for n in tr.name]
    return {names[k]: (None if p < 0 else names[p], int(d))
            for k, (p, d) in enumerate(zip(tr.parent.tolist(), tr.depth.tolist()))}


def test_nesting_parent_and_depth_per_thread():
    # thread 1:  a [0,100] > b [10,50] > c [20,30];  d [60,90] in a;  e [100,110] after a
    # (ends where a ends: a sibling); thread 2: f [0,200] > g [5,6]; thread 3 flat: h, i
    events = [_x("c", 20, 10), _x("a", 0, 100), _x("b", 10, 40), _x("d", 60, 30),
              _x("e", 100, 10), _x("f", 0, 200, tid=2), _x("g", 5, 1, tid=2),
              _x("h", 0, 1, tid=3), _x("i", 2, 1, tid=3)]
    tr = from_events(events)
    assert _rows(tr) == {"a": (None, 0), "b": ("a", 1), "c": ("b", 2), "d": ("a", 1),
                         "e": (None, 0), "f": (None, 0), "g": ("f", 1), "h": (None, 0),
                         "i": (None, 0)}


def test_a_slice_overlapping_its_parents_end_keeps_the_parent_but_parents_nobody():
    # b starts inside a but ends after it; c starts inside b (and inside a)
    tr = from_events([_x("a", 0, 10), _x("b", 5, 10), _x("c", 6, 1)])
    assert _rows(tr) == {"a": (None, 0), "b": ("a", 1), "c": ("a", 1)}


def test_b_e_pairs_nest_with_x_events_and_tid_true_is_thread_1():
    events = [{"ph": "B", "name": "outer", "cat": "api", "ts": 0, "pid": 0, "tid": 1},
              _x("inner", 1, 2, tid=True),
              {"ph": "E", "ts": 5, "pid": 0, "tid": 1}]
    tr = from_events(events)
    assert _rows(tr) == {"outer": (None, 0), "inner": ("outer", 1)}
    assert len(tr.threads) == 1


def test_load_reads_the_file_once_with_its_settings_and_top(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": [_x("a", 0, 4), _x("b", 1, 1)],
                                "otherData": {"settings": {"engine": "naive"}}}))
    tr = Trace.load(path)
    assert _rows(tr) == {"a": (None, 0), "b": ("a", 1)}
    assert tr.settings == {"engine": "naive"} and "otherData" in tr.top
    assert tr.start.tolist() == [0, 1000] and tr.end.tolist() == [4000, 2000]
