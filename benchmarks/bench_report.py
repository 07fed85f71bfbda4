"""Time and size of ``xprof report`` on generated 100,000- and 1,000,000-event traces.

Why: the report promises at most 2 MB for a 100,000-event trace and at most 5 s to build
for a 1,000,000-event one. The traces are xprof-shaped (``bench_cli_readers``'
generator: API calls, operators on two workers, custom-op calls with their flow arrows,
memory counters, user tasks) and, as the xprof engine writes them, carry dependency
records (``args.dep``) and sync points, so the critical-path section walks the real
dependency graph (``--no-deps``: the same traces without them, where ``xprof explain``
falls back to per-thread serial; ``--distinct-names``: a trace of
slices only, every one named apart, so the statistics hold one row per event: the
cost per row, not per event, is what that measures); each report is built by ``xprof report`` in a fresh
subprocess, and wall time, CPU time (user + system, the steadier figure on a busy
machine) and the page's size are printed. Figures only, no assertions.

    python benchmarks/bench_report.py [--events 100000 1000000] [--rounds 3] [--no-deps]
                                      [--distinct-names]
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_cli_readers import write_trace  # noqa: E402


def build(trace, out):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "xprof.mxcli", "report", trace, "-o", out], check=True,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-deps", action="store_true",
                    help="traces without dependency records (explain's serial fallback)")
    ap.add_argument("--distinct-names", action="store_true",
                    help="slices only, each with a name of its own (one row per event)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        for n in args.events:
            trace = os.path.join(d, f"t{n}.json")
            count = write_trace(trace, n, deps=not args.no_deps,
                                distinct=args.distinct_names)
            out = os.path.join(d, f"t{n}.html")
            runs = sorted(build(trace, out) for _ in range(args.rounds))
            walls = [w for w, _ in runs]
            cpus = sorted(c for _, c in runs)
            print(f"{count:>9,} events ({os.path.getsize(trace) / 2**20:.0f} MB trace"
                  f"{', no dependency records' if args.no_deps else ''}"
                  f"{', distinct names' if args.distinct_names else ''}): "
                  f"report {os.path.getsize(out) / 1024:,.0f} kB; wall median "
                  f"{walls[len(walls) // 2]:.2f} s (best {walls[0]:.2f}); CPU median "
                  f"{cpus[len(cpus) // 2]:.2f} s (best {cpus[0]:.2f})")


if __name__ == "__main__":
    main()
