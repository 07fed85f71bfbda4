"""Turn raw recorded tuples into a Chrome Trace Event Format document, and write it.

This is the only place that knows the trace layout: small integer pid/tid with
``process_name``/``thread_name`` metadata, complete ``X`` events (one event per slice,
short keys, no args unless an op has some), ``C`` counters, ``i`` instants, async
``b``/``e`` for tasks and frames, and ``s``/``f`` flow pairs from a custom operator's
Python slice to each sub-operator it launched. JSON is produced by orjson at dump time.
"""
import os
import tempfile

import orjson

from . import recorder as R

PID = 0


def _us(t, base):
    return (t - base) / 1000.0


def build(snapshot, base_ns, process_name, other_data):
    """The trace document for the events in ``snapshot`` ([(buffer, count)])."""
    out = [{"name": "process_name", "ph": "M", "pid": PID, "tid": 0,
            "args": {"name": process_name}}]
    meta = []
    flow_id = 0
    for buf, n in snapshot:
        if n == 0:
            continue
        tid = buf.tid
        meta.append({"name": "thread_name", "ph": "M", "pid": PID, "tid": tid,
                     "args": {"name": buf.name}})
        meta.append({"name": "thread_sort_index", "ph": "M", "pid": PID, "tid": tid,
                     "args": {"sort_index": buf.sort_index}})
        append = out.append
        for ev in buf.events[:n]:
            kind = ev[0]
            if kind == R.X:
                append({"name": ev[1], "cat": ev[2], "ph": "X", "ts": (ev[3] - base_ns) / 1000.0,
                        "dur": (ev[4] - ev[3]) / 1000.0, "pid": PID, "tid": tid})
            elif kind == R.SUB:
                ts = (ev[3] - base_ns) / 1000.0
                call = ev[6]
                append({"name": ev[1], "cat": ev[2], "ph": "X", "ts": ts,
                        "dur": (ev[4] - ev[3]) / 1000.0, "pid": PID, "tid": tid})
                if call.tid is not None and ev[5] >= call.t_start:
                    flow_id += 1
                    append({"name": call.name, "cat": ev[2], "ph": "s", "id": flow_id,
                            "ts": (ev[5] - base_ns) / 1000.0, "pid": PID, "tid": call.tid})
                    append({"name": call.name, "cat": ev[2], "ph": "f", "bp": "e",
                            "id": flow_id, "ts": ts, "pid": PID, "tid": tid})
            elif kind == R.C:
                append({"name": ev[1], "cat": ev[2], "ph": "C", "ts": (ev[3] - base_ns) / 1000.0,
                        "pid": PID, "args": {ev[1]: ev[4]}})
            elif kind == R.XA:
                append({"name": ev[1], "cat": ev[2], "ph": "X", "ts": (ev[3] - base_ns) / 1000.0,
                        "dur": (ev[4] - ev[3]) / 1000.0, "pid": PID, "tid": tid,
                        "args": ev[5]})
            elif kind == R.I:
                append({"name": ev[1], "cat": ev[2], "ph": "i", "ts": (ev[3] - base_ns) / 1000.0,
                        "s": ev[4], "pid": PID, "tid": tid})
            elif kind == R.AB or kind == R.AE:
                append({"name": ev[1], "cat": ev[2], "ph": "b" if kind == R.AB else "e",
                        "id": ev[4], "ts": (ev[3] - base_ns) / 1000.0, "pid": PID, "tid": tid})
    return {"traceEvents": out[:1] + meta + out[1:], "displayTimeUnit": "ms",
            "otherData": other_data}


def write_atomic(path, data):
    """Write bytes to ``path`` via a temp file in the same folder and a rename, so the
    file on disk is always either the old complete document or the new one."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".xprof-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def dumps_document(doc):
    return orjson.dumps(doc)
