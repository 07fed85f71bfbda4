"""Folding Python-line samples into trace events (runtime/profiler/linefold.py): roots
carry each call's exact line table, frame slices nest strictly, the detail is capped."""
from __future__ import annotations

import os

import numpy as np

from xprof.mxcli.streaming.checker import Checker
from xprof.runtime.profiler import linefold, records

CAT = linefold.CATEGORY


def outer():
    return inner_a() + inner_b()


def inner_a():
    return 1


def inner_b():
    return 2


F, A, B = outer.__code__, inner_a.__code__, inner_b.__code__
MS = 1_000_000


def sample(t, stack, call=1, name="MyOp", w=MS, t_start=0):
    """A sample at ``t`` ms of ``stack`` (root first: (code, line) pairs)."""
    flat = []
    for code, line in reversed(stack):
        flat += (code, line)
    return records.line_sample(name, CAT, int(t * MS), w, call, t_start, tuple(flat))


def fold(samples, max_detail=linefold.MAX_DETAIL):
    out = []
    folder = linefold.Folder(max_detail).encode(samples, out.append, 0, 7, "custom op worker 0",
                                                lambda t: t / 1000.0)
    return out, folder


def valid(events):
    meta = [{"name": "thread_name", "ph": "M", "pid": 0, "tid": 7, "args": {"name": "t"}}]
    checker = Checker()
    checker.check_top({}, False)
    for i, ev in enumerate(meta + events):
        checker.check(i, ev, True)
    return [v for v in checker.finish().violations if v.severity == "error"]


def test_consecutive_samples_share_slices_and_the_root_holds_the_table():
    here = os.path.abspath(__file__)
    s = [sample(1, [(F, 15), (A, 19)], t_start=0),
         sample(2, [(F, 15), (A, 19)]),
         sample(3, [(F, 15), (A, 19)]),
         sample(4, [(F, 15), (B, 23)]),
         sample(5, [(F, 15), (B, 23)])]
    events, folder = fold(s)
    roots = [e for e in events if "lines" in e["args"]]
    assert len(roots) == 1
    root = roots[0]
    assert root["name"] == "forward" and root["args"]["call"] == 1
    assert root["args"]["op"] == "MyOp"
    table = {(r[0], r[2]): (r[3], r[4]) for r in root["args"]["lines"]}
    assert table == {("inner_a", 19): (3 * MS, 3), ("inner_b", 23): (2 * MS, 2)}
    assert all(r[1] == here for r in root["args"]["lines"])
    frames = sorted((e for e in events if "lines" not in e["args"]), key=lambda e: e["ts"])
    names = [e["name"] for e in frames]
    assert names.count("outer:15") == 1   # one slice for the shared frame
    assert "inner_a:19" in names and "inner_b:23" in names
    assert folder.detail == 3 and folder.dropped == 0
    # strictly nested: each level ends before its parent
    by_name = {e["name"]: e for e in frames}
    o, a, b = by_name["outer:15"], by_name["inner_a:19"], by_name["inner_b:23"]
    assert root["ts"] <= o["ts"] and o["ts"] + o["dur"] < root["ts"] + root["dur"]
    assert a["ts"] + a["dur"] < b["ts"] and b["ts"] + b["dur"] < o["ts"] + o["dur"]
    # from the first segment to the last sample, less the margin; each level 3 ns more
    assert root["ts"] == 0 and root["dur"] == 5000 - 0.003
    assert o["ts"] == 0 and o["dur"] == 5000 - 0.006
    assert b["ts"] + b["dur"] == 5000 - 0.009


def test_the_segment_starts_at_the_call_start_or_the_previous_sample():
    s = [sample(10, [(F, 15)], w=MS, t_start=int(9.5 * MS)),
         sample(11, [(F, 15)], w=3 * MS, t_start=int(9.5 * MS))]
    events, _ = fold(s)
    root = next(e for e in events if "lines" in e["args"])
    assert root["ts"] == 9500 and root["ts"] + root["dur"] == 11000 - 0.003
    # a weight never reaches before the call's start: 0.5 ms, then 11 - 9.5 ms
    assert root["args"]["lines"][0][3] == 2 * MS


def test_weights_are_the_time_since_the_previous_tick_inside_the_call():
    s = [sample(10, [(F, 15)], w=MS, t_start=5 * MS),
         sample(13, [(F, 15)], w=3 * MS, t_start=5 * MS)]
    events, _ = fold(s)
    root = next(e for e in events if "lines" in e["args"])
    assert root["args"]["lines"][0][3:5] == [4 * MS, 2]


def test_calls_apart_and_a_gap_make_separate_roots():
    s = [sample(1, [(F, 15)], call=1), sample(2, [(F, 15)], call=1),
         sample(3, [(F, 15)], call=2, name="_backward_MyOp"),
         sample(9, [(F, 15)], call=2, name="_backward_MyOp")]   # 6 ms gap: not contiguous
    events, _ = fold(s)
    roots = [e for e in events if "lines" in e["args"]]
    assert [(r["args"]["op"], r["args"]["call"]) for r in roots] == \
        [("MyOp", 1), ("_backward_MyOp", 2), ("_backward_MyOp", 2)]
    ends = sorted((r["ts"], r["ts"] + r["dur"]) for r in roots)
    assert all(e0 <= s1 for (_, e0), (s1, _) in zip(ends, ends[1:]))   # no overlap


def test_detail_is_capped_and_roots_are_kept():
    s = [sample(t, [(F, 15), (A if t % 2 else B, 19 if t % 2 else 23)]) for t in range(1, 201)]
    events, folder = fold(s, max_detail=10)
    roots = [e for e in events if "lines" in e["args"]]
    assert len(roots) == 1 and sum(r[4] for r in roots[0]["args"]["lines"]) == 200
    assert folder.detail == 10 and folder.dropped == 200 + 1 - 10
    assert len(events) == 11


def test_blocked_samples_name_the_sync_point_and_library_frames_count_for_the_caller():
    from xprof.runtime.engine import threaded
    from xprof.runtime.ndarray import ndarray

    wait = threaded.ThreadedEngine.wait_for_var.__code__
    asnumpy = ndarray.NDArray.asnumpy.__code__
    np_code = np.linspace.__wrapped__.__code__ if hasattr(np.linspace, "__wrapped__") \
        else np.linspace.__code__
    s = [sample(1, [(F, 15), (asnumpy, asnumpy.co_firstlineno + 1), (wait, wait.co_firstlineno + 1)]),
         sample(2, [(F, 16), (np_code, np_code.co_firstlineno + 1)])]
    events, _ = fold(s)
    root = next(e for e in events if "lines" in e["args"])
    rows = {(r[0], r[2], r[5]) for r in root["args"]["lines"]}
    assert ("NDArray.asnumpy", asnumpy.co_firstlineno + 1, "asnumpy") in rows
    assert ("outer", 16, None) in rows   # numpy's frame counts for the user's line


def test_folded_events_pass_the_strict_checker():
    s = [sample(t, [(F, 15), (A if t % 3 else B, 19 if t % 3 else 23)]) for t in range(1, 50)]
    s += [sample(t, [(F, 15)], call=2) for t in range(50, 60)]
    events, _ = fold(s)
    errors = valid(events)
    assert not errors, errors[:5]


def test_a_calls_end_spreads_the_unseen_time_in_proportion():
    s = [sample(1, [(F, 15), (A, 19)], t_start=0), sample(2, [(F, 15), (B, 23)], t_start=0),
         sample(3, [(F, 15), (A, 19)], t_start=0),
         records.line_sample("MyOp", CAT, 6 * MS, 0, 1, 0, None)]   # the call ended at 6 ms
    events, _ = fold(s)
    root = next(e for e in events if "lines" in e["args"])
    table = {r[0]: (r[3], r[4]) for r in root["args"]["lines"]}
    assert table == {"inner_a": (4 * MS, 2), "inner_b": (2 * MS, 1)}   # 3 ms more, 2:1
    assert root["ts"] + root["dur"] == 6000 - 0.003   # the slices reach the call's end
    # an end without a sample of that call changes nothing
    events, _ = fold(s[:3] + [records.line_sample("Other", CAT, 6 * MS, 0, 2, 0, None)])
    root = next(e for e in events if "lines" in e["args"])
    assert sum(r[3] for r in root["args"]["lines"]) == 3 * MS


def test_a_root_never_takes_an_ops_own_name():
    """An op type may be named "Custom" (the engine's bookkeeping op) or "A::B": the
    root says what runs, args.op which call it is."""
    for op, what in (("Custom", "forward"), ("_backward_A::B", "backward"),
                     ("A::B (create_operator)", "create_operator"), (None, "python")):
        events, _ = fold([sample(1, [(F, 15)], name=op)])
        root = next(e for e in events if "lines" in e["args"])
        assert root["name"] == what, (op, root)
        assert root["args"]["op"] == (op or "python (custom op worker 0)")
