"""`xprof run` end to end: real subprocesses running real scripts.

The script runs as __main__ exactly as `python SCRIPT ARGS` would; whatever way it ends,
the trace is complete and `xprof run` exits with the script's own code.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_scripts"


def xprof(*args, cwd, timeout=120, env=None):
    full_env = dict(os.environ)
    for key in list(full_env):
        if key.startswith(("XPROF_", "MXNET_")):
            del full_env[key]
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "xprof.mxcli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, env=full_env)


def load(path):
    doc = json.loads(Path(path).read_text())
    assert doc["displayTimeUnit"] == "ms"
    return doc["traceEvents"]


def write(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


OPS_SCRIPT = """
    import sys
    import xprof.runtime as mx
    x = mx.nd.ones((10, 10))
    y = mx.nd.sqrt(x) + 1
    y.wait_to_read()
    print("argv", sys.argv[1:], "path0", sys.path[0], "name", __name__)
"""


def test_run_profiles_every_mode_and_reports(tmp_path):
    script = write(tmp_path, "ops.py", OPS_SCRIPT)
    res = xprof("run", str(script), "a", "--b", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert f"argv ['a', '--b'] path0 {tmp_path} name __main__" in res.stdout
    events = load(tmp_path / "profile.json")
    names = {(e.get("cat"), e["name"]) for e in events if e["ph"] == "X"}
    assert ("operator", "sqrt") in names and ("operator", "_plus_scalar") in names
    assert ("API", "wait_to_read") in names
    assert any(e["ph"] == "C" and e["cat"] == "Device Storage" for e in events)
    assert "trace written to" in res.stderr and "top operators by self time" in res.stderr


def test_run_mode_narrows_and_output_option(tmp_path):
    script = write(tmp_path, "ops.py", OPS_SCRIPT)
    out = tmp_path / "sub" / "t.json"
    out.parent.mkdir()
    res = xprof("run", "--mode", "imperative", "-o", str(out), "--quiet", str(script),
                cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    cats = {e.get("cat") for e in load(out) if e["ph"] in "XC"}
    assert cats == {"operator"}


def test_run_stats_prints_tables(tmp_path):
    script = write(tmp_path, "ops.py", OPS_SCRIPT)
    res = xprof("run", "--stats", str(script), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "Total (ms)" in res.stderr and "sqrt" in res.stderr


@pytest.mark.parametrize("body, code, marker", [
    ("import sys\nimport xprof.runtime as mx\nmx.nd.ones((3,)).wait_to_read()\nsys.exit(3)\n",
     3, None),
    ("import xprof.runtime as mx\nmx.nd.ones((3,)).wait_to_read()\n"
     "def boom():\n    raise KeyError('boom')\nboom()\n", 1, "KeyError: 'boom'"),
    ("import xprof.runtime as mx\nmx.nd.ones((3,)).wait_to_read()\nraise SystemExit('bye')\n",
     1, "bye"),
])
def test_run_exit_paths_keep_code_and_complete_trace(tmp_path, body, code, marker):
    script = write(tmp_path, "s.py", body)
    res = xprof("run", str(script), cwd=tmp_path)
    assert res.returncode == code, res.stderr
    if marker:
        assert marker in res.stderr
    if code == 1 and "KeyError" in (marker or ""):
        # the traceback is the script's, as Python shows it: no xprof/runpy frames
        assert "Traceback (most recent call last)" in res.stderr
        assert "in boom" in res.stderr and "runpy" not in res.stderr
        assert "cli/run.py" not in res.stderr
    names = [e["name"] for e in load(tmp_path / "profile.json") if e["ph"] == "X"]
    assert "_ones" in names


def test_run_sigterm_leaves_complete_trace(tmp_path):
    script = write(tmp_path, "loop.py", """
        import sys
        import xprof.runtime as mx
        x = mx.nd.ones((10, 10))
        first = True
        while True:
            x = x * 1.0
            x.wait_to_read()
            if first:   # at least one _mul_scalar has run when the test sends SIGTERM
                print("ready", flush=True)
                first = False
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    proc = subprocess.Popen([sys.executable, "-m", "xprof.mxcli", "run", str(script)],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        assert proc.stdout.readline().strip() == "ready"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, err
    names = [e["name"] for e in load(tmp_path / "profile.json") if e["ph"] == "X"]
    assert "_mul_scalar" in names


def test_run_module_form(tmp_path):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "job.py").write_text(textwrap.dedent("""
        import sys
        import xprof.runtime as mx
        mx.nd.exp(mx.nd.ones((4,))).wait_to_read()
        print("module", __name__, sys.argv[1:])
    """))
    res = xprof("run", "-m", "mypkg.job", "x", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "module __main__ ['x']" in res.stdout
    assert "exp" in [e["name"] for e in load(tmp_path / "profile.json") if e["ph"] == "X"]


def test_run_bulk_is_off_unless_asked(tmp_path):
    script = write(tmp_path, "bulk.py", """
        import xprof.runtime as mx
        a = mx.sym.Variable("a")
        net = mx.sym.exp(mx.sym.sqrt(a + 1) * 2)
        ex = net.simple_bind(mx.cpu(), a=(4, 4), grad_req="null")
        ex.forward(is_train=False, a=mx.nd.ones((4, 4)))
        ex.outputs[0].wait_to_read()
    """)
    res = xprof("run", str(script), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    names = [e["name"] for e in load(tmp_path / "profile.json")
             if e["ph"] == "X" and e["cat"] == "operator"]
    assert {"_plus_scalar", "sqrt", "_mul_scalar", "exp"} <= set(names)
    res = xprof("run", "--bulk", "-o", "bulk.json", str(script), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    names = [e["name"] for e in load(tmp_path / "bulk.json")
             if e["ph"] == "X" and e["cat"] == "operator"]
    assert any(n.startswith("[") and "sqrt" in n for n in names), names


def test_run_script_configuring_profiler_wins_and_is_reported(tmp_path):
    res = xprof("run", str(SAMPLES / "custom_add_one.py"), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "configured the profiler itself" in res.stderr
    trace = tmp_path / "custom_add_one.json"
    assert trace.exists()
    names = {e["name"] for e in load(trace)}
    assert "MyAddOne::pure_python" in names and "MyAddOne::_plus_scalar" in names


def test_run_script_profiling_a_window_gets_only_that_window(tmp_path):
    # The script profiles only its second loop; the CLI's own trace keeps the first.
    script = write(tmp_path, "window.py", """
        import xprof.runtime as mx
        x = mx.nd.ones((4, 4))
        for _ in range(3):
            x = mx.nd.sqrt(x)
        mx.nd.waitall()
        mx.profiler.set_config(profile_all=True, filename="window.json")
        mx.profiler.set_state("run")
        for _ in range(2):
            x = mx.nd.exp(x)
        mx.nd.waitall()
        mx.profiler.set_state("stop")
        mx.profiler.dump()
    """)
    res = xprof("run", str(script), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    window = [e["name"] for e in load(tmp_path / "window.json")
              if e["ph"] == "X" and e["cat"] == "operator"]
    assert sorted(window) == ["exp", "exp"]
    # issue 12: profile.json is the whole run, the autostart's part (the three sqrt)
    # before the instant where the script took over, the script's window after it
    run = load(tmp_path / "profile.json")
    (mark,) = [e for e in run if e["ph"] == "i" and e["cat"] == "xprof"]
    before = [e["name"] for e in run if e["ph"] == "X" and e["cat"] == "operator"
              and e["ts"] < mark["ts"]]
    after = [e["name"] for e in run if e["ph"] == "X" and e["cat"] == "operator"
             and e["ts"] > mark["ts"]]
    assert before.count("sqrt") == 3 and "exp" not in before
    assert sorted(after) == ["exp", "exp"]
    assert "before the script's own profiling" in res.stderr


@pytest.mark.parametrize("args, fragment", [
    (["run"], "no script given"),
    (["run", "missing.py"], "'missing.py' does not exist"),
    (["run", "--mode", "fast", "x.py"], "mode 'fast' is not known"),
    (["run", "-o", "nodir/t.json", "x.py"], "does not exist"),
])
def test_run_bad_input_is_one_line_exit_2(tmp_path, args, fragment):
    (tmp_path / "x.py").write_text("print('hi')\n")
    res = xprof(*args, cwd=tmp_path)
    assert res.returncode == 2
    assert fragment in res.stderr
    assert "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_run_in_process_restores_argv_path_and_bulk_env(tmp_path, monkeypatch):
    # CliRunner runs the script in this process: once it is done, later code here must
    # see its own sys.argv/sys.path and bulk execution's defaults again.
    from click.testing import CliRunner

    from xprof.mxcli.main import main

    for key in ("XPROF_EXEC_BULK_EXEC_INFERENCE", "XPROF_EXEC_BULK_EXEC_TRAIN"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("XPROF_EXEC_BULK_EXEC_TRAIN", "1")
    import xprof.runtime as mx

    script = write(tmp_path, "ops.py", OPS_SCRIPT)
    argv, path = list(sys.argv), list(sys.path)
    config = mx.profiler.get_config()
    res = CliRunner().invoke(main, ["run", "-q", "-o", str(tmp_path / "t.json"),
                                    str(script), "a"])
    assert res.exit_code == 0, res.output
    assert "argv ['a']" in res.stdout
    assert (tmp_path / "t.json").exists()
    assert sys.argv == argv and sys.path == path
    assert mx.profiler.get_config() == config and mx.profiler.state() == "stop"
    assert "XPROF_EXEC_BULK_EXEC_INFERENCE" not in os.environ
    assert os.environ["XPROF_EXEC_BULK_EXEC_TRAIN"] == "1"


def test_run_module_args_after_module_are_the_modules(tmp_path):
    # python -m MODULE ARGS: everything after the module name is the module's, even
    # names xprof run itself knows (-o, --quiet, --help)
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "job.py").write_text("import sys\nprint('args', sys.argv[1:])\n")
    res = xprof("run", "-q", "-o", "mine.json", "-m", "mypkg.job", "-o", "x", "--help",
                cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "args ['-o', 'x', '--help']" in res.stdout
    assert (tmp_path / "mine.json").exists() and not (tmp_path / "x").exists()


@pytest.mark.parametrize("args, fragment", [
    (["run", "-m", "no_such_module_xyz"], "no module named 'no_such_module_xyz'"),
    (["run", "-o", "/proc/t.json", "x.py"], "cannot write in '/proc'"),
])
def test_run_unusable_module_or_output_is_one_line_exit_2(tmp_path, args, fragment):
    (tmp_path / "x.py").write_text("print('hi')\n")
    res = xprof(*args, cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    assert fragment in res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert "hi" not in res.stdout and not (tmp_path / "profile.json").exists()


@pytest.mark.parametrize("args, fragment", [
    (["bad.py"], "script 'bad.py' does not compile: SyntaxError: '(' was never closed (line 2"),
    (["-m", "pkg.missing"], "no module named 'pkg.missing' in package 'pkg'"),
    (["-m", "pkg"], "'pkg' is a package without a __main__ module"),
    (["-m", "missing_top_xyz"], "no module named 'missing_top_xyz'"),
])
def test_run_that_never_starts_keeps_the_previous_profile(tmp_path, args, fragment):
    write(tmp_path, "good.py", OPS_SCRIPT)
    write(tmp_path, "bad.py", "import xprof.runtime as mx\nx = (\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("print('pkg imported')\n")
    assert xprof("run", "good.py", cwd=tmp_path).returncode == 0
    good = (tmp_path / "profile.json").read_bytes()
    assert len(load(tmp_path / "profile.json")) > 5
    res = xprof("run", *args, cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith("xprof: error: ") and fragment in line, line
    assert "pkg imported" not in res.stdout  # found without importing the package
    assert (tmp_path / "profile.json").read_bytes() == good
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_run_script_exception_keeps_traceback_and_code_and_writes(tmp_path):
    write(tmp_path, "boom.py", """
        import xprof.runtime as mx
        mx.nd.ones((2, 2)).wait_to_read()
        raise RuntimeError("boom")
    """)
    res = xprof("run", "boom.py", cwd=tmp_path)
    assert res.returncode == 1
    assert "Traceback (most recent call last)" in res.stderr and "RuntimeError: boom" in res.stderr
    assert 'boom.py", line 4' in res.stderr
    assert any(e["name"] == "_ones" for e in load(tmp_path / "profile.json"))
    assert "       1 call\n" in res.stderr  # _ones ran once: "1 call", not "1 calls"


def test_run_end_of_run_dump_goes_through_the_delayed_status(tmp_path, monkeypatch):
    from contextlib import contextmanager

    from click.testing import CliRunner

    from xprof.mxcli.render import progress
    from xprof.mxcli.main import main

    labels = []

    @contextmanager
    def recording(label):
        labels.append(label)
        yield None

    monkeypatch.setattr(progress, "delayed_status", recording)
    script = write(tmp_path, "ops.py", OPS_SCRIPT)
    res = CliRunner().invoke(main, ["run", "-q", "-o", str(tmp_path / "t.json"), str(script)])
    assert res.exit_code == 0, res.output
    (label,) = labels
    assert label.startswith("xprof: writing the profile (") and label.endswith(" events)")
    assert (tmp_path / "t.json").exists()


def test_run_that_cannot_write_its_profile_is_one_line_exit_2(tmp_path):
    out = tmp_path / "gone"
    out.mkdir()
    write(tmp_path, "rm.py", f"""
        import shutil
        import xprof.runtime as mx
        mx.nd.ones((2, 2)).wait_to_read()
        shutil.rmtree({str(out)!r})
    """)
    res = xprof("run", "-o", str(out / "t.json"), "rm.py", cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    (line,) = [ln for ln in res.stderr.splitlines() if ln.startswith("xprof: error:")]
    assert "could not write the profile" in line and "Traceback" not in res.stderr
