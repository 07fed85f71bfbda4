"""Shared helpers for the benchmarks: interleaved timing and ratio reporting.

The machine is noisy, so every benchmark runs the xprof side and the reference side
alternately, several rounds, and reports the median of per-round ratios.
"""
import statistics
import subprocess
import sys
import time


def interleaved(fns, rounds=5):
    """Time each callable in ``fns`` (name -> fn) alternately; return name -> [seconds]."""
    times = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return times


def ratio(times, num, den):
    return statistics.median(a / b for a, b in zip(times[num], times[den]))


def per_op_us(times, name, n):
    return statistics.median(times[name]) / n * 1e6


# Each profiling mode alone, as set_config arguments (what the per-mode figures compare).
PROFILE_MODES = {
    "operators": dict(profile_imperative=True, profile_symbolic=False, profile_api=False,
                      profile_memory=False),
    "API": dict(profile_imperative=False, profile_symbolic=False, profile_api=True,
                profile_memory=False),
    "memory": dict(profile_imperative=False, profile_symbolic=False, profile_api=False,
                   profile_memory=True),
}


def register_add_one(mx):
    """Register the issue's ``MyAddOne`` custom op (forward: ``in_data[0] + 1``)."""

    class AddOne(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] + 1)

    @mx.operator.register("MyAddOne")
    class AddOneProp(mx.operator.CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=True)

        def create_operator(self, ctx, shapes, dtypes):
            return AddOne()


# Runs a command as its only child, so RUSAGE_CHILDREN is that command's alone.
_WRAPPER = r"""
import resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
dt = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(rc, dt, ru.ru_maxrss, ru.ru_utime + ru.ru_stime)
"""


def measure(argv):
    """(exit code, wall s, peak RSS MiB, CPU s) of ``argv`` run in a fresh subprocess."""
    out = subprocess.run([sys.executable, "-c", _WRAPPER, *argv], check=True,
                         capture_output=True, text=True).stdout.split()
    rc, seconds, maxrss_kb, cpu = int(out[0]), float(out[1]), int(out[2]), float(out[3])
    return rc, seconds, maxrss_kb / 1024.0, cpu
