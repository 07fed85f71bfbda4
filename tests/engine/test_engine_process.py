"""Process-level behaviour: choosing the engine from the environment, worker count,
and interpreter exit with work still queued (never a hang). Each case runs in a fresh
interpreter; ``timeout=60`` turns a hang into a test failure."""
import textwrap

import pytest

import xprof.runtime.engine as engine_mod

PUSH_SLOW_OPS = textwrap.dedent("""
    import sys, threading, time
    import xprof.runtime.engine as E

    eng = E.get()
    out = open(sys.argv[1] if len(sys.argv) > 1 else OUT, "a")

    def slow(i):
        time.sleep(SLEEP)          # a deliberately slow kernel
        out.write(f"{i}\\n")
        out.flush()

    v = eng.new_variable()
    for i in range(N):
        eng.push(slow, (i,), [], [v], "slow", cost=1 << 40)
    assert eng.pending() > 0
    print("pushed", flush=True)
""")


def _script(tmp_path, n, sleep, tail=""):
    out = tmp_path / "ran.txt"
    code = f"OUT = {str(out)!r}\nN = {n}\nSLEEP = {sleep}\n" + PUSH_SLOW_OPS + tail
    return code, out


def _lines(path):
    return path.read_text().split() if path.exists() else []


def test_exit_finishes_queued_work(tmp_path, run_python):
    code, out = _script(tmp_path, n=20, sleep=0.01)
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert "pushed" in proc.stdout
    # the default exit timeout (30 s) is ample: every queued op ran, in order
    assert _lines(out) == [str(i) for i in range(20)]


def test_exit_with_small_timeout_does_not_wait_for_everything(tmp_path, run_python):
    # 1000 ops x 50 ms = 50 s of queued work; exit may wait only 1 s for it
    code, out = _script(tmp_path, n=1000, sleep=0.05)
    proc = run_python(code, {"XPROF_ENGINE_EXIT_TIMEOUT": "1"})
    assert proc.returncode == 0, proc.stderr
    assert "pushed" in proc.stdout
    assert len(_lines(out)) < 1000


def test_exit_with_an_op_blocked_forever(tmp_path, run_python):
    code, _ = _script(tmp_path, n=3, sleep=0.0, tail=textwrap.dedent("""
        never = threading.Event()
        eng.push(never.wait, (), [], [v], "stuck", cost=1 << 40)
        eng.push(never.wait, (), [], [eng.new_variable()], "stuck2", cost=1 << 40)
        print("exiting", flush=True)
    """))
    proc = run_python(code, {"MXNET_ENGINE_EXIT_TIMEOUT": "1"})   # the alias works too
    assert proc.returncode == 0, proc.stderr
    assert "exiting" in proc.stdout


@pytest.mark.parametrize("timeout", [None, "1"])
def test_uncaught_exception_with_queued_work(tmp_path, run_python, timeout):
    code, out = _script(tmp_path, n=200 if timeout else 10, sleep=0.02,
                        tail="raise RuntimeError('script failed after pushing')\n")
    env = {"XPROF_ENGINE_EXIT_TIMEOUT": timeout} if timeout else {}
    proc = run_python(code, env)
    assert proc.returncode == 1
    assert "RuntimeError: script failed after pushing" in proc.stderr
    if timeout is None:
        assert len(_lines(out)) == 10


def test_exit_with_unreported_op_error(tmp_path, run_python):
    """An op error nobody waited for does not turn a clean exit into a crash or hang."""
    proc = run_python(textwrap.dedent("""
        import xprof.runtime.engine as E
        eng = E.get()
        def bad():
            raise ValueError("never reported")
        eng.push(bad, (), [], [eng.new_variable()], "bad", cost=1 << 40)
        print("done", flush=True)
    """))
    assert proc.returncode == 0, proc.stderr
    assert "done" in proc.stdout


def _engine_info(run_python, env):
    proc = run_python("import xprof.runtime as mx\n"
                      "e = mx.engine.get()\n"
                      "print(mx.engine.engine_type(), getattr(e, 'num_workers', 0))", env)
    assert proc.returncode == 0, proc.stderr
    name, workers = proc.stdout.split()
    return name, int(workers)


@pytest.mark.parametrize("env,expected", [
    ({}, "ThreadedEngine"),
    ({"XPROF_ENGINE_TYPE": "NaiveEngine"}, "NaiveEngine"),
    ({"MXNET_ENGINE_TYPE": "NaiveEngine"}, "NaiveEngine"),
    ({"XPROF_ENGINE_TYPE": "ThreadedEngine", "MXNET_ENGINE_TYPE": "NaiveEngine"},
     "ThreadedEngine"),
    ({"MXNET_ENGINE_TYPE": "ThreadedEnginePerDevice"}, "ThreadedEngine"),
], ids=["default", "xprof", "mxnet-alias", "xprof-wins", "mxnet-name"])
def test_engine_type_from_environment(run_python, env, expected):
    assert _engine_info(run_python, env)[0] == expected


def test_naive_engine_from_environment_runs_arrays(run_python):
    proc = run_python(textwrap.dedent("""
        import threading
        import xprof.runtime as mx
        x = mx.nd.ones((300, 300))
        y = mx.nd.dot(x, x)              # heavy: would go to a worker if threaded
        print(float(y.sum().asscalar()), threading.active_count())
    """), {"XPROF_ENGINE_TYPE": "NaiveEngine"})
    assert proc.returncode == 0, proc.stderr
    total, threads = proc.stdout.split()
    assert float(total) == 300.0 ** 3
    assert int(threads) == 1             # no worker threads were started


@pytest.mark.parametrize("env,expected", [
    ({"XPROF_CPU_WORKER_NTHREADS": "3"}, 3),
    ({"MXNET_CPU_WORKER_NTHREADS": "1"}, 1),
    ({"XPROF_CPU_WORKER_NTHREADS": "5", "MXNET_CPU_WORKER_NTHREADS": "1"}, 5),
])
def test_worker_count_from_environment(run_python, env, expected):
    assert _engine_info(run_python, env) == ("ThreadedEngine", expected)


def test_worker_count_really_runs_that_many_ops_at_once(run_python):
    """With 3 workers, 3 heavy ops meet at a 3-party barrier (it would break, not
    hang, if fewer ran concurrently)."""
    proc = run_python(textwrap.dedent("""
        import threading
        import xprof.runtime.engine as E
        eng = E.get()
        barrier = threading.Barrier(3, timeout=30)
        names = set()
        def meet():
            barrier.wait()
            names.add(threading.current_thread().name)
        for _ in range(3):
            eng.push(meet, (), [], [eng.new_variable()], "meet", cost=1 << 40)
        eng.wait_all()
        print(len(names))
    """), {"XPROF_CPU_WORKER_NTHREADS": "3"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "3"


@pytest.mark.parametrize("env,needle", [
    ({"XPROF_ENGINE_TYPE": "FastEngine"}, "'FastEngine'"),
    ({"MXNET_ENGINE_TYPE": "naive"}, "'naive'"),
    ({"XPROF_CPU_WORKER_NTHREADS": "many"}, "'many'"),
    ({"XPROF_CPU_WORKER_NTHREADS": "0"}, "0"),
])
def test_bad_engine_settings_give_clear_error(run_python, env, needle):
    proc = run_python("import xprof.runtime", env)
    assert proc.returncode == 1
    last, = proc.stderr.strip().splitlines()   # one line, no traceback (#40.13)
    assert last.startswith("xprof: error: "), proc.stderr
    assert needle in last


def test_set_engine_type_rejects_unknown_name(engine):
    with pytest.raises(ValueError) as info:
        engine_mod.set_engine_type("CudaEngine")
    msg = str(info.value)
    assert "'CudaEngine'" in msg and "NaiveEngine" in msg and "ThreadedEngine" in msg
    # nothing changed: the current engine is still installed and works
    assert engine_mod.get() is engine
    v = engine.new_variable()
    out = []
    engine.push(out.append, (1,), [], [v], "ok")
    engine.wait_for_var(v)
    assert out == [1]


def test_set_engine_type_finishes_pending_work(engine):
    """Switching engines drains the old one first (values pushed before are complete)."""
    import time
    v = engine.new_variable()
    done = []

    def slow():
        time.sleep(0.2)         # a deliberately slow op, still running at the switch
        done.append(1)

    engine.push(slow, (), [], [v], "slow", cost=1 << 40)
    other = "NaiveEngine" if engine.name == "ThreadedEngine" else "ThreadedEngine"
    new = engine_mod.set_engine_type(other)
    assert done == [1]
    assert new.name == other and engine_mod.get() is new


@pytest.mark.parametrize("env, before, expected", [
    ({}, "", "10000"),                              # raised for the engine's in-flight ops
    ({"XPROF_GC_TUNING": "0"}, "", "700"),          # opted out: Python's default
    ({}, "gc.set_threshold(1234)\n", "1234"),       # the program's own choice wins
])
def test_garbage_collector_threshold(run_python, env, before, expected):
    res = run_python(f"import gc\n{before}import xprof.runtime\nprint(gc.get_threshold()[0])",
                     env)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == [expected]
