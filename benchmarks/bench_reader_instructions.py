"""Instructions (callgrind) of the readers on 100,000-event traces: the A/B that counts.

Why: the readers' figures are quoted on 1,000,000-event traces in seconds, but on the
shared 2-core machine a wall time moves by 30-50% between runs; instruction counts do
not depend on the load. Each case runs once in a fresh interpreter under callgrind
(fixed hash seed) and prints the instructions it executed, start-up included (the same
for both versions of the code compared):

* ``diff``: both traces of ``bench_diff`` read and compared in one process (the fork
  that reads A beside B is left out: its instructions would be the child's), the JSON
  document built;
* ``report distinct``: ``xprof report`` on ``bench_report --distinct-names``' trace
  (every slice named apart: one statistics row per event);
* ``report``: ``xprof report`` on ``bench_report``'s trace (few names).

Needs valgrind. Traces are written once into ``--dir`` and reused.

    python benchmarks/bench_reader_instructions.py [--events 100000] [--dir /tmp/bri]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

DIFF_CHILD = r'''
import gc, sys
gc.disable()
import orjson
from xprof.mxcli.analysis import diff as D
from xprof.mxcli.streaming import pair as P
doc = D.diff(P.load_summary(sys.argv[1]), P.load_summary(sys.argv[2]))
sys.stdout.buffer.write(orjson.dumps(doc)[:0])
'''


def _callgrind(argv):
    env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1")
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + os.devnull,
                          sys.executable, *argv], capture_output=True, text=True, env=env,
                         check=True).stderr
    return int(re.search(r"Collected : (\d+)", out).group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--dir", default="/tmp/bench-reader-instructions")
    ap.add_argument("--only", action="append", default=None,
                    help="diff, 'report distinct' or report; repeatable")
    a = ap.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing measured")
        return
    os.makedirs(a.dir, exist_ok=True)
    import bench_cli_readers
    import bench_diff

    pa, pb = (os.path.join(a.dir, f"diff-{s}-{a.events}.json") for s in "ab")
    for path, slow in ((pa, 1.0), (pb, 1.5)):
        if not os.path.exists(path):
            bench_diff.write(path, a.events, slow)
    distinct = os.path.join(a.dir, f"distinct-{a.events}.json")
    few = os.path.join(a.dir, f"few-{a.events}.json")
    if not os.path.exists(distinct):
        bench_cli_readers.write_trace(distinct, a.events, deps=True, distinct=True)
    if not os.path.exists(few):
        bench_cli_readers.write_trace(few, a.events, deps=True)
    out = os.path.join(a.dir, "out.html")
    cases = {"diff": ["-c", DIFF_CHILD, pa, pb],
             "report distinct": ["-m", "xprof.mxcli", "report", distinct, "-o", out],
             "report": ["-m", "xprof.mxcli", "report", few, "-o", out]}
    for name, argv in cases.items():
        if a.only and name not in a.only:
            continue
        print(f"{name:16s} {_callgrind(argv):>16,} instructions ({a.events:,} events)",
              flush=True)


if __name__ == "__main__":
    main()
