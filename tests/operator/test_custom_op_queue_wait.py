"""A custom-operator call whose inputs are ready when it is pushed but which waits for
the pool's one thread (``XPROF_CUSTOM_OP_NUM_THREADS=1``, the thread busy with the call
before) waits in the queue (ready -> start), not for dependencies (push -> ready): in
``xprof stats``'s Operator Latency and in ``xprof explain``'s path. Ground truth: the
script's own clock, at the push and inside ``forward``."""
import json
import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent('''
    import json, sys, time
    import xprof.runtime as mx

    starts = []

    class Hold(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            starts.append(time.perf_counter_ns())
            time.sleep(0.03)   # the work: the pool's one thread is busy meanwhile
            self.assign(out_data[0], req[0], in_data[0] + 1)

    @mx.operator.register("Hold")
    class HoldProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Hold()

    xs = [mx.nd.ones((4,)) for _ in range(3)]
    mx.nd.waitall()             # every input ready before the calls are pushed
    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=sys.argv[1])
    mx.profiler.set_state("run")
    pushes, outs = [], []
    for x in xs:
        pushes.append(time.perf_counter_ns())
        outs.append(mx.nd.Custom(x, op_type="Hold"))
    mx.nd.waitall()
    mx.profiler.set_state("stop")
    mx.profiler.dump()
    json.dump({"push": pushes, "start": starts}, open(sys.argv[2], "w"))
''')


def _run(args, tmp_path, **kw):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    env.update(kw.pop("env", {}))
    out = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env=env, **kw)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_a_call_waiting_for_the_pool_thread_is_queue_wait_not_dependency(tmp_path):
    script, trace, truth = tmp_path / "hold.py", tmp_path / "hold.json", tmp_path / "truth.json"
    script.write_text(SCRIPT)
    _run([sys.executable, str(script), str(trace), str(truth)], tmp_path,
         env={"XPROF_CUSTOM_OP_NUM_THREADS": "1", "XPROF_ENGINE_TYPE": "ThreadedEngine"})
    truth = json.loads(truth.read_text())
    waited = [s - p for p, s in zip(truth["push"], truth["start"])]   # ns, push -> forward
    assert waited[2] > 50_000_000     # the setup: the third call waited for two 30 ms calls
    doc = json.loads(trace.read_text())
    calls = sorted((e for e in doc["traceEvents"]
                    if e["ph"] == "X" and e["name"] == "Hold::pure_python"),
                   key=lambda e: e["ts"])
    assert len(calls) == 3
    for e, truth_ns in zip(calls, waited):
        p, q = e["args"]["dep"][:2]
        assert p - q == 0                     # ready when pushed: no dependency wait
        # the call's stamps lie between the script's push and its forward's first line
        # (a few statements each way: the slack allows for a loaded machine)
        assert truth_ns - max(10_000_000, truth_ns // 4) <= q <= truth_ns
    stats = json.loads(_run([sys.executable, "-m", "xprof.mxcli", "stats", str(trace),
                             "--format", "json"], tmp_path))
    row = stats["Operator Latency"]["Hold::pure_python"]
    assert row["Count"] == 3 and row["Dependency"]["Max"] == 0
    assert row["Queue"]["Max"] == max(e["args"]["dep"][1] for e in calls) / 1e6
    path = json.loads(_run([sys.executable, "-m", "xprof.mxcli", "explain", str(trace),
                            "--format", "json"], tmp_path))["critical_path"]
    last = calls[-1]
    queue = [s for s in path if s["kind"] == "queue" and s["name"] == "Hold::pure_python"]
    assert [s for s in path if s["kind"] == "dependency"
            and s["name"] == "Hold::pure_python"] == []
    assert len(queue) == 1 and abs(queue[0]["ts"] + queue[0]["dur"] - last["ts"]) < 1e-3
    assert abs(queue[0]["dur"] - last["args"]["dep"][1] / 1000) < 1e-3
