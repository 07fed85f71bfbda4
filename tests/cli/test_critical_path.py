"""Critical path on synthetic traces whose answer is known by construction (times in us)."""
import pytest
from deptrace import meta, op, slice_, sync

from xprof.mxcli.analysis.explain import analyze, explain


def _kinds(doc):
    out = {}
    for seg in doc["critical_path"]:
        out[seg["kind"]] = out.get(seg["kind"], 0) + seg["dur"]
    return out


def _contiguous(doc):
    segs = doc["critical_path"]
    for a, b in zip(segs, segs[1:]):
        assert b["ts"] == pytest.approx(a["ts"] + a["dur"], abs=1e-3), (a, b)
    assert sum(s["dur"] for s in segs) / 1000 == pytest.approx(doc["critical_path_ms"], abs=1e-5)


def test_two_independent_chains_joined_at_the_end_follow_the_long_chain():
    ev = meta() + [
        op("a1", 1, 0, 0, 1, 101, writes=[1]),
        op("b1", 2, 2, 2, 3, 53, writes=[11]),
        op("b2", 2, 2.5, 53, 54, 80, reads=[11], writes=[12]),
        op("a2", 1, 4, 101, 102, 202, reads=[1], writes=[2]),
        op("a3", 1, 5, 202, 203, 303, reads=[2], writes=[3]),
        op("join", 2, 6, 303, 305, 315, reads=[3, 12], writes=[20]),
        sync(0, 7, 320, "all"),
    ]
    doc = explain(ev)
    assert doc["wall_ms"] == pytest.approx(0.319)
    assert doc["critical_path_ms"] == pytest.approx(0.319)
    assert [s["name"] for s in doc["critical_path"] if s["kind"] == "op"] == \
        ["a1", "a2", "a3", "join"]
    assert doc["by_name"] == {"a1": 0.1, "a2": 0.1, "a3": 0.1, "join": 0.01}
    assert _kinds(doc) == pytest.approx({"op": 310, "queue": 4, "dependency": 5})
    _contiguous(doc)


def test_waiting_for_a_heavy_predecessor_on_another_thread():
    # h runs 5 ms on worker 0; y (pushed at 10 us, on worker 1) needs its output
    ev = meta() + [
        op("heavy", 1, 0, 0, 1, 5001, writes=[1]),
        op("y", 2, 10, 5001.5, 5002, 5010, reads=[1], writes=[2]),
        sync(0, 20, 5011, [2]),
    ]
    a = analyze(ev)
    doc = a.to_dict()
    ops = [s["name"] for s in doc["critical_path"] if s["kind"] == "op"]
    assert ops == ["heavy", "y"]
    assert a.causes["y"].most_common(1)[0][0] == "heavy"
    assert doc["critical_path_ms"] == pytest.approx(5.010)   # 1 us .. 5011 us
    _contiguous(doc)


def test_main_thread_sleeping_between_pushes_is_a_python_path():
    ev = meta()
    for k in range(10):       # push every 1000 us, each op 10 us on a worker
        t = k * 1000.0
        ev.append(op(f"op{k}", 1 + k % 2, t, t, t + 2, t + 12, writes=[100 + k]))
    ev.append(sync(0, 9020, 9030, "all"))
    doc = explain(ev)
    py = _kinds(doc)["python"]
    assert py / 1000 / doc["wall_ms"] > 0.95
    assert doc["findings"] and "Python" in doc["findings"][0]["text"]
    assert doc["findings"][0]["figure"] == pytest.approx(100 * py / 1000 / doc["wall_ms"], abs=0.1)
    # the workers were idle nearly all the time
    assert doc["threads"]["engine worker 0"]["idle_ms"] > 0.9 * doc["wall_ms"]
    _contiguous(doc)


def test_custom_op_sub_operators_are_on_the_path():
    co = "Custom Operator"
    ev = meta() + [
        slice_("MXImperativeInvoke", 0, 45, 55),
        # the call: pushed at 50 by main, ready at 60, its Python ran 100..300 on thread 3
        op("MyOp::pure_python", 3, 50, 60, 100, 300, reads=[1], writes=[2], cat=co),
        op("MyOp::dot", 1, 150, 150, 160, 400, writes=[10], pusher=3, cat=co),
        op("MyOp::_plus_scalar", 2, 250, 400.5, 410, 500, reads=[10], writes=[11], pusher=3, cat=co),
        op("consumer", 1, 60, 505, 510, 520, reads=[2], writes=[3]),
        sync(0, 70, 525, "all"),
    ]
    doc = explain(ev)
    ops = [s["name"] for s in doc["critical_path"] if s["kind"] == "op"]
    assert ops == ["MyOp::pure_python", "MyOp::dot", "MyOp::_plus_scalar", "consumer"]
    # the call's own Python up to the push of its first sub-operator
    assert doc["by_name"]["MyOp::pure_python"] == pytest.approx(0.05)
    queue = [s for s in doc["critical_path"] if s["kind"] == "queue"]
    assert queue[0]["name"] == "MyOp::pure_python" and queue[0]["dur"] == pytest.approx(40)
    _contiguous(doc)
    assert doc["critical_path_ms"] == pytest.approx(doc["wall_ms"])


def test_naive_engine_shape_everything_inline_on_the_main_thread():
    # NaiveEngine: push == ready == start, sub-operators nested in the call's slice
    co = "Custom Operator"
    ev = meta({0: "main thread"}) + [
        op("a", 0, 10, 10, 10, 20, writes=[1]),
        op("MyOp::pure_python", 0, 30, 30, 30, 80, reads=[1], writes=[2], cat=co),
        op("MyOp::_plus_scalar", 0, 40, 40, 40, 50, writes=[5], cat=co),
        op("b", 0, 90, 90, 90, 95, reads=[2], writes=[3]),
        sync(0, 96, 97, "all"),
    ]
    doc = explain(ev)
    assert doc["critical_path_ms"] == pytest.approx(doc["wall_ms"]) == pytest.approx(0.087)
    assert doc["by_name"] == pytest.approx({"a": 0.01, "MyOp::pure_python": 0.04,
                                            "MyOp::_plus_scalar": 0.01, "b": 0.005})
    assert _kinds(doc)["python"] == pytest.approx(87 - 65)
    _contiguous(doc)


def test_a_custom_calls_python_after_a_sync_inside_it_is_its_own_op_time():
    """The call reads its (ready) input first, then runs 1 ms of Python: all of it is the
    call's op time on the path, the read a ``blocked`` segment of its own (the issue's
    repro, ThreadedEngine's shape: the call on the custom-op thread)."""
    co = "Custom Operator"
    ev = meta() + [
        op("_plus_scalar", 1, 0, 0, 1, 11, writes=[1]),
        op("Heavy::pure_python", 3, 5, 11.5, 12, 1112, reads=[1], writes=[2], cat=co),
        sync(3, 13, 15, [1]),                       # asnumpy of its input, inside it
        op("Heavy::_mul_scalar", 1, 1100, 1100, 1101, 1105, reads=[1], writes=[3],
           pusher=3, cat=co),
        op("consumer", 2, 20, 1113, 1114, 1120, reads=[2], writes=[4]),
        sync(0, 30, 1121, "all"),
    ]
    doc = explain(ev)
    assert doc["by_name"]["Heavy::pure_python"] == pytest.approx(1.098, abs=1e-3)
    assert doc["composition"]["python_ms"] < 0.05
    blocked = [s for s in doc["critical_path"] if s["kind"] == "blocked"]
    assert len(blocked) == 1 and blocked[0]["dur"] == pytest.approx(2)
    assert blocked[0]["name"] == "blocked inside Heavy.forward"
    assert doc["composition"]["blocked_ms"] == pytest.approx(0.002)
    _contiguous(doc)
    assert doc["critical_path_ms"] == pytest.approx(doc["wall_ms"])


def test_a_custom_call_blocked_on_its_own_sub_operator_waits_for_it_on_the_path():
    """``forward`` pushes a 500 us product and reads it: the path runs through the
    product, the wait is ``blocked inside MyOp.forward on MyOp::dot``, then the call's
    Python before it; after the wait, the call's Python again."""
    co = "Custom Operator"
    ev = meta() + [
        op("MyOp::pure_python", 3, 0, 0, 10, 800, writes=[2], cat=co),
        op("MyOp::dot", 1, 100, 100, 101, 601, writes=[10], pusher=3, cat=co),
        sync(3, 110, 602, [10]),
        sync(0, 20, 801, "all"),
    ]
    doc = explain(ev)
    path = [(s["kind"], s["name"]) for s in doc["critical_path"]]
    assert ("op", "MyOp::dot") in path
    blocked = [s for s in doc["critical_path"] if s["kind"] == "blocked"]
    assert [b["name"] for b in blocked] == ["blocked inside MyOp.forward on MyOp::dot"]
    # the call's Python: 10..100 (before the push), then 602..800 (after the wait)
    assert doc["by_name"]["MyOp::pure_python"] == pytest.approx(0.090 + 0.198, abs=2e-3)
    _contiguous(doc)


def test_naive_engine_a_sync_inside_an_inline_call_keeps_the_call_on_the_path():
    """NaiveEngine runs the call on the main thread; its read of the input is the last
    sync point before the ``waitall``: the call's Python after it is still the call's."""
    co = "Custom Operator"
    ev = meta({0: "main thread"}) + [
        op("a", 0, 10, 10, 10, 20, writes=[1]),
        op("MyOp::pure_python", 0, 30, 30, 30, 1030, reads=[1], writes=[2], cat=co),
        sync(0, 31, 33, [1]),
        op("MyOp::_mul_scalar", 0, 1020, 1020, 1020, 1025, reads=[1], writes=[5], cat=co),
        sync(0, 1040, 1041, "all"),
    ]
    doc = explain(ev)
    assert doc["by_name"]["MyOp::pure_python"] == pytest.approx(0.993, abs=1e-3)
    assert doc["composition"]["python_ms"] < 0.05
    _contiguous(doc)


def test_the_python_finding_names_the_thread_the_paths_python_is_on():
    """A custom-op thread's own loop (no call slice around it: an older trace) is the
    path's Python: the finding names that thread, not the first driver."""
    ev = meta() + [
        op("x", 1, 0, 0, 1, 2, writes=[1]),
        slice_("busy", 3, 3, 4),
        op("y", 1, 900, 900, 901, 905, reads=[1], writes=[2], pusher=3),
        sync(0, 902, 906, [2]),
    ]
    doc = explain(ev)
    texts = [f["text"] for f in doc["findings"]]
    assert any("in Python on custom op worker 0" in t for t in texts), texts


def test_wait_for_var_waits_for_the_last_writer_not_for_everything():
    ev = meta() + [
        op("slow_other", 1, 0, 0, 1, 900, writes=[7]),
        op("wanted", 2, 1, 1, 2, 100, writes=[1]),
        sync(0, 3, 101, [1]),
        slice_("after", 0, 150, 160),
    ]
    doc = explain(ev)      # window ends at the sync point
    assert doc["wall_ms"] == pytest.approx(0.100)
    ops = [s["name"] for s in doc["critical_path"] if s["kind"] == "op"]
    assert ops == ["wanted"]


def test_queue_wait_behind_a_busy_worker_is_reported():
    ev = meta({0: "main thread", 1: "engine worker 0"}) + [
        op("long", 1, 0, 0, 1, 500, writes=[1]),
        op("queued", 1, 2, 2, 500.5, 600, writes=[2]),
        sync(0, 3, 601, "all"),
    ]
    doc = explain(ev)
    q = [s for s in doc["critical_path"] if s["kind"] == "queue"]
    assert q and q[-1]["name"] == "queued" and q[-1]["dur"] == pytest.approx(498.5)
    texts = [f["text"] for f in doc["findings"]]
    # the workers counted from the path's ops (a thread table's roles were once read at
    # the wrong index: "0 workers ran ops" beside two busy workers)
    assert any("free engine worker (1 engine worker ran ops on the path)" in t
               for t in texts), texts


def test_two_records_of_the_same_span_on_one_thread_nest_once():
    # NaiveEngine-shaped: an inline call and a sub-operator recorded with the very same
    # start and end (clock ties on a coarse clock). Each is "wholly inside" the other;
    # the walk nests the later in the earlier once (a loop between them recursed forever)
    co = "Custom Operator"
    ev = meta({0: "main thread"}) + [
        op("MyOp::pure_python", 0, 10, 10, 10, 50, writes=[1], cat=co),
        op("MyOp::_plus_scalar", 0, 10, 10, 10, 50, writes=[2], cat=co),
        op("b", 0, 60, 60, 60, 70, reads=[1, 2], writes=[3]),
        sync(0, 71, 72, "all"),
    ]
    doc = explain(ev)
    assert doc["critical_path_ms"] == pytest.approx(doc["wall_ms"])
    _contiguous(doc)
