"""Time and peak memory of ``xprof validate``, ``xprof stats`` and ``xprof trace`` on a large trace.

Why: both commands promise to stream (bounded memory) and to handle about a
million events in a few seconds on a 2-core machine.  This script generates a
trace shaped like the xprof runtime's output into a temp dir, runs each command
in a fresh subprocess, and prints wall time and peak RSS (``ru_maxrss`` of that
subprocess, read by a tiny wrapper process whose only child is the command).
CPU time (user + system of that subprocess) is printed too: on a busy 2-core
machine it is the steadier figure.  Figures only, no assertions.

    python benchmarks/bench_cli_readers.py [--events 1000000] [--gzip] [--only trace]
"""
from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import time

import orjson

_OPS = ["_plus_scalar", "Convolution", "FullyConnected", "Activation", "_mul_scalar",
        "broadcast_add", "Pooling", "SoftmaxOutput", "dot", "_copy"]

_WRAPPER = r"""
import resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
dt = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(rc, dt, ru.ru_maxrss, ru.ru_utime + ru.ru_stime)
"""


def _metadata():
    yield {"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "xprof"}}
    for tid, name in enumerate(["main thread", "engine worker 0", "engine worker 1",
                                "custom op worker 0"]):
        yield {"name": "thread_name", "ph": "M", "pid": 0, "tid": tid, "args": {"name": name}}


def _step(k):
    """About eleven events of one imperative step: API call, two operators, a custom op
    with its flow arrow to a sub-operator, a memory counter, a user task and a marker."""
    t = round(k * 10.0, 3)
    op = _OPS[k % len(_OPS)]
    co = "Custom Operator"
    return [
        {"name": "MXImperativeInvoke", "cat": "API", "ph": "X", "ts": t, "dur": 5.0, "pid": 0, "tid": 0},
        {"name": op, "cat": "operator", "ph": "X", "ts": t + 1, "dur": 2.0, "pid": 0, "tid": 1},
        {"name": _OPS[(k + 3) % len(_OPS)], "cat": "operator", "ph": "X", "ts": t + 1, "dur": 3.5,
         "pid": 0, "tid": 2},
        {"name": "Memory: cpu/0", "cat": "Device Storage", "ph": "C", "ts": t + 2, "pid": 0,
         "args": {"Memory: cpu/0": 4096 * (k % 97 + 1)}},
        {"name": "MyAddOne::pure_python", "cat": co, "ph": "X", "ts": t, "dur": 4.0, "pid": 0, "tid": 3},
        {"name": "MyAddOne", "cat": co, "ph": "s", "id": k, "ts": t + 0.5, "pid": 0, "tid": 3},
        {"name": "MyAddOne::_plus_scalar", "cat": co, "ph": "X", "ts": t + 3.125, "dur": 0.5,
         "pid": 0, "tid": 1},
        {"name": "MyAddOne", "cat": co, "ph": "f", "bp": "e", "id": k, "ts": t + 3.25, "pid": 0, "tid": 1},
        {"name": "step", "cat": "user", "ph": "b", "id": k, "ts": t, "pid": 0, "tid": 0},
        {"name": "step", "cat": "user", "ph": "e", "id": k, "ts": t + 9.5, "pid": 0, "tid": 0},
        {"name": "iteration", "cat": "user", "ph": "i", "s": "t", "ts": t + 6, "pid": 0, "tid": 0},
    ]


def write_trace(path, n_events, compress=False):
    """Write an xprof-shaped object-form trace with about ``n_events`` events."""
    opener = gzip.open if compress else open
    count = 0
    with opener(path, "wb") as f:
        f.write(b'{"traceEvents": [\n')
        first = True
        for ev in _metadata():
            f.write((b"" if first else b",\n") + orjson.dumps(ev))
            first = False
            count += 1
        k = 0
        while count < n_events:
            batch = _step(k)
            f.write(b",\n" + b",\n".join(orjson.dumps(e) for e in batch))
            count += len(batch)
            k += 1
        f.write(b'\n],\n"displayTimeUnit": "ms",\n"otherData": {"xprof_version": "bench", '
                b'"command": "bench", "start_time": "2024-01-01T00:00:00", "clock": "perf_counter_ns"}}\n')
    return count


def measure(argv):
    out = subprocess.run([sys.executable, "-c", _WRAPPER, *argv], check=True,
                         capture_output=True, text=True).stdout.split()
    rc, seconds, maxrss_kb, cpu = int(out[0]), float(out[1]), int(out[2]), float(out[3])
    return rc, seconds, maxrss_kb / 1024.0, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--gzip", action="store_true", help="also measure a gzipped copy")
    ap.add_argument("--only", action="append", default=None, metavar="NAME",
                    help="only this command (validate, stats, 'stats table', trace); repeatable")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        variants = [("plain", os.path.join(tmp, "bench.json"), False)]
        if args.gzip:
            variants.append(("gzip", os.path.join(tmp, "bench.json.gz"), True))
        for label, path, compress in variants:
            t = time.perf_counter()
            n = write_trace(path, args.events, compress)
            size = os.path.getsize(path) / 1e6
            print(f"{label}: generated {n} events, {size:.1f} MB in {time.perf_counter() - t:.1f} s")
            cli = [sys.executable, "-m", "xprof.cli"]
            out = os.path.join(tmp, "normalized.json")
            for name, argv in [("validate", cli + ["validate", path]),
                               ("stats", cli + ["stats", path, "--format", "json"]),
                               ("stats table", cli + ["stats", path]),
                               ("trace", cli + ["trace", path, "-o", out])]:
                if args.only and name not in args.only:
                    continue
                rc, seconds, rss, cpu = measure(argv)
                print(f"{label}: {name:12s} exit {rc}  wall {seconds:6.2f} s  cpu {cpu:6.2f} s  "
                      f"peak RSS {rss:7.1f} MB", flush=True)


if __name__ == "__main__":
    main()
