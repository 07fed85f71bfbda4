"""Profiler cost in CPU instructions: deterministic where wall-clock figures are not.

On a shared 2-core VM the same timing benchmark moves by 30-50% between runs, so a
change of a few hundred nanoseconds per op cannot be seen in ``bench_profiler.py``.
Instruction counts under valgrind's callgrind do not depend on the machine's load:
each case runs in a fresh interpreter twice (N1 and N2 iterations, one engine thread for
BLAS, a fixed hash seed) and the difference divided by N2 - N1 is the count per
iteration, start-up and teardown cancelling out. The garbage collector's work is counted
evenly: each run collects before its loop and once after it, so a case pays for
collecting every object its loop left behind (dependency records are tuples: one young
collection per ~3,300 ``x + 1`` ops; without these a 1,000-op window either held one,
~2,000 instructions per op too many, or none, ~1,000 too few: main's +5,029 for the
dependency records against the +1,355 measured on s2dep, with the same code).
Instructions are not time (cache misses and the clock's vDSO call are not in them), so
use this to compare two versions of the code, and the timing benchmarks for the figures
the issues ask for.

Cases: ``y = x + 1`` (100x100) and ``mx.nd.Custom(x, op_type="MyAddOne")``, on
NaiveEngine, profiling off, each mode alone (with the Python-line sampler off), everything
on, everything on but the custom-op call span (the span's own cost is the difference
with "all"), everything on but the dependency records
(``observer.dependency_records(False)``: what recording them costs), and everything on
but the line sampler (on by default; its thread's ticks make the modes with it vary a
little between runs, the others are exact). Then ``dumps()`` and ``dump()`` of
bench_profiler's 40,002-event session.
Needs valgrind (skipped with a message otherwise).
Run: python benchmarks/bench_instructions.py [N1] [N2]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from _util import PROFILE_MODES

N1 = int(sys.argv[1]) if len(sys.argv) > 1 else 500
N2 = int(sys.argv[2]) if len(sys.argv) > 2 else 1500

# each mode alone with the Python-line sampler off (its thread's ticks are not
# deterministic: the sampler is a mode of its own, on in "all")
MODES = {"off": None, **{m: dict(kw, _no_lines=True) for m, kw in PROFILE_MODES.items()},
         "all": dict(profile_all=True, aggregate_stats=True),
         # everything on but the custom-op call span (issue #13: its cost per call)
         "all, no call span": dict(profile_all=True, aggregate_stats=True, _no_span=True),
         # everything on but the dependency records (issue #14: what recording them costs)
         "all, no dependency records": dict(profile_all=True, aggregate_stats=True,
                                            _no_deps=True),
         # everything on but the Python-line sampler (issue #24's custom-op budget is
         # with the sampler off: XPROF_PROFILER_SAMPLE_INTERVAL_MS=0)
         "all, no line sampler": dict(profile_all=True, aggregate_stats=True,
                                      _no_lines=True)}

CHILD = r'''
import gc, os, sys
import xprof.runtime as mx
from xprof.runtime import engine
from _util import register_add_one
engine.set_engine_type("NaiveEngine")
case, n, kwargs, path = sys.argv[1], int(sys.argv[2]), eval(sys.argv[3]), sys.argv[4]
register_add_one(mx)
from xprof.runtime.profiler.observer import observer, dependency_records
observer.call_spans = not kwargs.pop("_no_span", False) if kwargs else True
dependency_records(not kwargs.pop("_no_deps", False) if kwargs else True)
if kwargs and kwargs.pop("_no_lines", False):
    os.environ["XPROF_PROFILER_SAMPLE_INTERVAL_MS"] = "0"   # read when profiling starts
x = mx.nd.ones((100, 100))
step = (lambda: x + 1) if case == "x + 1" else (lambda: mx.nd.Custom(x, op_type="MyAddOne"))
step(); mx.nd.waitall()
if kwargs:
    mx.profiler.set_config(filename=path, **kwargs)
    mx.profiler.set_state("run")
gc.collect()   # no collector debt from start-up: the same at N1 and N2
for _ in range(n):
    y = step()
mx.nd.waitall()
gc.collect()   # the loop pays for collecting the objects it left (see the docstring)
os._exit(0)   # no dump, no teardown: only the loop differs between N1 and N2
'''


# dumps() and dump() of bench_profiler's session (20,000 x ``x + 1``, everything on: 40,002
# events), as what they add to a run that records and exits: DUMP_STEPS[k] runs the first k
DUMP_CHILD = r'''
import gc, os, sys
import xprof.runtime as mx
steps, path = int(sys.argv[1]), sys.argv[2]
x = mx.nd.ones((100, 100))
mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=path)
mx.profiler.set_state("run")
for _ in range(20000):
    y = x + 1
mx.nd.waitall()
mx.profiler.set_state("stop")
if steps >= 1:
    mx.profiler.dumps()
if steps >= 2:
    mx.profiler.dump()
os._exit(0)
'''


def _callgrind(argv, env):
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + os.devnull,
                          sys.executable, "-c", *argv], capture_output=True, text=True,
                         env=env, check=True).stderr
    return int(re.search(r"Collected : (\d+)", out).group(1))


def dump_instructions(tmp):
    """Instructions of ``dumps()`` and of ``dump()`` after it, on bench_profiler's
    session, and the events they read."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONHASHSEED="0")
    env.pop("XPROF_PROFILER_AUTOSTART", None)
    env.pop("MXNET_PROFILER_AUTOSTART", None)
    path = os.path.join(tmp, "dump.json")
    counts = [_callgrind([DUMP_CHILD, str(k), path], env) for k in range(3)]
    return counts[1] - counts[0], counts[2] - counts[1]


def instructions(case, n, kwargs, tmp):
    # (the caller's PYTHONPATH kept after this folder: a copy of another version of
    # xprof on it is what an A/B of two versions runs)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONHASHSEED="0",
               PYTHONPATH=os.pathsep.join(filter(None, (
                   os.path.dirname(os.path.abspath(__file__)), os.environ.get("PYTHONPATH")))))
    env.pop("XPROF_PROFILER_AUTOSTART", None)
    env.pop("MXNET_PROFILER_AUTOSTART", None)
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + os.devnull,
         sys.executable, "-c", CHILD, case, str(n), repr(kwargs),
         os.path.join(tmp, "trace.json")],
        capture_output=True, text=True, env=env, check=True).stderr
    return int(re.search(r"Collected : (\d+)", out).group(1))


def main():
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing measured")
        return
    tmp = tempfile.mkdtemp()
    print(f"instructions per iteration on NaiveEngine (callgrind, N={N2} minus N={N1})")
    for case in ("x + 1", "Custom"):
        per = {}
        for mode, kwargs in MODES.items():
            a, b = instructions(case, N1, kwargs, tmp), instructions(case, N2, kwargs, tmp)
            per[mode] = (b - a) / (N2 - N1)
        off = per.pop("off")
        extra = "   ".join(f"{m} +{v - off:,.0f}" for m, v in per.items())
        print(f"  {case:7s} off {off:,.0f}   {extra}")
        print(f"  {case:7s} dependency records: +{per['all'] - per['all, no dependency records']:,.0f}")
    dumps, dump = dump_instructions(tmp)
    print(f"bench_profiler's session (40,002 events): dumps() {dumps / 1e6:,.1f} M "
          f"instructions ({dumps / 40002:,.0f} per event), dump() after it {dump / 1e6:,.1f} M "
          f"({dump / 40002:,.0f} per event)")


if __name__ == "__main__":
    main()
