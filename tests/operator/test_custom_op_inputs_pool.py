"""Queued = Inputs + Pool, against ground truth, and the Setup of creating an operator.

The bounds come from the order of events, not from how fast anything ran: the script
reads ``perf_counter_ns`` right before and right after each ``mx.nd.Custom`` and on
the first and last line of each ``forward``, so

* a call whose input is written by a slow call (``Slow``: 30 ms of Python, begun once
  the next call is pushed, an event: the order is certain, not raced) waits for its
  inputs at least from the end of the slow call's ``forward`` to the end of its own push,
  and at most from the start of its push to its own ``forward``'s first line;
* with one custom-op thread (``XPROF_CUSTOM_OP_NUM_THREADS=1``), the second of two
  calls whose inputs are ready waits for the pool at least from the end of the first
  call's ``forward`` to the end of its push, and for its inputs at most as long as its
  push took.

Setup: an operator whose ``create_operator`` launches an op and whose ``__init__``
spins in Python for a measured time; the launched op is named ``<op_type>::<name>`` and
counted in the call's Sub-operators, the Python time of creation is ``Setup``.
"""
import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

import xprof.runtime as mx

SCRIPT = textwrap.dedent('''
    import json, sys, threading, time
    import xprof.runtime as mx
    clock = time.perf_counter_ns
    truth = {"start": [], "end": []}
    # calls 0 and 2 begin their work once the next call is pushed: the order is certain
    pushed = {0: threading.Event(), 2: threading.Event()}

    class Slow(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            i = len(truth["start"])   # (one pool thread: calls run in push order)
            truth["start"].append(clock())
            if i in pushed:
                assert pushed[i].wait(60)
            end = clock() + 30_000_000
            while clock() < end:      # 30 ms of Python on the pool's thread
                pass
            self.assign(out_data[0], req[0], in_data[0] + 1)
            truth["end"].append(clock())

    @mx.operator.register("Slow")
    class SlowProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Slow()

    def push(x):
        t0 = clock()
        y = mx.nd.Custom(x, op_type="Slow")
        truth.setdefault("push", []).append((t0, clock()))
        return y

    xs = [mx.nd.ones((4,)) for _ in range(3)]
    mx.nd.waitall()             # every input ready before the calls are pushed
    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=sys.argv[1])
    mx.profiler.set_state("run")
    a = push(xs[0])             # call 0
    b = push(a)                 # call 1: its input is call 0's output
    pushed[0].set()
    mx.nd.waitall()
    push(xs[1])                 # call 2: holds the pool's one thread
    push(xs[2])                 # call 3: inputs ready, waits for the thread
    pushed[2].set()
    mx.nd.waitall()
    mx.profiler.set_state("stop")
    mx.profiler.dump()
    json.dump(truth, open(sys.argv[2], "w"))
''')


def _spans(doc, name):
    """``[(t_push ns, latency ns, args)]`` of the trace's call spans of ``name``, by push."""
    begins, out = {}, []
    for e in doc["traceEvents"]:
        if e.get("cat") != "Custom Operator" or e.get("ph") not in ("b", "e") \
                or e["name"] != name:
            continue
        key = (e["pid"], e["id"])
        if e["ph"] == "b":
            begins[key] = e
        else:
            b = begins.pop(key)
            t0 = round(b["ts"] * 1000)
            out.append((t0, round(e["ts"] * 1000) - t0, b["args"]))
    return sorted(out, key=lambda s: s[0])


@pytest.fixture(scope="module")
def pool_of_one(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("inputs_pool")
    script, trace, truth = tmp / "slow.py", tmp / "slow.json", tmp / "truth.json"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    env.update(XPROF_CUSTOM_OP_NUM_THREADS="1", XPROF_ENGINE_TYPE="ThreadedEngine")
    out = subprocess.run([sys.executable, str(script), str(trace), str(truth)], cwd=tmp,
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(trace.read_text()), json.loads(truth.read_text()), trace


def test_queued_is_inputs_plus_pool_exactly(pool_of_one):
    doc, _, _ = pool_of_one
    spans = _spans(doc, "Slow")
    assert len(spans) == 4
    for _, latency, args in spans:
        assert args["inputs_ns"] + args["pool_ns"] == args["queued_ns"]
        assert sum(args[k] for k in ("queued_ns", "python_ns", "blocked_ns", "tail_ns")) \
            == latency


def test_a_call_fed_by_a_slow_call_waits_for_its_inputs(pool_of_one):
    doc, truth, _ = pool_of_one
    _, _, args = _spans(doc, "Slow")[1]
    (before, after), start = truth["push"][1], truth["start"][1]
    slow_end = truth["end"][0]
    assert slow_end - after >= 30_000_000       # (the setup: pushed before call 0's work)
    assert slow_end - after <= args["inputs_ns"] <= start - before
    assert args["pool_ns"] <= start - slow_end


def test_the_second_call_on_one_thread_waits_for_the_pool(pool_of_one):
    doc, truth, _ = pool_of_one
    _, _, args = _spans(doc, "Slow")[3]
    (before, after), start = truth["push"][3], truth["start"][3]
    first_end = truth["end"][2]
    assert first_end - after >= 30_000_000      # (the setup: pushed before call 2's work)
    assert first_end - after <= args["pool_ns"] <= start - before
    assert args["inputs_ns"] <= after - before  # ready when pushed


def test_stats_gives_inputs_and_pool_per_call(pool_of_one):
    doc, _, trace = pool_of_one
    from click.testing import CliRunner

    from xprof.mxcli.main import main

    res = CliRunner().invoke(main, ["stats", str(trace), "--format", "json"])
    assert res.exit_code == 0, res.output
    row = json.loads(res.stdout)["Custom Operator Calls"]["Slow"]
    spans = _spans(doc, "Slow")
    for key, arg in (("Inputs", "inputs_ns"), ("Pool", "pool_ns"), ("Queued", "queued_ns")):
        assert row[key] == pytest.approx(sum(a[arg] for _, _, a in spans) / 4 / 1e6, abs=1e-6)
    assert row["Latency"]["Avg"] == pytest.approx(
        sum(lat for _, lat, _ in spans) / 4 / 1e6, abs=1e-6)


# -- Setup ------------------------------------------------------------------------------
setup_truth = []      # Python time of each creation, measured in __init__ (ns)
SETUP_SPIN_NS = 3_000_000


class Prepared(mx.operator.CustomOp):
    def __init__(self, weight):
        t0 = time.perf_counter_ns()
        self.weight = weight
        end = t0 + SETUP_SPIN_NS
        while time.perf_counter_ns() < end:   # Python work of the creation
            pass
        setup_truth.append(time.perf_counter_ns() - t0)

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * self.weight)


class PreparedProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        weight = mx.nd.random.uniform(shape=tuple(shapes[0]))   # an op of the creation
        return Prepared(weight)


mx.operator.register("Prepared")(PreparedProp)


def _subs(doc, name):
    return [e for e in doc["traceEvents"] if e.get("ph") == "X" and e["name"] == name]


def test_ops_launched_by_the_creation_are_the_operators_and_setup_is_its_python(prof, engine):
    setup_truth.clear()
    x = mx.nd.ones((50, 50))
    mx.nd.waitall()
    prof.start(profile_all=True, aggregate_stats=True)
    outer = 0               # the time in mx.nd.Custom, which creates the operator
    for _ in range(3):      # mx.nd.Custom creates its operator on every call, as MXNet does
        t0 = time.perf_counter_ns()
        y = mx.nd.Custom(x, op_type="Prepared")
        outer += time.perf_counter_ns() - t0
        y.wait_to_read()
    mx.nd.waitall()
    prof.stop()
    row = prof.stats()["Custom Operator Calls"]["Prepared"]
    doc = prof.finish()
    made = _subs(doc, "Prepared::_random_uniform")
    assert len(made) == 3 and {e["cat"] for e in made} == {"Custom Operator"}
    assert [e for e in _subs(doc, "_random_uniform") if e["cat"] == "operator"] == []
    assert row["Count"] == 3
    per_call = sum(setup_truth) / 3 / 1e6
    assert per_call <= row["Setup"] <= outer / 3 / 1e6     # __init__ <= creation <= the call
    own = sum(e["dur"] for e in doc["traceEvents"] if e.get("ph") == "X"
              and e["name"].startswith("Prepared::") and e["name"] != "Prepared::pure_python")
    own = own / 3 / 1000
    assert row["Sub-operators"] == pytest.approx(own, rel=0.01, abs=0.002)


def test_an_executor_creates_once_and_its_first_call_carries_the_setup(prof):
    setup_truth.clear()
    net = mx.sym.Custom(mx.sym.Variable("data"), op_type="Prepared", name="p")
    prof.start(profile_all=True, aggregate_stats=True)
    exe = net.simple_bind(mx.cpu(), data=(50, 50))
    for _ in range(4):
        exe.forward(is_train=False)
        exe.outputs[0].wait_to_read()
    mx.nd.waitall()
    prof.stop()
    row = prof.stats()["Custom Operator Calls"]["Prepared"]
    doc = prof.finish()
    assert len(setup_truth) == 1 and len(_subs(doc, "Prepared::_random_uniform")) == 1
    assert row["Count"] == 4
    spans = _spans(doc, "Prepared")
    assert [a["setup_ns"] > 0 for _, _, a in spans] == [True, False, False, False]
    assert setup_truth[0] / 4 / 1e6 <= row["Setup"]


def test_waitall_inside_create_operator_is_allowed(prof):
    class Sync(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            mx.nd.waitall()         # on the caller's thread, before the call: not inside it
            return Prepared(mx.nd.ones(tuple(shapes[0])))

    mx.operator.register("SyncSetup")(Sync)
    prof.start(profile_all=True, aggregate_stats=True)
    y = mx.nd.Custom(mx.nd.ones((4,)), op_type="SyncSetup")
    assert y.asnumpy().tolist() == [1.0] * 4
    prof.finish()
