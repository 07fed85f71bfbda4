"""`xprof run` always ends: Ctrl-C in the script (exit 130, trace written), and after
the script a drain bounded by XPROF_ENGINE_EXIT_TIMEOUT or ended by the next signal,
with a message naming what was still running. Real signals to real subprocesses; every
wait is bounded (the drain's own default is 30 s, longer than the waits here)."""
import json
import os
import queue
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

import xprof.runtime

RUNTIME = os.path.dirname(os.path.abspath(xprof.runtime.__file__))

STUCK = textwrap.dedent("""
    import sys, threading
    import xprof.runtime as mx

    class Stuck(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            threading.Event().wait()          # never returns

    class StuckProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Stuck()

    mx.operator.register("Stuck")(StuckProp)
    x = mx.nd.ones((3,))
    (x + 1).wait_to_read()
    y = mx.nd.Custom(x, op_type="Stuck")
    z = y * 2                                 # waits for the stuck call
    print("ready", flush=True)
""")

LOOP = textwrap.dedent("""
    import xprof.runtime as mx
    x = mx.nd.ones((4, 4))
    i = 0
    while True:
        y = x + 1
        i += 1
        if i == 200:
            print("ready", flush=True)
""")


def _env(extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    env.update(extra or {})
    return env


class _Run:
    """``xprof run SCRIPT`` with stdout and stderr lines read as they come."""

    def __init__(self, tmp_path, body, env=None, args=()):
        script = tmp_path / "script.py"
        script.write_text(body)
        self.trace = tmp_path / "profile.json"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "xprof.mxcli", "run", "-o", str(self.trace), *args,
             str(script)],
            cwd=tmp_path, env=_env(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        self.out, self.err, self.err_lines = queue.Queue(), queue.Queue(), []
        for stream, q in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=self._read, args=(stream, q), daemon=True).start()

    @staticmethod
    def _read(stream, q):
        for line in stream:
            q.put(line.rstrip("\n"))
        q.put(None)

    def wait_line(self, q, text, timeout=30):
        """Wait for a line containing ``text`` (False if the stream ended or timed out)."""
        while True:
            try:
                line = q.get(timeout=timeout)
            except queue.Empty:
                return False
            if line is None:
                return False
            if q is self.err:
                self.err_lines.append(line)
            if text in line:
                return True

    def finish(self, timeout=60):
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("xprof run did not end") from None
        while self.wait_line(self.err, "\0", timeout=5):
            pass
        return self.proc.returncode, "\n".join(self.err_lines)


def _check_trace(path):
    doc = json.loads(path.read_text())
    res = subprocess.run([sys.executable, "-m", "xprof.mxcli", "validate", str(path)],
                         capture_output=True, text=True, timeout=60, env=_env())
    assert res.returncode == 0, res.stdout + res.stderr
    return [e["name"] for e in doc["traceEvents"]]


def test_drain_timeout_ends_the_run_and_names_what_still_runs(tmp_path):
    run = _Run(tmp_path, STUCK, {"XPROF_ENGINE_EXIT_TIMEOUT": "1"})
    code, err = run.finish()
    assert code == 0, err
    assert "stopped waiting for the engine after 1 s (XPROF_ENGINE_EXIT_TIMEOUT)" in err
    assert "still running: Stuck (custom operator)" in err
    assert "SystemExit" not in err and "Traceback" not in err
    assert "_plus_scalar" in _check_trace(run.trace)


@pytest.mark.parametrize("sig, name", [(signal.SIGINT, "Ctrl-C"), (signal.SIGTERM, "SIGTERM")])
def test_a_signal_during_the_drain_ends_it(tmp_path, sig, name):
    """The script ends with work stuck; signals are sent until the drain (30 s by
    default) says it stopped: the first may still land in the script."""
    run = _Run(tmp_path, STUCK)
    assert run.wait_line(run.out, "ready")
    stopped = False
    for _ in range(40):   # 20 s at most
        if stopped or run.proc.poll() is not None:
            break
        run.proc.send_signal(sig)
        stopped = run.wait_line(run.err, "stopped waiting for the engine", timeout=0.5)
    code, err = run.finish()
    assert stopped, err
    assert f"stopped waiting for the engine on {name}; still running: Stuck (custom " \
           "operator)" in err
    assert "SystemExit: 143" not in err and "operation failed" not in err
    assert code in (0, 130 if sig == signal.SIGINT else 143)
    assert "_plus_scalar" in _check_trace(run.trace)


def test_ctrl_c_in_a_loop_of_inline_ops_exits_130_with_the_trace(tmp_path):
    run = _Run(tmp_path, LOOP)
    assert run.wait_line(run.out, "ready")
    run.proc.send_signal(signal.SIGINT)
    code, err = run.finish()
    assert code == 130, err
    assert err.count("KeyboardInterrupt") == 1 and RUNTIME not in err   # the script's frames
    assert _check_trace(run.trace).count("_plus_scalar") >= 200


def test_sigterm_in_a_loop_of_inline_ops_exits_143_with_the_trace(tmp_path):
    run = _Run(tmp_path, LOOP)
    assert run.wait_line(run.out, "ready")
    run.proc.send_signal(signal.SIGTERM)
    code, err = run.finish()
    assert code == 143, err
    assert "Traceback" not in err
    assert _check_trace(run.trace).count("_plus_scalar") >= 200


BLOCKED = STUCK.replace('print("ready", flush=True)\n',
                        'print("ready", flush=True)\nz.wait_to_read()\n')
assert BLOCKED != STUCK


def test_one_sigterm_while_the_script_waits_on_stuck_work_stops_now(tmp_path):
    """SIGTERM means stop now: the script, blocked on a custom op that never returns,
    ends at once, and the exit drain gives pending work a second, not
    XPROF_ENGINE_EXIT_TIMEOUT's 30: the trace is written, what was stuck named."""
    run = _Run(tmp_path, BLOCKED)
    assert run.wait_line(run.out, "ready")
    run.proc.send_signal(signal.SIGTERM)
    code, err = run.finish(timeout=15)     # (30 s and more before)
    assert code == 143, err
    assert "stopped waiting for the engine on SIGTERM; still running: Stuck (custom " \
           "operator)" in err
    assert "Traceback" not in err
    assert "_plus_scalar" in _check_trace(run.trace)


def test_one_ctrl_c_while_the_script_waits_on_stuck_work_stops_now(tmp_path):
    """#40.12: one Ctrl-C used to end the script and then leave the exit drain waiting
    XPROF_ENGINE_EXIT_TIMEOUT (30 s), printing nothing meanwhile."""
    run = _Run(tmp_path, BLOCKED)
    assert run.wait_line(run.out, "ready")
    run.proc.send_signal(signal.SIGINT)
    code, err = run.finish(timeout=15)     # (30 s before)
    assert code == 130, err
    assert "stopped waiting for the engine on Ctrl-C; still running: Stuck (custom " \
           "operator)" in err
    assert "_plus_scalar" in _check_trace(run.trace)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_one_signal_ends_a_run_with_a_baseline_and_the_diff_is_printed(tmp_path, sig):
    """#40.12: the diff's reader is forked, and the fork used to wait 30 s for the stuck
    work the drain had just given up on; a second signal did not shorten it."""
    base = tmp_path / "base.json"
    small = tmp_path / "small.py"
    small.write_text("import xprof.runtime as mx\n(mx.nd.ones((3,)) + 1).wait_to_read()\n")
    done = subprocess.run([sys.executable, "-m", "xprof.mxcli", "run", "-q", "-o", str(base),
                           str(small)], env=_env(), capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    run = _Run(tmp_path, BLOCKED, args=("--baseline", str(base)))
    assert run.wait_line(run.out, "ready")
    run.proc.send_signal(sig)
    code, err = run.finish(timeout=20)     # (31 s before)
    assert code == (143 if sig == signal.SIGTERM else 130), err
    assert "fork after waiting" not in err
    assert "diff of" in err and "against this run (B)" in err
    assert "_plus_scalar" in _check_trace(run.trace)
