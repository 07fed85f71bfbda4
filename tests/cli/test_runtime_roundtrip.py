"""A trace written by the xprof runtime validates, normalizes, and gives the same stats.

Runs the runtime in a fresh interpreter (it starts engine threads) with a custom
operator, a user task and a marker, then reads its trace with the three commands.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from cli_helpers import cli

SCRIPT = textwrap.dedent("""
    import json, sys
    import xprof.runtime as mx
    from xprof.runtime import profiler
    out = sys.argv[1]
    profiler.set_config(profile_all=True, filename=out + "/profile.json", aggregate_stats=True)
    profiler.set_state("run")
    a = mx.nd.ones((4, 4))
    for _ in range(3):
        b = (a + 1) * 2
        c = mx.nd.dot(b, b)
    c.wait_to_read()

    class AddOne(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] + 1)
        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], out_grad[0])

    @mx.operator.register("addone")
    class AddOneProp(mx.operator.CustomOpProp):
        def list_arguments(self): return ["data"]
        def list_outputs(self): return ["output"]
        def infer_shape(self, in_shape): return in_shape, [in_shape[0]], []
        def create_operator(self, ctx, shapes, dtypes): return AddOne()

    x = mx.nd.ones((3,))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="addone")
    y.backward()
    mx.nd.waitall()
    d = profiler.Domain("mydomain")
    t = profiler.Task(d, "task1"); t.start(); t.stop()
    profiler.Marker(d, "mark").mark("process")
    profiler.set_state("stop")
    open(out + "/dumps.json", "w").write(profiler.dumps(format="json"))
    profiler.dump()
""")


def test_runtime_trace_roundtrip(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    trace = tmp_path / "profile.json"
    res = cli("validate", trace)
    assert res.exit_code == 0, res.stdout
    assert res.stdout.splitlines()[-1].endswith(" 0 errors, 0 warnings")

    stats = json.loads(cli("stats", trace, "--format", "json").stdout)
    dumps = json.loads((tmp_path / "dumps.json").read_text())
    # Same aggregator, same numbers: every time row profiler.dumps() reports is identical.
    assert stats["Time"] == dumps["Time"]
    assert stats["Custom Operator Calls"] == dumps["Custom Operator Calls"]
    assert set(stats["Memory"]) == set(dumps["Memory"])
    rows = stats["Time"]["Custom Operator"]
    assert "addone::pure_python" in rows and "_backward_addone::pure_python" in rows

    out = tmp_path / "norm.json"
    res = cli("trace", trace, "-o", out)
    assert res.exit_code == 0, res.stdout + res.stderr
    doc = json.loads(out.read_text())
    names = {e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"}
    assert any(n.endswith("· Custom Operator") for n in names)
    flows = [e for e in doc["traceEvents"] if e["ph"] in ("s", "f")]
    assert flows and len(flows) == sum(1 for e in json.loads(trace.read_text())["traceEvents"]
                                       if e["ph"] in ("s", "f"))
