"""``--mark-trace``: a copy of a trace with its critical path highlighted.

Each slice on the path gets ``args.critical_path`` (the ms of it on the path) and
consecutive path slices are linked by flow arrows (category ``critical_path``), as HTA's
overlay does, so Perfetto draws the path across threads. Everything else is copied
unchanged; flow ids start above the trace's own. The copy is streamed (batches in, bytes
out) and written to a temp file that is renamed, and it passes ``xprof validate`` when
the input does.
"""
from __future__ import annotations

import orjson

from xprof.traces.tracefile import TraceReader
from xprof.mxcli.analysis import critical_path as cp

FLOW_CAT = "critical_path"
FLOW_NAME = "critical path"


def path_slices(analysis):
    """[(row, ns on the path)] of the path's op slices, in path order (first seen)."""
    order, ns = [], {}
    p = analysis.path
    for kind, row, t0, t1 in zip(p.kind, p.row, p.t0, p.t1):
        if kind != cp.OP or row < 0:
            continue
        if row not in ns:
            order.append(row)
            ns[row] = 0
        ns[row] += t1 - t0
    return [(r, ns[r]) for r in order]


def _flows(analysis, slices):
    tl = analysis.tl
    out = []
    ident = tl.max_flow_id
    for (a, _), (b, _) in zip(slices, slices[1:]):
        ident += 1
        for ph, row in (("s", a), ("f", b)):
            pid, tid, _ = tl.threads[int(tl.thread[row])]
            out.append({"name": FLOW_NAME, "cat": FLOW_CAT, "ph": ph, "id": ident, "bp": "e",
                        "ts": int(tl.start[row]) / 1000.0, "pid": pid, "tid": tid})
    return out


def chunks(path, analysis):
    """The marked copy of the trace at ``path`` as byte chunks."""
    tl = analysis.tl
    slices = path_slices(analysis)
    flag = {}
    for row, ns in slices:
        o = int(tl.ordinal[row])
        flag[o if o >= 0 else -1 - o] = round(ns / 1e6, 6)
    reader = TraceReader(path)
    yield b'{"traceEvents":['
    index = 0
    first = True
    for batch, _ in reader.batches():
        if flag:
            for k in range(len(batch)):
                ms = flag.get(index + k)
                if ms is not None and type(batch[k]) is dict:
                    ev = dict(batch[k])
                    args = dict(ev.get("args") or {})
                    args["critical_path"] = ms
                    ev["args"] = args
                    batch[k] = ev
        index += len(batch)
        if batch:
            body = _dumps(batch)[1:-1]
            yield body if first else b"," + body
            first = False
    flows = _flows(analysis, slices)
    if flows:
        body = orjson.dumps(flows)[1:-1]
        yield body if first else b"," + body
    top = dict(reader.top)
    top.setdefault("displayTimeUnit", "ms")
    yield b"]," + _dumps(top)[1:]


def _dumps(obj):
    """JSON bytes of what was read: orjson, or the standard library for integers
    beyond 64 bits (which orjson refuses and JSON allows; the copy keeps them)."""
    try:
        return orjson.dumps(obj)
    except TypeError:
        import json
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False).encode()
