"""Time and peak memory of the trace readers (``validate``, ``stats``, ``trace``, ``explain``,
``report``, ``diff``) on a large trace.

Why: both commands promise to stream (bounded memory) and to handle about a
million events in a few seconds on a 2-core machine.  This script generates a
trace shaped like the xprof runtime's output into a temp dir, runs each command
in a fresh subprocess, and prints wall time and peak RSS (``ru_maxrss`` of that
subprocess, read by a tiny wrapper process whose only child is the command).
``explain``, ``report`` and ``diff`` read a second trace of the same shape with the
engine's dependency records (``args.dep``, sync points), as ``xprof run`` writes them;
``diff`` compares that trace with itself (the work is reading both and matching rows).
CPU time (user + system of that subprocess) is printed too: on a busy 2-core
machine it is the steadier figure.  Figures only, no assertions.

    python benchmarks/bench_cli_readers.py [--events 1000000] [--gzip] [--only trace]
"""
from __future__ import annotations

import argparse
import gzip
import os
import sys
import tempfile
import time

import orjson

from _util import measure

_OPS = ["_plus_scalar", "Convolution", "FullyConnected", "Activation", "_mul_scalar",
        "broadcast_add", "Pooling", "SoftmaxOutput", "dot", "_copy"]



def _metadata():
    yield {"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "xprof"}}
    for tid, name in enumerate(["main thread", "engine worker 0", "engine worker 1",
                                "custom op worker 0"]):
        yield {"name": "thread_name", "ph": "M", "pid": 0, "tid": tid, "args": {"name": name}}


def _step(k, deps=False):
    """About eleven events of one imperative step: API call, two operators, a custom op
    with its flow arrow to a sub-operator, a memory counter, a user task and a marker.

    ``deps``: the engine's dependency records as the xprof runtime writes them
    (``args.dep`` on every op, call and sub-operator, docs/dependencies.md), consistent
    with the times: each op reads the previous step's output of the op before it, the
    sub-operator waits for this step's first op, and every 100th step copies the call's
    output (an op pushed before the call ends) and waits for the copy (``WaitForVar``),
    so the critical path walks ops, queue waits, dependency hand-offs and Python."""
    t = round(k * 10.0, 3)
    op = _OPS[k % len(_OPS)]
    co = "Custom Operator"
    v = 5 * k + 1   # this step's variables: v (op), v+1 (op 2), v+2 (call), v+3 (sub-op), v+4 (copy)
    events = [
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
    if deps:
        prev = v - 5 if k else 0            # 0: no variable (dropped by readers)
        events[1]["args"] = {"dep": [500, 500, 0, prev, -v]}
        events[2]["args"] = {"dep": [800, 800, 0, prev, -(v + 1)]}
        events[4]["args"] = {"dep": [200, 100, 0, prev + 1 if k else 0, -(v + 2)]}
        events[6]["args"] = {"dep": [2625, 125, 3, v, -(v + 3)]}
        if k % 100 == 99:   # a copy of the call's output, pushed early, then waited for
            events.append({"name": "_copyto", "cat": "operator", "ph": "X", "ts": t + 5,
                           "dur": 4.7, "pid": 0, "tid": 2,
                           "args": {"dep": [3500, 1000, 0, v + 2, -(v + 4)]}})
            events.append({"name": "WaitForVar", "cat": "operator", "ph": "i", "s": "t",
                           "ts": t + 9.8, "pid": 0, "tid": 0,
                           "args": {"wait": [v + 4], "waited": 4300}})
    return events


def _distinct_step(k):
    """Ten slices, each with a name of its own (``<op>#<k>.<j>``): an API call on the
    main thread and operators on two workers. A trace of these has as many statistics
    rows as events (a generated or fuzzed trace can), so it measures a reader's cost
    per row, not per event."""
    t = round(k * 10.0, 3)
    out = []
    for j in range(10):
        tid = 0 if j == 0 else 1 + j % 2
        cat = "API" if j == 0 else "operator"
        out.append({"name": f"{_OPS[j]}#{k}.{j}", "cat": cat, "ph": "X",
                    "ts": round(t + j * 0.5, 3), "dur": 0.25 + (k + j) % 7 * 0.125,
                    "pid": 0, "tid": tid})
    return out


def write_trace(path, n_events, compress=False, deps=False, distinct=False):
    """Write an xprof-shaped object-form trace with about ``n_events`` events
    (``deps``: with dependency records and sync points, see :func:`_step`;
    ``distinct``: only slices, every one named apart, see :func:`_distinct_step`)."""
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
            batch = _distinct_step(k) if distinct else _step(k, deps)
            f.write(b",\n" + b",\n".join(orjson.dumps(e) for e in batch))
            count += len(batch)
            k += 1
        f.write(b'\n],\n"displayTimeUnit": "ms",\n"otherData": {"xprof_version": "bench", '
                b'"command": "bench", "start_time": "2024-01-01T00:00:00", "clock": "perf_counter_ns"}}\n')
    return count


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--gzip", action="store_true", help="also measure a gzipped copy")
    ap.add_argument("--only", action="append", default=None, metavar="NAME",
                    help="only this command (validate, stats, 'stats table', trace, explain, "
                         "report, diff); repeatable")
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
            cli = [sys.executable, "-m", "xprof.mxcli"]
            out = os.path.join(tmp, "normalized.json")
            engine = os.path.join(tmp, "engine.json" + (".gz" if compress else ""))
            page = os.path.join(tmp, "report.html")
            commands = [("validate", cli + ["validate", path]),
                        ("stats", cli + ["stats", path, "--format", "json"]),
                        ("stats table", cli + ["stats", path]),
                        ("trace", cli + ["trace", path, "-o", out]),
                        ("explain", cli + ["explain", engine, "--format", "json"]),
                        ("report", cli + ["report", engine, "-o", page]),
                        ("diff", cli + ["diff", engine, engine, "--format", "json"])]
            wanted = [(n, a) for n, a in commands if not args.only or n in args.only]
            if any(engine in a for _, a in wanted):
                t = time.perf_counter()
                m = write_trace(engine, args.events, compress, deps=True)
                print(f"{label}: generated {m} events with dependency records "
                      f"({os.path.getsize(engine) / 1e6:.1f} MB) in {time.perf_counter() - t:.1f} s")
            for name, argv in wanted:
                rc, seconds, rss, cpu = measure(argv)
                print(f"{label}: {name:12s} exit {rc}  wall {seconds:6.2f} s  cpu {cpu:6.2f} s  "
                      f"peak RSS {rss:7.1f} MB", flush=True)


if __name__ == "__main__":
    main()
