"""Dependency records from the real engines, read back by ``xprof explain`` and
``xprof stats`` (docs/dependencies.md); ground truth from the script's own clocks."""
import json
import time

import pytest

import xprof.runtime as mx
from xprof.mxcli.analysis.explain import explain
from xprof.traces.model import load

ENGINES = ["ThreadedEngine", "NaiveEngine"]


def _deps(doc):
    return [e for e in doc["traceEvents"] if e["ph"] == "X" and "dep" in e.get("args", {})]


@pytest.mark.parametrize("kind", ENGINES)
def test_every_op_carries_its_record_and_the_trace_stays_valid(prof, on_engine, kind):
    from xprof.mxcli.streaming.checker import Checker

    on_engine(kind)
    prof.start(profile_all=True)
    x = mx.nd.ones((64, 64))
    y = x + 1
    z = mx.nd.dot(y, x)
    z.wait_to_read()
    mx.nd.waitall()
    doc = prof.finish()
    ops = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["cat"] == "operator"]
    assert ops and all("dep" in e["args"] for e in ops)
    by_name = {e["name"]: e["args"]["dep"] for e in ops}
    p, q, t, *vs = by_name["dot"]
    assert 0 <= q <= p and t == 0          # pushed by the main thread (track 0)
    # dot read y and x, wrote z: x is what _ones wrote, y what _plus_scalar wrote
    y_var = -[v for v in by_name["_plus_scalar"][3:] if v < 0][0]
    x_var = -[v for v in by_name["_ones"][3:] if v < 0][0]
    assert sorted(v for v in vs if v > 0) == sorted([y_var, x_var])
    waits = [e for e in doc["traceEvents"] if e["ph"] == "i" and "wait" in e.get("args", {})]
    assert {e["name"] for e in waits} == {"WaitForVar", "WaitForAll"}
    z_var = -[v for v in vs if v < 0][0]
    assert [e["args"]["wait"] for e in waits if e["name"] == "WaitForVar"] == [[z_var]]
    checker = Checker()
    checker.check_batch(0, doc["traceEvents"], False)
    checker.finish()
    assert checker.errors == 0, checker.violations


def test_waiting_for_a_heavy_predecessor_on_a_worker(prof, on_engine):
    on_engine("ThreadedEngine")
    big = mx.nd.ones((700, 700))
    big.wait_to_read()
    prof.start(profile_all=True)
    heavy = mx.nd.dot(big, big)     # a worker runs it; the push returns at once
    after = heavy * 2               # must wait for heavy
    after.wait_to_read()
    doc = prof.finish()
    (h,) = [e for e in _deps(doc) if e["name"] == "dot"]
    (a,) = [e for e in _deps(doc) if e["name"] == "_mul_scalar"]
    p, q = a["args"]["dep"][:2]
    push, ready = a["ts"] - p / 1000, a["ts"] - q / 1000
    h_end = h["ts"] + h["dur"]
    assert ready >= h_end - 1e-3                  # ready only once heavy had finished
    assert (p - q) / 1000 >= h_end - push - 1e-3   # so it waited (nearly) heavy's whole run
    assert push < h["ts"] + h["dur"] / 2           # pushed while heavy ran
    d = explain(prof.path)
    ops = [s["name"] for s in d["critical_path"] if s["kind"] == "op"]
    assert ops[-2:] == ["dot", "_mul_scalar"]
    assert d["by_name"]["dot"] == pytest.approx(h["dur"] / 1000, abs=1e-6)


@pytest.mark.parametrize("kind", ENGINES)
def test_main_thread_sleeping_between_pushes_is_a_python_path(prof, on_engine, kind):
    on_engine(kind)
    prof.start(profile_all=True)
    x = mx.nd.ones((16, 16))
    slept = 0.0
    for _ in range(5):
        x = x + 1
        t = time.perf_counter()
        time.sleep(0.02)
        slept += time.perf_counter() - t
    x.wait_to_read()
    prof.finish()
    d = explain(prof.path)
    python_ms = sum(s["dur"] for s in d["critical_path"] if s["kind"] == "python") / 1000
    assert python_ms >= slept * 1000 * 0.99       # every sleep is Python time on the path
    assert python_ms / d["wall_ms"] > 0.9
    assert d["findings"] and "Python" in d["findings"][0]["text"]


class _Dot(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], mx.nd.dot(in_data[0], in_data[0]))


@mx.operator.register("DepTestDot")
class _DotProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _Dot()


@pytest.mark.parametrize("kind", ENGINES)
def test_a_custom_ops_sub_operators_are_on_the_path(prof, on_engine, kind):
    on_engine(kind)
    x = mx.nd.ones((800, 800))
    x.wait_to_read()
    prof.start(profile_all=True)
    y = mx.nd.Custom(x, op_type="DepTestDot")   # its dot runs on a worker (threaded)
    z = y + 1
    z.wait_to_read()
    doc = prof.finish()
    d = explain(prof.path)
    ops = [s["name"] for s in d["critical_path"] if s["kind"] == "op"]
    assert ops[-1] == "_plus_scalar"
    tl, _ = load(prof.path)
    call = [i for i, r in enumerate(tl.dep_slice.tolist())
            if tl.names[tl.name[r]] == "DepTestDot::pure_python"]
    assert len(call) == 1     # the call carries the dependency record of the Custom push
    (sub,) = [e for e in _deps(doc) if e["name"] == "DepTestDot::dot"]
    (plus,) = [e for e in _deps(doc) if e["name"] == "_plus_scalar"]
    pushed = plus["ts"] - plus["args"]["dep"][0] / 1000
    if kind == "NaiveEngine":   # everything ran in the push, on the main thread: the
        # call's code around its sub-operators (nested in it), then z
        assert ops == ["DepTestDot::pure_python", "DepTestDot::dot", "DepTestDot::pure_python",
                       "DepTestDot::CopyCPU2CPU", "DepTestDot::pure_python", "_plus_scalar"]
    elif pushed < sub["ts"] + sub["dur"]:
        # z was pushed before the call's sub-operator finished (the usual case: the dot
        # is long): z waited for the call, so the call's code and its dot are the path
        assert "DepTestDot::pure_python" in ops and "DepTestDot::dot" in ops
        assert ops.index("DepTestDot::pure_python") < ops.index("DepTestDot::dot")
    else:   # the main thread was kept from pushing z until after: that is the path
        assert ops == ["_plus_scalar"]


@pytest.mark.parametrize("kind", ENGINES)
def test_dumps_latency_equals_xprof_stats_on_the_trace(prof, on_engine, kind, tmp_path):
    from cli_helpers_latency import stats_json

    on_engine(kind)
    prof.start(profile_all=True, aggregate_stats=True)
    x = mx.nd.ones((100, 100))
    for _ in range(10):
        x = mx.nd.dot(x, x) * 0.01
    x.wait_to_read()
    prof.finish()
    runtime = json.loads(mx.profiler.dumps(format="json"))
    assert list(runtime)[-1] == "Unit"
    cli = stats_json(prof.path)
    assert runtime["Operator Latency"] == cli["Operator Latency"]
    row = runtime["Operator Latency"]["dot"]
    assert row["Count"] == 10 and set(row) == {"Count", "Dependency", "Queue", "Run"}
    assert "Latency" in mx.profiler.dumps()


def test_profiling_off_records_nothing(on_engine):
    from xprof.runtime.profiler import recorder as R

    on_engine("ThreadedEngine")
    before = R.count(R.snapshot())
    x = mx.nd.ones((8, 8)) + 1
    x.wait_to_read()
    mx.nd.waitall()
    assert R.count(R.snapshot()) == before
