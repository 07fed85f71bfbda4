"""The span of each custom-operator call and its breakdown, against ground truth.

Ground truth is measured with ``time.perf_counter`` inside ``forward``: a busy Python
loop of a known duration, a blocking ``wait_to_read`` on a heavy ``dot``, and a few
sub-operators. Python and Blocked must agree within 10%; Latency = Queued + Python +
Blocked + Tail exactly for every call in the trace; ``xprof stats`` on the saved trace
must print the same section as ``dumps()``. Both engines, imperative and symbolic, and
several Python threads calling at once.
"""
import json
import time

import pytest

import xprof.runtime as mx
from xprof.traces import callstats

import proftools as pt
from threadtools import run_in_threads

CAT = "Custom Operator"
BUSY_S = 0.004        # the busy loop of GTBusy
SIZE = 320            # GTWait's dot: heavy enough to block on (several ms)

truth = {}            # op name -> [(python s, blocked s)] measured inside forward


def _measured(name, python, blocked):
    # no lock: setdefault and append are atomic under the GIL, and a lock several pool
    # threads wait for would add waits between the truth's end and the call's end
    truth.setdefault(name, []).append((python, blocked))


class GTBusy(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        t0 = time.perf_counter()
        end = t0 + BUSY_S
        while time.perf_counter() < end:
            pass
        self.assign(out_data[0], req[0], in_data[0] * 2)     # one sub-operator
        _measured("GTBusy", time.perf_counter() - t0, 0.0)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        t0 = time.perf_counter()
        self.assign(in_grad[0], req[0], out_grad[0] * 2)
        _measured("_backward_GTBusy", time.perf_counter() - t0, 0.0)


class GTWait(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        t0 = time.perf_counter()
        x = in_data[0]
        y = mx.nd.dot(mx.nd.dot(x, x), x)                   # two heavy sub-operators
        tw = time.perf_counter()
        y.wait_to_read()
        blocked = time.perf_counter() - tw
        self.assign(out_data[0], req[0], y + 1)               # and two more
        _measured("GTWait", time.perf_counter() - t0 - blocked, blocked)


def _prop(op_cls):
    """A prop for ``op_cls``: one input ``data``, one output of its shape (the defaults)."""
    class Prop(mx.operator.CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=True)

        def create_operator(self, ctx, shapes, dtypes):
            return op_cls()
    return Prop


mx.operator.register("GTBusy")(_prop(GTBusy))
mx.operator.register("GTWait")(_prop(GTWait))


@pytest.fixture(autouse=True)
def ground_truth():
    truth.clear()
    yield


def call_spans(doc):
    """``[(name, latency ns, args)]`` of the trace's call spans (b/e pairs, exact ns)."""
    begins = {}
    out = []
    for e in doc["traceEvents"]:
        if e.get("cat") != CAT or e.get("ph") not in ("b", "e"):
            continue
        key = (e["pid"], e["id"], e["name"])
        if e["ph"] == "b":
            begins[key] = e
        else:
            b = begins.pop(key)
            out.append((e["name"], round(e["ts"] * 1000) - round(b["ts"] * 1000), b["args"]))
    assert not begins, f"call spans left open: {begins}"
    return out


def check_exact_sums(doc):
    spans = call_spans(doc)
    for name, latency, args in spans:
        parts = [args[k] for k in ("queued_ns", "python_ns", "blocked_ns", "tail_ns")]
        assert all(type(args[k]) is int and args[k] >= 0 for k in callstats.ARG_KEYS), \
            (name, args)
        assert sum(parts) == latency, (name, latency, args)
        assert args["inputs_ns"] + args["pool_ns"] == args["queued_ns"], (name, args)
    return spans


def check_against_truth(section, name):
    """Python and Blocked averages within 10% (+ 0.3 ms for timer and framework noise)."""
    rows = truth[name]
    py = 1000 * sum(p for p, _ in rows) / len(rows)
    bl = 1000 * sum(b for _, b in rows) / len(rows)
    row = section[name]
    assert row["Count"] == len(rows)
    assert row["Python"] == pytest.approx(py, rel=0.10, abs=0.3), (name, row, py)
    assert row["Blocked"] == pytest.approx(bl, rel=0.10, abs=0.3), (name, row, bl)
    lat = row["Latency"]
    assert lat["Min"] <= lat["P50"] <= lat["P95"] <= lat["Max"]
    parts = sum(row[k] for k in ("Queued", "Python", "Blocked", "Tail"))
    assert parts == pytest.approx(lat["Avg"], abs=1e-5)
    assert row["Inputs"] + row["Pool"] == pytest.approx(row["Queued"], abs=1e-5)


def stats_of_trace(path):
    from click.testing import CliRunner

    from xprof.mxcli.main import main

    res = CliRunner().invoke(main, ["stats", str(path), "--format", "json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def run_and_check(prof, work, names, engine_name):
    prof.start(profile_all=True, aggregate_stats=True)
    work()
    prof.stop()
    section = prof.stats()["Custom Operator Calls"]
    doc = prof.finish()
    pt.check_document(doc)
    spans = check_exact_sums(doc)
    assert {n for n, _, _ in spans} == set(names)
    for name in names:
        if name in truth:
            check_against_truth(section, name)
    # the saved trace gives the same section as dumps() in the process
    assert stats_of_trace(prof.path)["Custom Operator Calls"] == section
    return section, spans


def test_imperative_busy_and_wait(prof, engine):
    x = mx.nd.random.uniform(shape=(SIZE, SIZE)) / SIZE
    v = mx.nd.ones((64,))
    mx.nd.waitall()

    def work():
        for _ in range(4):
            mx.nd.Custom(v, op_type="GTBusy")
            mx.nd.Custom(x, op_type="GTWait").wait_to_read()
        mx.nd.waitall()

    section, spans = run_and_check(prof, work, ["GTBusy", "GTWait"], engine.name)
    wait = section["GTWait"]
    assert wait["Sub-operators"] > 0 and section["GTBusy"]["Python"] >= BUSY_S * 1000


def test_backward_calls_are_named_backward(prof, engine):
    v = mx.nd.ones((64,))
    v.attach_grad()

    def work():
        for _ in range(3):
            with mx.autograd.record():
                y = mx.nd.Custom(v, op_type="GTBusy")
            y.backward()
        mx.nd.waitall()

    section, _ = run_and_check(prof, work, ["GTBusy", "_backward_GTBusy"], engine.name)
    assert section["_backward_GTBusy"]["Count"] == 3


def test_symbolic(prof, engine):
    data = mx.sym.Variable("data")
    net = mx.sym.Custom(mx.sym.Custom(data, op_type="GTBusy", name="busy"), op_type="GTWait",
                        name="wait")
    exe = net.simple_bind(mx.cpu(), data=(SIZE, SIZE))
    exe.arg_dict["data"][:] = mx.nd.random.uniform(shape=(SIZE, SIZE)) / SIZE
    mx.nd.waitall()

    def work():
        for _ in range(3):
            exe.forward(is_train=False)
            exe.outputs[0].wait_to_read()

    section, _ = run_and_check(prof, work, ["GTBusy", "GTWait"], engine.name)
    assert section["GTWait"]["Count"] == section["GTBusy"]["Count"] == 3


def test_several_threads_at_once(prof, engine):
    x = mx.nd.random.uniform(shape=(SIZE, SIZE)) / SIZE
    v = mx.nd.ones((64,))
    mx.nd.waitall()

    def work():
        def one(i):
            for _ in range(3):
                mx.nd.Custom(v, op_type="GTBusy")
                mx.nd.Custom(x, op_type="GTWait").wait_to_read()
        assert run_in_threads(one, 3, timeout=120) == []
        mx.nd.waitall()

    section, spans = run_and_check(prof, work, ["GTBusy", "GTWait"], engine.name)
    assert section["GTBusy"]["Count"] == section["GTWait"]["Count"] == 9
    assert len(spans) == 18


class GTBoom(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        raise ValueError("boom")


mx.operator.register("GTBoom")(_prop(GTBoom))


def test_an_exception_in_forward_still_ends_its_span(prof, engine):
    prof.start(profile_all=True, aggregate_stats=True)
    y = mx.nd.Custom(mx.nd.ones((4,)), op_type="GTBoom")
    with pytest.raises(ValueError, match="boom"):
        y.asnumpy()
    doc = prof.finish()
    assert [n for n, _, _ in check_exact_sums(doc)] == ["GTBoom"]
    # the engine keeps working afterwards
    assert (mx.nd.ones((2,)) + 1).asnumpy().tolist() == [2.0, 2.0]


def test_no_spans_when_profiling_is_off(prof):
    prof.start(profile_all=True)
    mx.profiler.set_state("stop")
    mx.nd.Custom(mx.nd.ones((4,)), op_type="GTBusy").wait_to_read()
    mx.profiler.set_state("run")
    mx.nd.Custom(mx.nd.ones((4,)), op_type="GTBusy").wait_to_read()
    doc = prof.finish()
    assert len(call_spans(doc)) == 1


PROMISES = {   # what custom_op_breakdown.py's docstring says each op's line reads
    "Busy": r"\d+% of its latency runs its Python code",
    "Waiter": r"\d+% of its latency waits at sync points in its Python code",
    "Chain": r"\d+% of its latency waits for its sub-operators after its Python code returned",
    "Fed": r"\d+% of its latency waits for its inputs to be written \(by dot\)",
}


def test_sample_script_says_what_it_promises_on_every_run(tmp_path):
    """Five runs, each one saying the docstring's four statements, and the script's own
    clock (perf_counter inside forward) agreeing with xprof's Python and Blocked."""
    import os
    import re
    import subprocess
    import sys

    script = os.path.join(os.path.dirname(__file__), "..", "..", "sample_scripts",
                          "custom_op_breakdown.py")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    for run in range(5):
        trace = tmp_path / f"t{run}.json"
        proc = subprocess.run([sys.executable, script, "--steps", "2", "--output", str(trace)],
                              cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr
        says = dict(line.split(": ", 1) for line in proc.stdout.splitlines()
                    if line.split(":")[0] in PROMISES)
        for op, promise in PROMISES.items():
            assert re.fullmatch(promise + r".*", says.get(op, "")), (run, op, proc.stdout)
        for line in proc.stdout.splitlines():   # op calls latency inputs pool python ...
            cols = line.split()
            if cols and cols[0] in PROMISES and " / " in line:
                python, blocked = float(cols[5]), float(cols[6])
                assert python == pytest.approx(float(cols[-3]), rel=0.10, abs=0.3), line
                assert blocked == pytest.approx(float(cols[-1]), rel=0.10, abs=0.3), line
    assert stats_of_trace(trace)["Custom Operator Calls"]["Waiter"]["Count"] == 2
