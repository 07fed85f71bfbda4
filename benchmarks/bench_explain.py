"""Time and peak memory of ``xprof explain`` (and ``xprof stats``) on a 1,000,000-op trace.

Why: the issue asks for the critical path of a million-op trace in at most 10 s and
1 GiB peak RSS on the 2-core machine. The trace is synthesized in the runtime's
encoding (docs/dependencies.md) by a small scheduler simulation, so it is consistent:
the main thread pushes an op every few microseconds, each op reads the output of the op
pushed four before it (four interleaved chains) and a second, shared variable, two
workers run ops when ready and free, a custom-op call with two sub-operators every 500
ops, and a WaitForAll every 1,000 ops. Each command runs in a fresh subprocess (wall
time, CPU time and peak RSS of that subprocess). Figures only, no assertions.

    python benchmarks/bench_explain.py [--ops 1000000] [--keep PATH]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

import orjson

from _util import measure


_NAMES = ["_plus_scalar", "Convolution", "FullyConnected", "Activation", "dot", "_copy"]


def _op(name, tid, push, ready, start, end, reads, writes, pusher, cat="operator"):
    return {"name": name, "cat": cat, "ph": "X", "pid": 0, "tid": tid, "ts": start / 1000,
            "dur": (end - start) / 1000,
            "args": {"dep": [start - push, start - ready, pusher, *reads, *(-w for w in writes)]}}


def _wait_all(t0, t1):
    """A WaitForAll sync point: an instant at its end, its length in args."""
    return {"name": "WaitForAll", "cat": "operator", "ph": "i", "s": "t", "pid": 0, "tid": 0,
            "ts": t1 / 1000, "args": {"wait": "all", "waited": t1 - t0}}


def events(n_ops):
    """Yield the trace's events (times simulated in integer ns)."""
    yield {"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "xprof"}}
    for tid, name in enumerate(["main thread", "engine worker 0", "engine worker 1",
                                "custom op worker 0"]):
        yield {"name": "thread_name", "ph": "M", "pid": 0, "tid": tid, "args": {"name": name}}
    done = {}                  # var -> end of its last write
    free = [0, 0]              # workers
    custom_free = 0
    t = 1000                   # main thread clock
    shared = 1
    shared_reads = 0
    k = 0
    next_var = 10
    while k < n_ops:
        var = next_var
        next_var += 1
        if k % 500 == 499:     # a custom call: pure_python on thread 3, two sub-operators
            push, ready = t, max(t, done.get(var - 4, 0)) + 200
            start = max(ready, custom_free) + 500
            end = start + 20_000
            custom_free = end
            s1_push = start + 3000
            h1, h2 = next_var, next_var + 1
            next_var += 2
            w = 0 if free[0] <= free[1] else 1
            s1s = max(s1_push, free[w]) + 300
            s1e = s1s + 8000
            free[w] = s1e
            s2_push = start + 15_000
            s2r = max(s2_push, s1e) + 200
            w = 0 if free[0] <= free[1] else 1
            s2s = max(s2r, free[w]) + 300
            s2e = s2s + 4000
            free[w] = s2e
            yield _op("MyOp::pure_python", 3, push, ready, start, end, [var - 4], [var], 0,
                      "Custom Operator")
            yield _op("MyOp::dot", 1 + (k % 2), s1_push, s1_push, s1s, s1e, [], [h1], 3,
                      "Custom Operator")
            yield _op("MyOp::_plus_scalar", 2 - (k % 2), s2_push, s2r, s2s, s2e, [h1], [h2], 3,
                      "Custom Operator")
            done[var] = max(end, s2e) + 100
            k += 3
        else:
            push = t
            ready = max(push, done.get(var - 4, 0), done.get(shared, 0) if k % 7 == 0 else 0,
                        shared_reads if k % 50 == 0 else 0) + 200
            w = 0 if free[0] <= free[1] else 1
            start = max(ready, free[w]) + 300
            end = start + 2000 + (k % 13) * 700
            free[w] = end
            reads = [var - 4, shared] if k % 7 == 0 else [var - 4]
            writes = [var, shared] if k % 50 == 0 else [var]
            yield _op(_NAMES[k % len(_NAMES)], 1 + w, push, ready, start, end, reads, writes, 0)
            done[var] = end + 100
            if k % 50 == 0:          # a write waits for the reads since the last write
                done[shared] = end + 100
                shared_reads = 0
            elif k % 7 == 0:
                shared_reads = max(shared_reads, end + 100)
            k += 1
        t += 3000
        if k % 1000 < 3 and k >= 1000 and t < max(free) + 1000:
            s0, t = t, max(max(free), custom_free, max(done.values())) + 1500
            yield _wait_all(s0, t)
            done = {v: e for v, e in done.items() if v >= next_var - 8 or v == shared}
    s0 = t
    t = max(max(free), custom_free) + 1500
    yield _wait_all(s0, max(s0, t))


def write_trace(path, n_ops, transform=None):
    """Write the trace of ``events(n_ops)``; ``transform``: a generator over the events
    that changes them on the way (``bench_diff``'s layers and slower op)."""
    evs = events(n_ops)
    if transform is not None:
        evs = transform(evs)
    with open(path, "wb") as f:
        f.write(b'{"traceEvents":[')
        batch, first = [], True
        for ev in evs:
            batch.append(ev)
            if len(batch) == 50_000:
                f.write((b"" if first else b",") + orjson.dumps(batch)[1:-1])
                batch, first = [], False
        if batch:
            f.write((b"" if first else b",") + orjson.dumps(batch)[1:-1])
        f.write(b'],"displayTimeUnit":"ms"}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=1_000_000)
    ap.add_argument("--keep", default=None, help="write the trace here and keep it")
    ap.add_argument("--rounds", type=int, default=1)
    a = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="bench-explain-")
    path = a.keep or os.path.join(folder, "trace.json")
    if not os.path.exists(path):
        write_trace(path, a.ops)
    size = os.path.getsize(path)
    print(f"trace: {a.ops:,} ops, {size / 1e6:.0f} MB ({path})")
    xprof = [sys.executable, "-m", "xprof.mxcli"]
    for label, cmd in (("explain", [*xprof, "explain", path]),
                       ("explain --format json", [*xprof, "explain", path, "--format", "json"]),
                       ("stats", [*xprof, "stats", path])):
        for _ in range(a.rounds):
            rc, wall, rss, cpu = measure(cmd)
            print(f"{label:<24} exit {rc}  wall {wall:6.2f} s  cpu {cpu:6.2f} s  "
                  f"peak RSS {rss:6.0f} MiB")
    if not a.keep:
        os.unlink(path)
        os.rmdir(folder)


if __name__ == "__main__":
    main()
