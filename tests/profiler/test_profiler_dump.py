"""Writing the trace: continuous dump, and a complete trace on every way out of a process
(normal exit, sys.exit, uncaught exception, SIGTERM), autostart from the environment."""
import json
import os
import signal
import subprocess
import sys

import pytest

import xprof.runtime as mx

import proftools as pt

P = mx.profiler


def _read_json(path):
    """The file's document, or None if it does not exist yet. A file that exists must
    always be complete JSON (writes are atomic)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None
    return json.loads(data)


def test_continuous_dump_is_always_valid_and_grows(prof):
    prof.start(profile_all=True, continuous_dump=True, dump_period=0.02)
    x = mx.nd.ones((8, 8))
    seen = []   # event counts of distinct versions of the file

    def grew_twice():
        nonlocal x
        for _ in range(20):
            x = (x + 1) * 0.5
        x.wait_to_read()
        doc = _read_json(prof.path)
        if doc is None:
            return False
        pt.check_document(doc)
        n = len(doc["traceEvents"])
        if not seen or n != seen[-1][0]:
            if seen:
                assert n > seen[-1][0], "the trace on disk shrank"
                previous = seen[-1][1]
                assert previous <= {(e["name"], e["ts"]) for e in pt.events(doc, "X")}, \
                    "events of an earlier write are missing from a later one"
            seen.append((n, {(e["name"], e["ts"]) for e in pt.events(doc, "X")}))
        return len(seen) >= 3

    pt.wait_until(grew_twice, timeout=60, what="the continuous dump to grow twice")
    assert P.state() == "run" and P.is_recording()
    doc = prof.finish()
    assert len(doc["traceEvents"]) >= seen[-1][0]


def test_continuous_dump_stops_with_the_session(prof):
    prof.start(profile_all=True, continuous_dump=True, dump_period=0.01)
    mx.nd.ones((4,)).sqrt().wait_to_read()
    pt.wait_until(lambda: _read_json(prof.path), timeout=30, what="a first write")
    doc = prof.finish()
    os.unlink(prof.path)
    # a later session without continuous dump: nothing writes the old file again
    prof.start(profile_all=True, filename=str(prof.tmp_path / "other.json"))
    mx.nd.ones((4,)).exp().wait_to_read()
    prof.finish()
    assert not os.path.exists(prof.path)
    assert "sqrt" in {e["name"] for e in pt.events(doc, "X")}


_EXIT_SCRIPT = r'''
import sys
import xprof.runtime as mx

mode, path = sys.argv[1], sys.argv[2]
mx.profiler.set_config(profile_all=True, filename=path)
mx.profiler.set_state("run")
dom = mx.profiler.Domain("script")
ctr = dom.new_counter("iterations", 0)
x = mx.nd.ones((8, 8))
for _ in range(5):
    x = x.sqrt() + 1
if mode == "exit":
    sys.exit(3)
if mode == "raise":
    raise RuntimeError("boom-uncaught")
if mode == "stopped":
    mx.nd.waitall()
    mx.profiler.set_state("stop")
if mode == "loop":
    i = 0
    while True:
        x = (x * 1.0001 + 0.5) / 1.0001
        ctr += 1
        i += 1
        if i == 100:
            print("ready", flush=True)
        if i % 50 == 0:
            x.wait_to_read()
'''


@pytest.fixture
def exit_script(tmp_path):
    path = tmp_path / "exit_script.py"
    path.write_text(_EXIT_SCRIPT)
    return str(path)


def _check_complete(path, ops=5):
    doc = pt.load(path)
    pt.check_document(doc)
    pt.check_nesting(doc)
    counts = pt.name_counts(doc)
    assert counts[("operator", "sqrt")] == ops and counts[("API", "sqrt")] == ops, counts
    return doc


@pytest.mark.parametrize("mode, rc", [("normal", 0), ("exit", 3), ("raise", 1),
                                      ("stopped", 0)])
def test_trace_written_at_exit(tmp_path, exit_script, mode, rc):
    trace = str(tmp_path / f"{mode}.json")
    proc = pt.run_py([exit_script, mode, trace], cwd=tmp_path)
    assert proc.returncode == rc, proc.stderr
    if mode == "raise":
        assert "boom-uncaught" in proc.stderr
    else:
        assert "Traceback" not in proc.stderr, proc.stderr
    _check_complete(trace)
    assert not os.path.exists(tmp_path / "profile.json")


def _sigterm_when_ready(cmd, cwd, env):
    """Start ``cmd``, send SIGTERM once it prints "ready", and check it exits with
    128 + SIGTERM (killed after 60 s otherwise, so a hang fails instead of hanging)."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=pt.clean_env(env), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "ready\n"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 128 + signal.SIGTERM, err


@pytest.mark.parametrize("engine_type, rounds", [("ThreadedEngine", 5), ("NaiveEngine", 1)])
def test_sigterm_mid_loop_leaves_complete_trace(tmp_path, exit_script, engine_type, rounds):
    for r in range(rounds):
        trace = str(tmp_path / f"sigterm-{r}.json")
        _sigterm_when_ready([sys.executable, exit_script, "loop", trace], tmp_path,
                            {"XPROF_ENGINE_TYPE": engine_type})
        doc = _check_complete(trace)
        counts = pt.name_counts(doc)
        assert counts[("operator", "_mul_scalar")] >= 100
        samples = [e["args"]["iterations"] for e in pt.events(doc, "C")
                   if e["name"] == "iterations"]
        assert samples == list(range(len(samples))) and len(samples) > 100
        assert doc["otherData"]["engine"] == engine_type


@pytest.mark.parametrize("var", ["XPROF_PROFILER_AUTOSTART", "MXNET_PROFILER_AUTOSTART"])
def test_autostart_writes_profile_json_in_cwd(tmp_path, var):
    script = tmp_path / "auto.py"
    script.write_text("import xprof.runtime as mx\n"
                      "x = mx.nd.ones((4, 4))\n"
                      "y = (x.sqrt() + 1).exp()\n"
                      "print(y.asnumpy().sum())\n")
    proc = pt.run_py([str(script)], cwd=tmp_path, env_extra={var: "1"})
    assert proc.returncode == 0, proc.stderr
    doc = pt.load(str(tmp_path / "profile.json"))
    pt.check_document(doc)
    pt.check_nesting(doc)
    counts = pt.name_counts(doc)
    # default mode, as MXNet 1.9.1's: every kind, operators included
    assert counts[("API", "sqrt")] == 1 and counts[("API", "exp")] == 1
    assert counts[("API", "asnumpy")] == 1
    assert counts[("operator", "sqrt")] == 1 and counts[("operator", "exp")] == 1
    assert pt.events(doc, "C", "Device Storage")


def test_no_profile_without_autostart(tmp_path):
    script = tmp_path / "plain.py"
    script.write_text("import xprof.runtime as mx\nprint(mx.nd.ones((2,)).asnumpy())\n")
    proc = pt.run_py([str(script)], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert os.listdir(tmp_path) == ["plain.py"]


# -- where SIGTERM turns into SystemExit --------------------------------------------------
def test_sigterm_in_user_code_called_by_the_runtime_raises_there(on_engine):
    """A forward is the user's code: the exit is raised where the signal landed (the
    engine then re-raises it to the pusher); inside the runtime's own code it waits
    until control is back in the user's frame."""
    from xprof.runtime.engine import signals

    here = sys._getframe()
    assert signals.safe_frame(here) is here
    seen = {}

    class Probe(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            me = sys._getframe()
            seen["forward"] = signals.safe_frame(me) is me
            seen["caller"] = signals.safe_frame(me.f_back)   # the runtime's frame
            self.assign(out_data[0], req[0], in_data[0])

    class ProbeProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Probe()

    mx.operator.register("SigtermProbe")(ProbeProp)
    on_engine("NaiveEngine")   # forward runs inline, called from inside the runtime
    mx.nd.Custom(mx.nd.ones((1,)), op_type="SigtermProbe").wait_to_read()
    assert seen["forward"]
    assert seen["caller"] is here, "inside the runtime, exit waits for the user's frame"


_DEFERRED_SCRIPT = r'''
import signal, sys
import xprof.runtime as mx
from xprof.runtime.profiler import exits

class Sig(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        # what the signal handler does when SIGTERM lands inside the runtime (in the
        # runtime's frame that called forward)
        exits._on_sigterm(signal.SIGTERM, sys._getframe(1))
        print("forward continues", flush=True)
        self.assign(out_data[0], req[0], in_data[0] + 1)

class SigProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return Sig()

mx.operator.register("Sig")(SigProp)
mx.profiler.set_config(profile_all=True, filename=sys.argv[1])
mx.profiler.set_state("run")
y = mx.nd.Custom(mx.nd.ones((2,)), op_type="Sig")
print("not reached", flush=True)
'''


def test_sigterm_inside_the_runtime_exits_in_user_code(tmp_path):
    script = tmp_path / "deferred.py"
    script.write_text(_DEFERRED_SCRIPT)
    trace = str(tmp_path / "deferred.json")
    proc = pt.run_py([str(script), trace], cwd=tmp_path,
                     env_extra={"XPROF_ENGINE_TYPE": "NaiveEngine"})
    assert proc.returncode == 128 + signal.SIGTERM, proc.stderr
    assert "forward continues" in proc.stdout and "not reached" not in proc.stdout
    doc = pt.load(trace)
    pt.check_document(doc)
    counts = pt.name_counts(doc)
    assert counts[("Custom Operator", "Sig::pure_python")] == 1
    assert counts[("Custom Operator", "Sig::CopyCPU2CPU")] == 1


_STUCK_SCRIPT = r'''
import sys, threading
import xprof.runtime as mx

class Stuck(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        threading.Event().wait()          # never returns

class StuckProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return Stuck()

mx.operator.register("Stuck")(StuckProp)
mx.profiler.set_config(profile_all=True, filename=sys.argv[2])
mx.profiler.set_state("run")
x = mx.nd.ones((3,))
(x + 1).wait_to_read()
y = mx.nd.Custom(x, op_type="Stuck")
print("ready", flush=True)
if sys.argv[1] == "wait_to_read":
    y.wait_to_read()
else:
    mx.nd.waitall()
'''


@pytest.mark.parametrize("how", ["wait_to_read", "waitall"])
def test_sigterm_while_blocked_on_a_stuck_op(tmp_path, how):
    script = tmp_path / "stuck.py"
    script.write_text(_STUCK_SCRIPT)
    trace = str(tmp_path / "stuck.json")
    _sigterm_when_ready([sys.executable, str(script), how, trace], tmp_path,
                        {"XPROF_ENGINE_EXIT_TIMEOUT": "1"})
    doc = pt.load(trace)
    pt.check_document(doc)
    assert pt.name_counts(doc)[("operator", "_plus_scalar")] == 1
