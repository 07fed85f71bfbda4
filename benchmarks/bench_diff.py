"""Time and peak memory of ``xprof diff`` on two 1,000,000-op traces.

Why: the issue asks for a diff of two million-event traces in at most 10 s and 1 GiB
peak RSS on the 2-core machine. Both traces come from ``bench_explain``'s scheduler
simulation (consistent dependency records, a WaitForAll every 1,000 ops), each op given
a layer name (one of 20) and input shapes, as xprof writes them; in B every
``Convolution`` runs 1.5x longer (its dependants start later, as they would). The diff
runs in a fresh subprocess (wall time, CPU time and peak RSS of that subprocess), as
table and as JSON. Figures only, no assertions.

    python benchmarks/bench_diff.py [--ops 1000000] [--keep DIR]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

from _util import measure
from bench_explain import write_trace


def _with_layers(evs, slow):
    """The events with a layer and shapes on each op; ``slow``: Convolution's duration
    scaled by it, everything after shifted by what it added (times stay consistent
    along each thread: a simple, monotone warp of the clock)."""
    shift = 0.0
    for k, ev in enumerate(evs):
        if "ts" in ev:
            ev["ts"] = round(ev["ts"] + shift, 3)
        if ev.get("cat") == "operator" and ev.get("ph") == "X":
            args = ev.setdefault("args", {})
            args["name"] = f"layer{k % 20}"
            args["Input Dims"] = [[64, 32 + k % 3], [32, 32]]
            if slow != 1.0 and ev["name"] == "Convolution":
                extra = ev["dur"] * (slow - 1)
                ev["dur"] = round(ev["dur"] + extra, 3)
                shift += extra
        yield ev


def write(path, n_ops, slow):
    write_trace(path, n_ops, lambda evs: _with_layers(evs, slow))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=1_000_000)
    ap.add_argument("--keep", default=None, help="write the traces in this folder, keep them")
    a = ap.parse_args()
    folder = a.keep or tempfile.mkdtemp(prefix="bench-diff-")
    os.makedirs(folder, exist_ok=True)
    pa, pb = os.path.join(folder, "a.json"), os.path.join(folder, "b.json")
    for path, slow in ((pa, 1.0), (pb, 1.5)):
        if not os.path.exists(path):
            write(path, a.ops, slow)
    sizes = ", ".join(f"{os.path.getsize(p) / 1e6:.0f} MB" for p in (pa, pb))
    print(f"two traces of {a.ops:,} ops ({sizes})")
    cli = [sys.executable, "-m", "xprof.mxcli", "diff", pa, pb]
    for label, argv in (("diff (table)", cli), ("diff --format json", cli + ["--format", "json"])):
        rc, seconds, rss, cpu = measure(argv)
        print(f"{label:20s} exit {rc}  wall {seconds:6.2f} s  cpu {cpu:6.2f} s  "
              f"peak RSS {rss:7.1f} MB", flush=True)


if __name__ == "__main__":
    main()
