"""What profiling costs a real training step, in CPU instructions (callgrind).

The deterministic side of ``bench_real_overhead.py`` (issue #42): each job of that
benchmark (cnn, mlp, custom) runs in a fresh interpreter under valgrind's callgrind,
3 warm-up steps unprofiled, then the profiler set to the mode and started, ``--steps``
steps, ``waitall``, and ``os._exit`` (no dump: the step's cost is what is measured).
Counting runs only over the steps (callgrind's client requests, from a tiny library
built with ``cc`` at start: import, building, warm-up and the profiler's start run
uncounted and uninstrumented; a run still takes 1-5 minutes). The collector runs as it
does in the job; no full collection is counted after the steps (it was, until
2026-12-07: one ``gc.collect()`` over the whole heap, ~2.7 M instructions, a quarter of
a custom step at 5 steps, and more with the profile's records to walk). Steps counted:
:data:`STEPS` (``--steps`` for every job). Every thread of the process is
counted (callgrind serializes them): the engine's workers, the custom-op pool and the
line sampler. Modes: off, each of bench_real_overhead's modes, ``all`` with the line
sampler (its default) and ``all-nolines`` without it, and ``paused`` (``all`` started
then paused: what the unprofiled blocks of bench_real_overhead's steps design run; it
must count as ``off`` does). Default: every mode but ``paused``. Callgrind runs
threads one at a time, so a waiting thread's spins and the sampler's ticks vary a little
between runs; the rest is exact.

    python benchmarks/bench_real_instructions.py [--jobs cnn,mlp,custom] [--steps N]
        [--modes off,operators,...] [--keep DIR]

``--keep DIR`` keeps the callgrind files (``callgrind_annotate`` attributes them by
function). Needs valgrind and a C compiler.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_real_overhead import MODES as _MODES  # noqa: E402

MODES = dict(_MODES)   # (with "all-nolines": "all" without the line sampler)
# the profiler in "all" mode, started and paused: what an unprofiled block of
# bench_real_overhead's steps design runs (it must count as "off" does)
MODES["paused"] = dict(profile_all=True, _paused=True)
# steps counted per job: the custom job's step is ~10 M instructions and its threads'
# interleaving under callgrind moves a count by ~0.1-0.5% a step, so it counts more
STEPS = {"cnn": 5, "mlp": 5, "custom": 20}

CHILD = r'''
import gc, os, sys
sys.path.insert(0, sys.argv[4])
import xprof.runtime as mx
from bench_real_overhead import _build
job, n, kwargs = sys.argv[1], int(sys.argv[2]), eval(sys.argv[3])
step = _build(mx, job)
for _ in range(3):
    step()
if kwargs is not None:
    if kwargs.pop("_no_lines", False):
        os.environ["XPROF_PROFILER_SAMPLE_INTERVAL_MS"] = "0"   # read when profiling starts
    paused = kwargs.pop("_paused", False)
    mx.profiler.set_config(aggregate_stats=False, filename=sys.argv[5], **kwargs)
    mx.profiler.set_state("run")
    if paused:
        mx.profiler.pause()
import ctypes
cg = ctypes.CDLL(sys.argv[6])
gc.collect()
cg.cg_start()
for _ in range(n):
    step()
cg.cg_stop()
os._exit(0)
'''


TOGGLE_C = r"""
#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION; }
void cg_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; CALLGRIND_DUMP_STATS_AT("steps"); }
"""


def _toggle(tmp):
    """A tiny shared library whose two functions start and stop callgrind's counting
    (valgrind's client requests): the steps alone are counted, not the import."""
    src, lib = os.path.join(tmp, "cgtoggle.c"), os.path.join(tmp, "cgtoggle.so")
    with open(src, "w") as f:
        f.write(TOGGLE_C)
    subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-o", lib, src], check=True)
    return lib


def instructions(job, n, kwargs, out_file, tmp, lib):
    """Instructions of ``n`` steps of ``job`` (every thread), and the callgrind file."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONHASHSEED="0")
    for k in list(env):
        if k.startswith(("XPROF_PROFILER", "MXNET_PROFILER")):
            del env[k]
    res = subprocess.run(
        ["valgrind", "--tool=callgrind", "--instr-atstart=no",
         "--callgrind-out-file=" + out_file,
         sys.executable, "-c", CHILD, job, str(n), repr(kwargs), HERE,
         os.path.join(tmp, "trace.json"), lib],
        capture_output=True, text=True, env=env)
    dumped = out_file + ".1"   # the dump at cg_stop
    if res.returncode != 0 or not os.path.exists(dumped):
        raise RuntimeError(res.stderr[-3000:])
    with open(dumped) as f:
        m = re.search(r"^totals: (\d+)", f.read(), re.M)
    return int(m.group(1)), dumped


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", default="cnn,mlp,custom")
    ap.add_argument("--modes", default=",".join(m for m in MODES if m != "paused"))
    ap.add_argument("--steps", type=int, default=None,
                    help="steps counted (default: %s)" % STEPS)
    ap.add_argument("--keep", default=None)
    a = ap.parse_args()
    if shutil.which("valgrind") is None or shutil.which("cc") is None:
        print("valgrind (and a C compiler, for its client requests) needed: nothing measured")
        return
    tmp = tempfile.mkdtemp()
    lib = _toggle(tmp)
    keep = a.keep or tmp
    os.makedirs(keep, exist_ok=True)
    print("instructions per step (callgrind, every thread, after 3 warm-up steps)")
    for job in a.jobs.split(","):
        steps = a.steps or STEPS[job]
        per = {}
        for mode in a.modes.split(","):
            name = f"cg.{job}.{re.sub('[^a-z]+', '_', mode)}"
            count, _ = instructions(job, steps, MODES[mode], os.path.join(keep, name),
                                    tmp, lib)
            per[mode] = count / steps
            off = per.get("off")
            rel = f"  {per[mode] / off - 1:+.2%}" if off and mode != "off" else ""
            print(f"  {job:7s} {mode:14s} {steps:3d} steps {per[mode] / 1e6:10.3f} M{rel}",
                  flush=True)


if __name__ == "__main__":
    main()
