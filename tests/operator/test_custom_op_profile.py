"""Profiling custom operators: event names and categories, threads, flow arrows,
attribution (nested ops, several threads, errors, names that look like ours), both
engines, and the same events on every run."""
import collections

import numpy as np
import pytest

import xprof.runtime as mx

import proftools as pt
from threadtools import run_in_threads

CAT = "Custom Operator"
INTERNAL = ("Custom", "CustomOperatorWait")


def custom_events(doc):
    return pt.events(doc, "X", cat=CAT)


def thread_of(doc):
    names = pt.thread_names(doc)
    return lambda e: names[e["tid"]]


def check_custom_trace(doc, engine_type, op_named_custom=False):
    """Invariants every trace with custom operators must satisfy. Flow arrows and call
    spans are named after their operator, so a user operator named ``Custom`` has flows
    and call spans of that name."""
    pt.check_document(doc)
    pt.check_nesting(doc)
    tname = thread_of(doc)
    for e in doc["traceEvents"]:
        name = e.get("name", "")
        if op_named_custom and e["ph"] in "sfbe":
            continue
        assert name not in INTERNAL, f"engine bookkeeping shown: {e}"
        assert not name.endswith(("::Custom", "::CustomOperatorWait")), e
    for e in pt.events(doc, "X"):
        if "::" in e["name"] and e["cat"] not in (CAT,):
            raise AssertionError(f"custom-op event outside its category: {e}")
    subs = []
    for e in custom_events(doc):
        if e["name"].endswith("::pure_python"):
            if engine_type == "ThreadedEngine":
                assert tname(e).startswith("custom op worker "), (tname(e), e)
        else:
            subs.append(e)
            if engine_type == "ThreadedEngine":
                assert tname(e).startswith("engine worker "), (tname(e), e)
    check_flows(doc, subs, engine_type)
    return subs


def check_flows(doc, subs, engine_type):
    starts = {e["id"]: e for e in pt.events(doc, "s")}
    finishes = {e["id"]: e for e in pt.events(doc, "f")}
    assert set(starts) == set(finishes)
    assert len(finishes) == len(subs), "every sub-operator has exactly one flow arrow"
    sub_at = {(e["tid"], e["ts"]): e for e in subs}
    for fid, f in finishes.items():
        s = starts[fid]
        assert f["bp"] == "e" and s["cat"] == f["cat"] == CAT
        sub = sub_at.get((f["tid"], f["ts"]))
        assert sub is not None, f"flow end is not the start of a sub-operator: {f}"
        assert sub["name"].startswith(s["name"] + "::")
        owner = pt.enclosing(doc, s, lambda n: n == s["name"] + "::pure_python")
        assert owner, f"flow start outside its pure_python slice: {s}"
        if engine_type == "NaiveEngine":
            assert s["tid"] == f["tid"], "NaiveEngine runs sub-operators inline"
        else:
            assert s["tid"] != f["tid"]


def counts(doc, phases="Xsf"):
    """Events by phase, category and name; the Python-line samples' slices left out:
    how many there are depends on timing (tests/cli/test_stats_lines.py tests them)."""
    return collections.Counter((e["ph"], e.get("cat"), e["name"]) for e in doc["traceEvents"]
                               if e["ph"] in phases and e.get("cat") != "python_line")


def test_add_one(prof, engine):
    x = mx.nd.array([[1.0, 2.0], [3.0, 4.0]])
    prof.start(profile_all=True)
    y = mx.nd.Custom(x, op_type="MyAddOne")
    z = y + 1            # an ordinary operator after the call
    z.wait_to_read()
    doc = prof.finish()
    np.testing.assert_array_equal(z.asnumpy(), x.asnumpy() + 2)
    subs = check_custom_trace(doc, engine.name)
    c = pt.name_counts(doc)
    assert c[(CAT, "MyAddOne::pure_python")] == 1
    assert c[(CAT, "MyAddOne::_plus_scalar")] == 1
    assert c[(CAT, "MyAddOne::CopyCPU2CPU")] == 1
    assert len(subs) == 2
    assert c[("operator", "_plus_scalar")] == 1, "plain op after the call misattributed"
    tname = thread_of(doc)
    (pp,) = pt.events(doc, "X", name="MyAddOne::pure_python")
    if engine.name == "ThreadedEngine":
        assert tname(pp) != "main thread"
    else:
        assert tname(pp) == "main thread"
        assert {tname(e) for e in subs} == {"main thread"}


def test_sigmoid_forward_and_backward(prof, engine):
    x = mx.nd.array([-1.0, 0.0, 2.0])
    x.attach_grad()
    prof.start(profile_all=True)
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="MySigmoid")
    y.backward()
    x.grad.wait_to_read()
    doc = prof.finish()
    check_custom_trace(doc, engine.name)
    c = pt.name_counts(doc, cat=CAT)
    for name in ("MySigmoid::pure_python", "MySigmoid::_zeros", "MySigmoid::broadcast_add",
                 "MySigmoid::CopyCPU2CPU", "_backward_MySigmoid::pure_python",
                 "_backward_MySigmoid::CopyCPU2CPU"):
        assert c[(CAT, name)] == 1, (name, c)
    assert c[(CAT, "_backward_MySigmoid::broadcast_mul")] == 2
    # the backward's Python slice is its own, not the forward's
    assert pt.events(doc, "s", name="_backward_MySigmoid")


def test_names_that_look_like_ours(prof, engine):
    x = mx.nd.array([1.0, 2.0])
    prof.start(profile_all=True)
    a = mx.nd.Custom(x, op_type="Custom")
    b = mx.nd.Custom(x, op_type="A::B")
    plain = (a + b) + 1
    plain.wait_to_read()
    doc = prof.finish()
    check_custom_trace(doc, engine.name, op_named_custom=True)
    c = pt.name_counts(doc)
    for op in ("Custom", "A::B"):
        assert c[(CAT, op + "::pure_python")] == 1
        assert c[(CAT, op + "::_plus_scalar")] == 1
        assert c[(CAT, op + "::CopyCPU2CPU")] == 1
    assert c[("operator", "broadcast_add")] == 1
    assert c[("operator", "_plus_scalar")] == 1
    assert not [e for e in pt.events(doc, "X") if e["name"] == "Custom"]


def test_nested_ops_attribute_to_innermost(prof, engine):
    x = mx.nd.array([1.0, 2.0])
    prof.start(profile_all=True)
    y = mx.nd.Custom(x, op_type="Outer")
    y.wait_to_read()
    doc = prof.finish()
    np.testing.assert_array_equal(y.asnumpy(), [4, 6])
    check_custom_trace(doc, engine.name)
    c = pt.name_counts(doc, cat=CAT)
    assert c[(CAT, "Outer::pure_python")] == 1 and c[(CAT, "Inner::pure_python")] == 1
    assert c[(CAT, "Inner::_plus_scalar")] == 1
    assert c[(CAT, "Inner::CopyCPU2CPU")] == 1
    assert c[(CAT, "Outer::_mul_scalar")] == 1
    assert c[(CAT, "Outer::CopyCPU2CPU")] == 1
    assert sum(c.values()) == 6, c
    # the inner call's Python slice runs inside the outer forward under NaiveEngine
    if engine.name == "NaiveEngine":
        (inner,) = pt.events(doc, "X", name="Inner::pure_python")
        assert pt.enclosing(doc, inner, lambda n: n == "Outer::pure_python")


def test_several_python_threads(prof, engine):
    n_threads, n_calls = 4, 10
    prof.start(profile_all=True)

    def work(i):
        x = mx.nd.full((4,), i)
        for _ in range(n_calls):
            x = mx.nd.Custom(x, op_type="MyAddOne") * 1
        x.wait_to_read()

    errors = run_in_threads(work, n_threads, "caller-{}")
    assert not errors
    doc = prof.finish()
    check_custom_trace(doc, engine.name)
    c = pt.name_counts(doc)
    total = n_threads * n_calls
    assert c[(CAT, "MyAddOne::pure_python")] == total
    assert c[(CAT, "MyAddOne::_plus_scalar")] == total
    assert c[(CAT, "MyAddOne::CopyCPU2CPU")] == total
    assert c[("operator", "_mul_scalar")] == total
    assert not c[(CAT, "MyAddOne::_mul_scalar")]


def test_failing_forward_leaves_no_stale_attribution(prof, engine):
    x = mx.nd.ones((3,))
    prof.start(profile_all=True)
    bad = mx.nd.Custom(x, op_type="FailingForward")
    with pytest.raises(RuntimeError, match="failed on purpose"):
        bad.asnumpy()
    after = x * 5
    good = mx.nd.Custom(after, op_type="MyAddOne")
    good.wait_to_read()
    doc = prof.finish()
    check_custom_trace(doc, engine.name)
    c = pt.name_counts(doc)
    assert c[(CAT, "FailingForward::pure_python")] == 1
    assert c[(CAT, "FailingForward::_plus_scalar")] == 1
    assert c[("operator", "_mul_scalar")] == 1
    assert c[(CAT, "MyAddOne::pure_python")] == 1
    assert c[(CAT, "MyAddOne::_plus_scalar")] == 1
    assert not c[(CAT, "FailingForward::_mul_scalar")]


def test_custom_ops_follow_the_mode_filters(prof):
    x = mx.nd.array([1.0])
    prof.start(profile_imperative=False)   # imperative ops not recorded
    mx.nd.Custom(x, op_type="MyAddOne").wait_to_read()
    doc = prof.finish()
    assert not custom_events(doc) and not pt.events(doc, "s")
    # a bound symbol's custom node is symbolic, forward and backward
    data = mx.sym.Variable("data")
    ex = mx.sym.Custom(data=data, op_type="MyAddOne").bind(
        mx.cpu(), {"data": x}, args_grad={"data": mx.nd.zeros((1,))})
    prof.start(profile_symbolic=True, profile_imperative=False)
    out = ex.forward(is_train=True)[0]
    ex.backward(mx.nd.ones((1,)))
    np.testing.assert_array_equal(out.asnumpy(), [2.0])
    np.testing.assert_array_equal(ex.grad_dict["data"].asnumpy(), [1.0])
    mx.nd.Custom(x, op_type="MyAddOne").wait_to_read()     # imperative: not recorded
    doc = prof.finish()
    check_custom_trace(doc, "ThreadedEngine")
    c = pt.name_counts(doc, cat=CAT)
    assert c[(CAT, "MyAddOne::pure_python")] == 1
    assert c[(CAT, "MyAddOne::_plus_scalar")] == 1
    assert c[(CAT, "_backward_MyAddOne::pure_python")] == 1
    assert not [e for e in doc["traceEvents"] if "Custom" in e.get("name", "")
                and "MyAddOne" not in e["name"]]


def _workload():
    x = mx.nd.array([[0.5, -1.0], [2.0, 0.0]])
    y = mx.nd.Custom(x, op_type="MyAddOne")
    x.attach_grad()
    with mx.autograd.record():
        s = mx.nd.Custom(x, op_type="MySigmoid")
    s.backward()
    o = mx.nd.Custom(y, op_type="Outer")
    a, b = mx.nd.Custom(o, y, op_type="AddSub")
    z = (a + b) * 2
    z.wait_to_read()
    x.grad.wait_to_read()
    mx.nd.waitall()


def _profile_workload(prof):
    # Memory profiling stays off here: the Memory counter is sampled when an allocation
    # changes the footprint, and frees happen when worker threads drop their references,
    # so its sample count legitimately varies between runs of threaded code.
    prof.start(profile_imperative=True, profile_api=True, profile_memory=False)
    _workload()
    return prof.finish()


def test_naive_and_threaded_give_the_same_events(prof, on_engine):
    docs = {}
    for kind in ("ThreadedEngine", "NaiveEngine"):
        on_engine(kind)
        docs[kind] = _profile_workload(prof)
        check_custom_trace(docs[kind], kind)
    assert counts(docs["NaiveEngine"]) == counts(docs["ThreadedEngine"])
    naive = docs["NaiveEngine"]
    tname = thread_of(naive)
    assert {tname(e) for e in custom_events(naive)} == {"main thread"}
    threaded = docs["ThreadedEngine"]
    tname = thread_of(threaded)
    assert "main thread" not in {tname(e) for e in custom_events(threaded)}


def test_same_events_on_every_run(prof):
    reference = None
    for run in range(50):
        doc = _profile_workload(prof)
        got = counts(doc)
        if reference is None:
            reference = got
            assert got[("X", CAT, "MySigmoid::_zeros")] == 1
            assert got[("X", CAT, "Inner::_plus_scalar")] == 1
        else:
            assert got == reference, (run, got - reference, reference - got)
    check_custom_trace(doc, "ThreadedEngine")


def test_call_running_across_a_finished_dump(prof, on_engine, tmp_path):
    # A forward that is still running when the session ends belongs to no later session.
    import threading as th

    from customop_defs import GATE
    on_engine("ThreadedEngine")
    GATE.update(entered=th.Event(), open=th.Event())
    x = mx.nd.array([1.0, 2.0])
    prof.start(profile_all=True, filename=str(tmp_path / "first.json"))
    y = mx.nd.Custom(x, op_type="Gated")
    assert GATE["entered"].wait(60)
    mx.profiler.set_state("stop")
    first = pt.load(mx.profiler.dump(finished=True))
    prof.start(profile_all=True, filename=str(tmp_path / "second.json"))
    GATE["open"].set()
    z = y + 1
    z.wait_to_read()
    prof.stop()
    stats = prof.stats()
    assert "Gated::pure_python" not in stats["Time"][CAT]
    assert stats["Time"][CAT]["Gated::CopyCPU2CPU"]["Count"] == 1
    second = prof.finish()
    assert not pt.events(first, "X", name="Gated::pure_python")   # had not ended yet
    assert not pt.events(second, "X", name="Gated::pure_python")  # began before
    for e in second["traceEvents"]:
        assert e["ph"] == "M" or e["ts"] >= 0, f"event from before the session: {e}"
    pt.check_nesting(second)
    assert pt.name_counts(second)[(CAT, "Gated::CopyCPU2CPU")] == 1
    assert not pt.events(second, "s"), "flow from a Python slice that is not in the trace"
    assert pt.name_counts(second)[("operator", "_plus_scalar")] == 1
