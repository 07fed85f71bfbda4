"""The one read model (``xprof.traces.model.Trace``): columns built in one pass, nesting
computed once (parent and depth per slice, as Perfetto's ``slice`` table)."""
from __future__ import annotations

import json

from xprof.traces.model import Builder, Trace, from_events


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


def _flow(ph, ident, ts, tid=1, bp=None):
    ev = {"ph": ph, "name": "arrow", "cat": "flow", "id": ident, "ts": ts, "pid": 0,
          "tid": tid}
    if bp:
        ev["bp"] = bp
    return ev


def test_flow_steps_bound_once_to_their_slices():
    # thread 1: a [0,100] > b [10,50]; thread 2: c [200,210], d [300,310]
    # flow 7: s at 20 (inside b) -> f at 250 without bp (the next slice: d);
    # flow 3: s at 60 (inside a only) -> f with bp "e" at 205 (inside c);
    # flow "x": a step on a thread without slices binds to nothing and adds no thread
    events = [_x("a", 0, 100), _x("b", 10, 40), _x("c", 200, 10, tid=2),
              _x("d", 300, 10, tid=2), _flow("s", 7, 20), _flow("f", 7, 250, tid=2),
              _flow("s", 3, 60), _flow("f", 3, 205, tid=2, bp="e"), _flow("s", "x", 1, tid=9)]
    tr = from_events(events)
    names = [tr.names[n] for n in tr.name]
    steps = [(tr.flow_key(i), int(ph), names[s] if s >= 0 else None)
             for i, (ph, s) in enumerate(zip(tr.flow_phase, tr.flow_slice))]
    assert steps == [("x", 0, None), (3, 0, "a"), (3, 2, "c"), (7, 0, "b"), (7, 2, "d")]
    assert tr.max_flow_id == 7
    assert len(tr.threads) == 2


def test_a_slice_overlapping_its_parents_end_binds_no_flow():
    # b [5,15] overlaps a [0,10]: a step at 7 binds to a, not to b
    tr = from_events([_x("a", 0, 10), _x("b", 5, 10), _flow("s", 1, 7)])
    assert tr.names[tr.name[tr.flow_slice[0]]] == "a"


def test_async_pairs_and_call_spans_paired_once():
    def ev(ph, ts, ident, name="task", cat="user", args=None):
        e = {"ph": ph, "name": name, "cat": cat, "id": ident, "ts": ts, "pid": 0, "tid": 1}
        if args:
            e["args"] = args
        return e

    split = {"queued_ns": 1000, "inputs_ns": 400, "python_ns": 2000, "blocked_ns": 0,
             "sub_operators_ns": 500, "setup_ns": 0}
    events = [ev("b", 0, 1), ev("b", 2, 1), ev("e", 3, 1), ev("e", 9, 1),   # nested, LIFO
              ev("e", 20, 5),                                            # no b: dropped
              ev("b", 10, 2, "MyOp", "Custom Operator", split), ev("e", 15, 2, "MyOp",
                                                                     "Custom Operator")]
    tr = from_events(events)
    pairs = [(tr.names[n], int(s), int(e), bool(c)) for n, s, e, c in
             zip(tr.async_name, tr.async_start, tr.async_end, tr.async_call)]
    assert pairs == [("task", 0, 9000, False), ("task", 2000, 3000, False),
                     ("MyOp", 10000, 15000, True)]
    assert tr.call_span == (10000, 15000)
    assert len(tr.start) == 0 and tr.threads == []
    doc = tr.call_stats.to_json({}, "total", False)
    assert list(doc) == ["MyOp"]


def test_a_load_of_the_calls_only_keeps_what_the_readers_read():
    # links="calls" (explain, report, diff): the calls' pairs, call_stats, call_span and
    # the largest integer flow id of the steps with a usable time, as a full load has them
    split = {"queued_ns": 1000, "inputs_ns": 400, "python_ns": 2000, "blocked_ns": 0,
             "sub_operators_ns": 500, "setup_ns": 0}
    call = {"ph": "b", "name": "MyOp", "cat": "Custom Operator", "id": 2, "ts": 10,
            "pid": 0, "tid": 1, "args": split}
    events = [_x("a", 0, 100), _flow("s", 7, 20), _flow("f", 7, 50), _flow("s", "x", 1),
              _flow("s", 2 ** 63, "bad"), _flow("s", 9.5, 30), _flow("s", True, 30),
              {"ph": "b", "name": "task", "cat": "user", "id": 1, "ts": 0, "pid": 0},
              {"ph": "e", "name": "task", "cat": "user", "id": 1, "ts": 9, "pid": 0},
              call, dict(call, ph="e", ts=15, args=None)]
    full, calls = from_events(events), from_events(events, Builder(links="calls"))
    assert (full.links_bound, calls.links_bound) == ("all", "calls")
    assert calls.max_flow_id == full.max_flow_id == 7
    assert calls.call_span == full.call_span == (10000, 15000)
    assert calls.call_stats.to_json({}, "total", False) == \
        full.call_stats.to_json({}, "total", False)
    assert len(full.flow_id) == 5 and len(calls.flow_id) == 0
    assert len(full.async_start) == 2 and list(calls.async_call) == [True]


def test_a_load_of_slices_and_pairs_alone_reads_no_records_flows_or_instants():
    # Builder(records=False, links="pairs"): the same slices and call stats as a full
    # load, no dependency record, sync point, instant or flow step
    split = {"queued_ns": 1000, "inputs_ns": 400, "python_ns": 2000, "blocked_ns": 0,
             "sub_operators_ns": 500, "setup_ns": 0}
    call = {"ph": "b", "name": "MyOp", "cat": "Custom Operator", "id": 2, "ts": 10,
            "pid": 0, "tid": 1, "args": split}
    op = dict(_x("op", 0, 100), args={"dep": [5, 3, 1, 4, -5]})
    wait = {"ph": "i", "name": "WaitForAll", "cat": "operator", "ts": 120, "s": "t",
            "pid": 0, "tid": 1, "args": {"wait": "all", "waited": 10}}
    events = [op, _x("b", 20, 10), _flow("s", 7, 20), _flow("f", 7, 50), wait,
              call, dict(call, ph="e", ts=15, args=None)]
    full = from_events(events)
    lean = from_events(events, Builder(records=False, links="pairs"))
    assert (lean.links_bound, lean.records_read, full.records_read) == ("pairs", False, True)
    assert lean.max_flow_id is None and len(lean.flow_id) == 0
    assert len(full.dep_slice) == 1 and len(lean.dep_slice) == 0
    assert len(full.sync_slice) == 1 and len(lean.sync_slice) == 0
    assert len(full.instant_slice) == 1 and len(lean.instant_slice) == 0
    keep = [k for k in range(len(full.start)) if k not in full.instant_slice.tolist()]
    assert lean.start.tolist() == full.start[keep].tolist()
    assert lean.end.tolist() == full.end[keep].tolist()
    assert [lean.names[n] for n in lean.name] == [full.names[full.name[k]] for k in keep]
    assert lean.call_stats.to_json({}, "total", False) == \
        full.call_stats.to_json({}, "total", False)


def test_a_slice_whose_end_is_no_usable_time_is_left_out():
    # rules.usable_time for the end too (2^63 ns): it would not fit the int64 columns
    tr = from_events([_x("ok", 0, 10), _x("far", 9e15, 9e15), _x("far2", 9e15, 1e14)])
    assert sorted(tr.names[n] for n in tr.name) == ["far2", "ok"]


def test_columns_past_2_31_events_hold_8_byte_ordinals():
    b = Builder()
    b.index = 2 ** 31 + 5   # as if that many events came before
    b.feed([_x("a", 0, 10), _x("b", 20, 10)])
    tr = b.finish()
    assert tr.ordinal.dtype.itemsize == 8
    assert tr.ordinal.tolist() == [2 ** 31 + 5, 2 ** 31 + 6]
