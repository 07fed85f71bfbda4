"""Synthetic traces in the runtime's dependency encoding (docs/dependencies.md), for tests
whose answers are known by construction.

Times are given in microseconds; every op is ``op(name, tid, push, ready, start, end,
reads, writes, pusher)`` and becomes an ``X`` event with ``args.dep``.
"""
from __future__ import annotations

THREADS = {0: "main thread", 1: "engine worker 0", 2: "engine worker 1",
           3: "custom op worker 0"}


def meta(threads=THREADS):
    out = [{"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "xprof"}}]
    for tid, name in threads.items():
        out.append({"name": "thread_name", "ph": "M", "pid": 0, "tid": tid,
                    "args": {"name": name}})
    return out


def op(name, tid, push, ready, start, end, reads=(), writes=(), pusher=0,
       cat="operator"):
    """An engine op's slice with its dependency record (times in us)."""
    ns = lambda us: round(us * 1000)  # noqa: E731
    p, q = ns(start) - ns(push), ns(start) - ns(ready)
    return {"name": name, "cat": cat, "ph": "X", "pid": 0, "tid": tid, "ts": start,
            "dur": round(end - start, 3),
            "args": {"dep": [p, q, pusher, *reads, *(-w for w in writes)]}}


def sync(tid, start, end, wait):
    """A sync point (an instant at the end of the wait): ``wait`` is a list of variables
    (WaitForVar) or "all" (WaitForAll)."""
    name = "WaitForAll" if wait == "all" else "WaitForVar"
    return {"name": name, "cat": "operator", "ph": "i", "s": "t", "pid": 0, "tid": tid,
            "ts": end, "args": {"wait": wait, "waited": round(end * 1000) - round(start * 1000)}}


def slice_(name, tid, start, end, cat="MXNET_C_API"):
    return {"name": name, "cat": cat, "ph": "X", "pid": 0, "tid": tid, "ts": start,
            "dur": round(end - start, 3)}
