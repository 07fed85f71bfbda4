"""Turn raw recorded tuples into a Chrome Trace Event Format document, and write it.

This is the only place that knows the trace layout: small integer pid/tid with
``process_name``/``thread_name`` metadata, complete ``X`` events (one event per slice,
short keys, no args unless an op has some), ``C`` counters, ``i`` instants, async
``b``/``e`` for tasks and frames, and ``s``/``f`` flow pairs from a custom operator's
Python slice to each sub-operator it launched. JSON is produced by orjson at dump time.
"""
import gc
import os
import tempfile

import orjson

from . import recorder as R

PID = 0


def _us(t, base):
    return (t - base) / 1000.0


def build(snapshot, base_ns, process_name, other_data):
    """The trace document for the events in ``snapshot`` ([(buffer, count)]).

    The cyclic garbage collector is paused while the event dicts are built: they are
    acyclic, and a collection pass over a million fresh dicts costs more than the build.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _build(snapshot, base_ns, process_name, other_data)
    finally:
        if was_enabled:
            gc.enable()


def _build(snapshot, base_ns, process_name, other_data):
    out = [{"name": "process_name", "ph": "M", "pid": PID, "tid": 0,
            "args": {"name": process_name}}]
    meta = []
    flow_id = 0
    X, SUB, C, XA, I, AB, AE = R.X, R.SUB, R.C, R.XA, R.I, R.AB, R.AE
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
            if ev[3] < base_ns:
                continue  # began before this session (an op still running at the last finish)
            kind = ev[0]
            if kind == X:
                _, name, cat, t0, t1 = ev
                append({"name": name, "cat": cat, "ph": "X", "ts": (t0 - base_ns) / 1000.0,
                        "dur": (t1 - t0) / 1000.0, "pid": PID, "tid": tid})
            elif kind == SUB:
                _, name, cat, t0, t1, t_push, call = ev
                ts = (t0 - base_ns) / 1000.0
                append({"name": name, "cat": cat, "ph": "X", "ts": ts,
                        "dur": (t1 - t0) / 1000.0, "pid": PID, "tid": tid})
                if call.tid is not None and t_push >= call.t_start >= base_ns:
                    flow_id += 1
                    append({"name": call.name, "cat": cat, "ph": "s", "id": flow_id,
                            "ts": (t_push - base_ns) / 1000.0, "pid": PID, "tid": call.tid})
                    append({"name": call.name, "cat": cat, "ph": "f", "bp": "e",
                            "id": flow_id, "ts": ts, "pid": PID, "tid": tid})
            elif kind == C:
                _, name, cat, t, value = ev
                append({"name": name, "cat": cat, "ph": "C", "ts": (t - base_ns) / 1000.0,
                        "pid": PID, "args": {name: value}})
            elif kind == XA:
                _, name, cat, t0, t1, args = ev
                append({"name": name, "cat": cat, "ph": "X", "ts": (t0 - base_ns) / 1000.0,
                        "dur": (t1 - t0) / 1000.0, "pid": PID, "tid": tid, "args": args})
            elif kind == I:
                _, name, cat, t, scope = ev
                append({"name": name, "cat": cat, "ph": "i", "ts": (t - base_ns) / 1000.0,
                        "s": scope, "pid": PID, "tid": tid})
            elif kind == AB or kind == AE:
                _, name, cat, t, ident = ev
                append({"name": name, "cat": cat, "ph": "b" if kind == AB else "e",
                        "id": ident, "ts": (t - base_ns) / 1000.0, "pid": PID, "tid": tid})
    return {"traceEvents": out[:1] + meta + out[1:], "displayTimeUnit": "ms",
            "otherData": other_data}


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# mkstemp creates files readable by their owner only; a trace (or a memory CSV) gets the
# permissions an ordinary open() would give it, as MXNet's files have.
FILE_MODE = 0o666 & ~_umask()


def write_atomic(path, data):
    """Write bytes to ``path`` via a temp file in the same folder and a rename, so the
    file on disk is always either the old complete document or the new one."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".xprof-", suffix=".tmp", dir=folder)
    try:
        os.fchmod(fd, FILE_MODE)
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
