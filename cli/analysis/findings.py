"""Findings: short statements about a profile, each backed by the figure it quotes.

A finding is emitted only when the data supports it (a threshold on a measured share or
count); ``figure`` is the number the text quotes, so a reader can check it against the
rest of the explain document. Thresholds are deliberate round numbers, listed in
``THRESHOLDS``.

A finding that proposes changing a setting names the value the run used (the trace's
``otherData.settings``, written by ``xprof run`` and the profiler's dump) and the value
to try, and is made only when that change can help: more engine workers only when every
configured worker was running ops and the machine has cores to spare, a larger
custom-op pool only when the pool ran as many threads as its bound allows. Otherwise
the finding states the waits and proposes nothing.
"""
from __future__ import annotations

from xprof.traces.names import PURE_PYTHON

from xprof.mxcli.analysis.threads import CUSTOM, DRIVER, WORKER

THRESHOLDS = {
    "python_share": 0.40,      # Python time on the path, share of wall
    "queue_share": 0.10,       # queue waits on the path, share of wall
    "dependency_share": 0.10,  # engine hand-offs on the path, share of wall
    "top_op_share": 0.30,      # one op name's run time on the path, share of wall
    "custom_python_share": 0.10,   # a custom op's Python on the path: name its top line
    "small_op_us": 20,         # "short op": run under this many microseconds
    "small_op_count": 100,     # at least this many short ops on the path ...
    "small_op_share": 0.10,    # ... taking at least this share of wall
}


def _pct(x):
    return round(100.0 * x, 1)


def findings(facts):
    """``facts``: a dict with ``wall``, ``by_kind`` {kind: ns}, ``by_name`` {name: ns},
    ``calls`` {name: count on path}, ``threads`` {name: (busy, blocked, idle, role)},
    ``small_ops`` (count, ns) of path ops shorter than the threshold, ``custom_queue_ns``
    (queue waits of custom-op calls on the path), ``custom_threads``, ``workers`` (engine
    workers that ran ops on the path), ``python_threads`` ([(thread name, ns)] of the
    path's Python, most first),
    ``dependency_edges``, ``has_dependencies``, ``settings`` (``otherData.settings``).
    Returns [{"text", "figure"}]."""
    wall = facts["wall"]
    if wall <= 0:
        return []
    out = []
    kinds = facts["by_kind"]
    th = facts["threads"]
    settings = facts.get("settings") or {}
    workers = [v for v in th.values() if v[3] == WORKER]
    drivers = [(n, v) for n, v in th.items() if v[3] == DRIVER]
    py = kinds.get("python", 0) / wall
    if py >= THRESHOLDS["python_share"]:
        # the thread the path's Python is on, from the path itself (not the first driver)
        on = (facts.get("python_threads") or [(drivers[0][0] if drivers else None, 0)])[0][0]
        if workers and on is not None:
            idle = sum(v[2] for v in workers) / (wall * len(workers))
            out.append({"text": f"engine workers idle {_pct(idle)}% while the path spends "
                                f"{_pct(py)}% of wall in Python on {on} "
                                f"(between pushes, or blocked on nothing the engine ran): "
                                f"the script, not the engine, sets the pace",
                        "figure": _pct(py)})
        else:
            out.append({"text": f"{_pct(py)}% of wall on the path is Python time "
                                f"(no op the path needed was running)", "figure": _pct(py)})
    # queue waits: custom-op calls waiting for the custom-op pool, every other op for a
    # free engine worker (two findings: each names the pool it is about)
    q = kinds.get("queue", 0) / wall
    cq = facts.get("custom_queue_ns", 0) / wall
    if cq >= THRESHOLDS["queue_share"]:
        n_custom = facts.get("custom_threads", 0)
        text = (f"the path waits {_pct(cq)}% of wall on custom-op calls queued: the "
                f"custom-op pool ran them on {n_custom} thread{'s' if n_custom != 1 else ''}")
        out.append({"text": text + _pool_advice(n_custom, settings), "figure": _pct(cq)})
    eq = q - cq
    if eq >= THRESHOLDS["queue_share"]:
        n = facts.get("workers", 0)
        text = (f"ops on the path waited {_pct(eq)}% of wall for a free engine worker "
                f"({n} engine worker{'s' if n != 1 else ''} ran ops on the path)")
        out.append({"text": text + _worker_advice(n, settings), "figure": _pct(eq)})
    d = kinds.get("dependency", 0) / wall
    if d >= THRESHOLDS["dependency_share"] and facts.get("has_dependencies"):
        out.append({"text": f"hand-offs between dependent ops (a predecessor finished, the op "
                            f"not yet ready) take {_pct(d)}% of wall on the path "
                            f"({facts.get('dependency_edges', 0)} edges)", "figure": _pct(d)})
    if facts["by_name"]:
        name, ns = min(facts["by_name"].items(), key=lambda kv: (-kv[1], kv[0]))
        share = ns / wall
        if share >= THRESHOLDS["top_op_share"]:
            calls = facts["calls"].get(name, 0)
            out.append({"text": f"{name} runs {_pct(share)}% of wall on the path ({calls} "
                                f"call{'s' if calls != 1 else ''}, "
                                f"{ns / max(calls, 1) / 1e6:.3f} ms each)",
                        "figure": _pct(share)})
    out.extend(_python_line_findings(facts))
    n_small, small_ns = facts.get("small_ops", (0, 0))
    if n_small >= THRESHOLDS["small_op_count"] and small_ns / wall >= THRESHOLDS["small_op_share"]:
        out.append({"text": f"{n_small:,} ops shorter than {THRESHOLDS['small_op_us']} us on the "
                            f"path take {_pct(small_ns / wall)}% of wall: per-op overhead "
                            f"dominates (fewer, larger ops: hybridize the block, so a "
                            f"graph's ops run in bulk segments)",
                    "figure": n_small})
    return out


def _python_line_findings(facts):
    """For each custom op whose Python (``<op>::pure_python``) is on the path for at
    least ``custom_python_share`` of wall, the line most of that Python time went to
    (sampled: ``xprof stats --lines``): "MyOp.forward: 62% in line 37 `np.einsum(...)`"."""
    from xprof.mxcli.analysis.pylines import describe, top_line

    wall = facts["wall"]
    lines = facts.get("python_lines") or {}
    out = []
    for name, ns in sorted(facts["by_name"].items(), key=lambda kv: (-kv[1], kv[0])):
        if not name.endswith("::" + PURE_PYTHON) or ns / wall < THRESHOLDS["custom_python_share"]:
            continue
        op = name[:-len("::" + PURE_PYTHON)]
        row = top_line(lines.get(op) or [])
        if row is None:
            continue
        method = (op[len("_backward_"):] + ".backward") if op.startswith("_backward_") \
            else op + ".forward"
        out.append({"text": f"{method}: {describe(op, row)} (its Python is {_pct(ns / wall)}% "
                            f"of wall on the path; xprof stats --lines {op})",
                    "figure": row["%"]})
    return out


def _pool_advice(used, settings):
    """The proposal for custom-op calls queued in the pool: a larger bound only when the
    pool reached it (it grows on demand, so below its bound more would not help)."""
    bound = settings.get(POOL_SETTING)
    if type(bound) is not int:
        return ""
    if used >= bound:
        return (f"; the pool reached its bound, {POOL_SETTING}={bound}: try "
                f"{POOL_SETTING}={2 * bound}")
    return (f", below its bound ({POOL_SETTING}={bound}; it grows on demand), so a "
            f"larger bound would not help")


def _worker_advice(used, settings):
    """The proposal for ops queued for an engine worker: more workers only when every
    configured one ran ops and the machine has more cores than workers."""
    n = settings.get(WORKER_SETTING)
    cores = settings.get("cpu_count")
    if type(n) is not int or used < n:
        return ""
    if type(cores) is not int:
        return ""
    if cores > n:
        return f"; {WORKER_SETTING}={n}: try {WORKER_SETTING}={min(2 * n, cores)}"
    return f"; {WORKER_SETTING}={n} already uses the machine's {cores} cores"


WORKER_SETTING = "XPROF_CPU_WORKER_NTHREADS"
POOL_SETTING = "XPROF_CUSTOM_OP_NUM_THREADS"

__all__ = ["findings", "THRESHOLDS", "CUSTOM", "DRIVER", "WORKER"]
