"""Engine overhead: ``y = x + 1`` on a 100x100 float32 array, N ops then ``waitall``,
against N numpy ``a + 1`` in the same process, for both engines.

Targets (issue #2): ThreadedEngine at most 4x numpy, NaiveEngine at most 3x.
Then ``x + 1`` on an ``mx.np`` array beside the same on an ``mx.nd`` array (issue #38:
np dispatch within 10% of nd), timed side by side, and with ``--instructions`` counted
under callgrind (deterministic on a loaded machine: each case in a fresh interpreter at
two iteration counts, the difference per iteration; NaiveEngine, profiling off and
everything on).
Run: python benchmarks/bench_engine.py [N] [--instructions]
"""
import os
import re
import shutil
import subprocess
import sys

import numpy as np

from _util import interleaved, per_op_us, ratio

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
N = int(ARGS[0]) if ARGS else 20000


def main():
    import xprof.runtime as mx
    from xprof.runtime import engine

    a = np.ones((100, 100), np.float32)

    def numpy_loop():
        for _ in range(N):
            b = a + 1  # noqa: F841
        return b

    print(f"y = x + 1 on 100x100 float32, {N} ops then waitall (median of 7 rounds)")
    for kind in ("ThreadedEngine", "NaiveEngine"):
        engine.set_engine_type(kind)
        x = mx.nd.array(a)

        def engine_loop():
            for _ in range(N):
                y = x + 1
            mx.nd.waitall()
            return y

        engine_loop()
        t = interleaved({"engine": engine_loop, "numpy": numpy_loop}, rounds=7)
        print(f"  {kind:15s} {per_op_us(t, 'engine', N):6.2f} us/op   numpy "
              f"{per_op_us(t, 'numpy', N):5.2f} us/op   ratio {ratio(t, 'engine', 'numpy'):5.2f}x")
    np_vs_nd(mx)
    heavy(mx)
    if "--instructions" in sys.argv:
        np_vs_nd_instructions()


def np_vs_nd(mx):
    """``x + 1`` on an mx.np array and on an mx.nd array, interleaved rounds."""
    from xprof.runtime import engine
    print(f"y = x + 1, mx.np array beside mx.nd array, {N} ops then waitall")
    for kind in ("ThreadedEngine", "NaiveEngine"):
        engine.set_engine_type(kind)
        xs = {"nd": mx.nd.ones((100, 100)), "np": mx.np.ones((100, 100))}

        def loop(x):
            def run():
                for _ in range(N):
                    y = x + 1
                mx.nd.waitall()
                return y
            return run
        loops = {k: loop(x) for k, x in xs.items()}
        for f in loops.values():
            f()
        t = interleaved(loops, rounds=7)
        print(f"  {kind:15s} np {per_op_us(t, 'np', N):6.2f} us/op   nd "
              f"{per_op_us(t, 'nd', N):6.2f} us/op   np/nd {ratio(t, 'np', 'nd'):5.3f}x")


CHILD = r'''
import gc, os, sys
import xprof.runtime as mx
from xprof.runtime import engine
engine.set_engine_type("NaiveEngine")
kind, n, profile, path = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
os.environ["XPROF_PROFILER_SAMPLE_INTERVAL_MS"] = "0"
x = mx.np.ones((100, 100)) if kind == "np" else mx.nd.ones((100, 100))
y = x + 1
mx.nd.waitall()
if profile:
    mx.profiler.set_config(filename=path, profile_all=True, aggregate_stats=True)
    mx.profiler.set_state("run")
gc.collect()
for _ in range(n):
    y = x + 1
mx.nd.waitall()
gc.collect()
os._exit(0)
'''


def _count(kind, n, profile, tmp):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONHASHSEED="0")
    env.pop("XPROF_PROFILER_AUTOSTART", None)
    env.pop("MXNET_PROFILER_AUTOSTART", None)
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + os.devnull,
                          sys.executable, "-c", CHILD, kind, str(n), "1" if profile else "0",
                          os.path.join(tmp, "trace.json")],
                         capture_output=True, text=True, env=env, check=True).stderr
    return int(re.search(r"Collected : (\d+)", out).group(1))


def np_vs_nd_instructions(n1=500, n2=1500):
    """Instructions per ``x + 1`` (callgrind, N=n2 minus N=n1), np beside nd."""
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: no instruction counts")
        return
    import tempfile
    tmp = tempfile.mkdtemp()
    print(f"instructions per y = x + 1 on NaiveEngine (callgrind, N={n2} minus N={n1})")
    for profile in (False, True):
        per = {k: (_count(k, n2, profile, tmp) - _count(k, n1, profile, tmp)) / (n2 - n1)
               for k in ("nd", "np")}
        print(f"  profiling {'all' if profile else 'off':3s}  nd {per['nd']:,.0f}   "
              f"np {per['np']:,.0f}   np/nd {per['np'] / per['nd']:.3f}x")
    shutil.rmtree(tmp, ignore_errors=True)


def heavy(mx):
    """Asynchrony: pushing a 2000x2000 dot returns long before the product is ready."""
    import time
    from xprof.runtime import engine
    engine.set_engine_type("ThreadedEngine")
    x = mx.nd.random.uniform(shape=(2000, 2000))
    mx.nd.waitall()
    t0 = time.perf_counter()
    y = mx.nd.dot(x, x)
    t_push = time.perf_counter() - t0
    y.wait_to_read()
    t_all = time.perf_counter() - t0
    print(f"2000x2000 dot: push returned in {t_push * 1e6:.0f} us, result ready after "
          f"{t_all * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
