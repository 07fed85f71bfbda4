"""The trace readers of two checkouts side by side: time and peak memory of each command
run by a base interpreter and by this one, alternately, on the same generated traces.

Why: a change to the read side must leave ``bench_cli_readers``' commands, ``xprof
report`` and ``xprof diff`` on 1,000,000 events no slower and no larger in peak memory;
on a shared machine only figures taken side by side in one run compare. Each command
runs in a fresh subprocess (``_util.measure``: wall, CPU = user + system, peak RSS),
base then this, ``--rounds`` times; printed: each side's median and the ratio
this/base of the medians. Peak RSS does not depend on the machine's load; wall and CPU
time do (take them on a quiet machine). Figures only, no assertions.

    python benchmarks/bench_readers_pairs.py --base /path/to/base/venv/bin/python \\
        [--events 1000000] [--rounds 3] [--only stats] [--folder DIR]

The base interpreter must import the base checkout's ``xprof`` (its own editable
install); the traces are generated once, by this checkout's generators.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile

from _util import measure
import bench_cli_readers
import bench_diff


def traces(folder, n):
    """Generate (once) the traces: ``bench_cli_readers``' plain and engine traces and one
    of distinct names, ``bench_diff``'s A and B."""
    paths = {"plain": os.path.join(folder, "bench.json"),
             "engine": os.path.join(folder, "engine.json"),
             "distinct": os.path.join(folder, "distinct.json"),
             "a": os.path.join(folder, "a.json"), "b": os.path.join(folder, "b.json")}
    makers = {"plain": lambda p: bench_cli_readers.write_trace(p, n),
              "engine": lambda p: bench_cli_readers.write_trace(p, n, deps=True),
              "distinct": lambda p: bench_cli_readers.write_trace(p, n, distinct=True),
              "a": lambda p: bench_diff.write(p, n, 1.0),
              "b": lambda p: bench_diff.write(p, n, 1.5)}
    for key, path in paths.items():
        if not os.path.exists(path):
            makers[key](path)
    return paths


def commands(t, folder):
    page = os.path.join(folder, "report.html")
    return [("validate", ["validate", t["plain"]]),
            ("stats", ["stats", t["plain"], "--format", "json"]),
            ("stats table", ["stats", t["plain"]]),
            ("stats distinct", ["stats", t["distinct"], "--format", "json"]),
            ("stats engine", ["stats", t["engine"], "--format", "json"]),
            ("stats by-process", ["stats", t["plain"], "--by-process", "--format", "json"]),
            ("stats group-by", ["stats", t["a"], "--group-by", "layer", "--format", "json"]),
            ("trace", ["trace", t["plain"], "-o", os.path.join(folder, "n.json"), "--force"]),
            ("explain", ["explain", t["engine"], "--format", "json"]),
            ("report", ["report", t["engine"], "-o", page]),
            ("report distinct", ["report", t["distinct"], "-o", page]),
            ("diff (bench_cli_readers)", ["diff", t["engine"], t["engine"], "--format", "json"]),
            ("diff (bench_diff)", ["diff", t["a"], t["b"], "--format", "json"])]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="the base checkout's Python interpreter")
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", action="append", default=None, metavar="NAME")
    ap.add_argument("--folder", default=None, help="keep the traces here (made once)")
    a = ap.parse_args()
    folder = a.folder or tempfile.mkdtemp(prefix="bench-pairs-")
    os.makedirs(folder, exist_ok=True)
    t = traces(folder, a.events)
    print(f"{a.events:,} events; base {a.base}; this {sys.executable}; {a.rounds} rounds")
    print(f"{'command':26s} {'wall base':>9s} {'this':>7s} {'ratio':>6s}  "
          f"{'cpu base':>8s} {'this':>7s} {'ratio':>6s}  {'RSS base':>8s} {'this':>7s} "
          f"{'ratio':>6s}")
    for name, argv in commands(t, folder):
        if a.only and name not in a.only:
            continue
        runs = {"base": [], "this": []}
        for _ in range(a.rounds):
            for side, python in (("base", a.base), ("this", sys.executable)):
                rc, wall, rss, cpu = measure([python, "-m", "xprof.mxcli", *argv])
                if rc not in (0, 1):
                    print(f"{name}: {side} exited {rc}", flush=True)
                runs[side].append((wall, cpu, rss))
        med = {side: [statistics.median(r[j] for r in runs[side]) for j in range(3)]
               for side in runs}
        cells = []
        for j, unit in ((0, "s"), (1, "s"), (2, "MB")):
            b, n = med["base"][j], med["this"][j]
            cells.append(f"{b:8.2f}{unit[0]} {n:6.2f}{unit[0]} {n / b if b else 0:6.3f}")
        print(f"{name:26s} " + "  ".join(cells), flush=True)


if __name__ == "__main__":
    main()
