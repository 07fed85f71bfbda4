"""Turn raw recorded tuples into a Chrome Trace Event Format document, and write it.

This is the only place that knows the trace layout: small integer pid/tid with
``process_name``/``thread_name`` metadata, complete ``X`` events (one event per slice,
short keys, no args unless an op has some), ``C`` counters, ``i`` instants, async
``b``/``e`` for tasks and frames, and ``s``/``f`` flow pairs from a custom operator's
Python slice to each sub-operator it launched. JSON is produced only at dump time
(numpy-written records, byte templates and orjson).
"""
import gc
import os
import tempfile

import numpy as np
import orjson

from . import columns, recorder as R

PID = 0


def encode(snapshot, base_ns, process_name, other_data):
    """The trace document (JSON bytes) for the events in ``snapshot``
    ([(buffer, events count, slices length)]).

    Plain complete slices, nearly every event of a profile, are written vectorized (see
    :func:`_slice_records`); everything else is built as dicts and serialized by orjson,
    or, for slices with args and sub-operators, through per-name byte templates. Events
    are grouped by kind and name within a thread rather than sorted by time: the format
    does not require order (viewers and ``xprof validate`` sort). The cyclic garbage
    collector is paused meanwhile: the objects made here are acyclic, and a collection
    pass over many of them costs more than the work itself.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _encode(snapshot, base_ns, process_name, other_data)
    finally:
        if was_enabled:
            gc.enable()


def _head(name, cat, tid):
    return (b'{"name":' + orjson.dumps(name) + b',"cat":' + orjson.dumps(cat)
            + b',"ph":"X","pid":%d,"tid":%d,"ts":' % (PID, tid))


def _slice_template(name, cat, tid, tail=b"}"):
    """Bytes of one complete event with ``%d`` holes for ts and dur in nanoseconds: JSON
    reads ``1234e-3`` as the microsecond value 1.234 exactly. ``tail`` ends the object
    (``%s}`` leaves a hole for an ``args`` member)."""
    return _head(name, cat, tid).replace(b"%", b"%%") + b'%de-3,"dur":%de-3' + tail


def _slice_records(rows, base_ns, tid, heads):
    """The complete events of ``(key, t0, t1)`` rows, as byte buffers of events that
    each begin with a comma.

    Events are grouped by (key, digits of ts, digits of dur): every group is a matrix of
    fixed-length records, a template row with the digits written in by numpy. ``ts`` and
    ``dur`` are integer nanoseconds with an ``e-3`` exponent, which JSON reads as the
    exact microsecond value.
    """
    key, start, dur = columns.split(rows, base_ns)
    group = (key * 20 + columns.ndigits(start)) * 20 + columns.ndigits(dur)
    order, groups, starts, ends = columns.runs(group)
    parts = []
    for g, a, b in zip(groups.tolist(), starts.tolist(), ends.tolist()):
        k, wt, wd = g // 400, g // 20 % 20, g % 20
        head = heads.get(k)
        if head is None:
            head = heads[k] = _head(*R.keys[k], tid)
        row = b"," + head + b"0" * wt + b'e-3,"dur":' + b"0" * wd + b"e-3}"
        idx = order[a:b]
        mat = np.empty((b - a, len(row)), dtype=np.uint8)
        mat[:] = np.frombuffer(row, dtype=np.uint8)
        at = 1 + len(head)
        columns.write_digits(mat[:, at:at + wt], start[idx])
        at += wt + 10   # len(b'e-3,"dur":')
        columns.write_digits(mat[:, at:at + wd], dur[idx])
        parts.append(mat)   # bytes.join reads the array's buffer: no copy
    return parts


def _encode(snapshot, base_ns, process_name, other_data):
    meta = [{"name": "process_name", "ph": "M", "pid": PID, "tid": 0,
             "args": {"name": process_name}}]
    objs = []
    slices = []          # templated slices (with args, sub-operators)
    records = []         # vectorized slices, each beginning with a comma
    add_slice = slices.append
    add = objs.append
    flow_id = 0
    SUB, C, XA, I, AB, AE = R.SUB, R.C, R.XA, R.I, R.AB, R.AE
    for buf, n, m in snapshot:
        if n == 0 and m == 0:
            continue
        tid = buf.tid
        if buf.track:
            meta.append({"name": "thread_name", "ph": "M", "pid": PID, "tid": tid,
                         "args": {"name": buf.name}})
            meta.append({"name": "thread_sort_index", "ph": "M", "pid": PID, "tid": tid,
                         "args": {"sort_index": buf.sort_index}})
        if m:
            records += _slice_records(columns.table(buf, m), base_ns, tid, {})
        templates = {}
        for ev in buf.events[:n]:
            if ev[3] < base_ns:
                continue  # began before this session (an op still running at the last finish)
            kind = ev[0]
            if kind == SUB:
                _, name, cat, t0, t1, t_push, call_tid, call_t0, call_name = ev
                try:
                    add_slice(templates[name, cat] % (t0 - base_ns, t1 - t0))
                except KeyError:
                    templates[name, cat] = _slice_template(name, cat, tid)
                    add_slice(templates[name, cat] % (t0 - base_ns, t1 - t0))
                if call_tid is not None and t_push >= call_t0 >= base_ns:
                    flow_id += 1
                    add({"name": call_name, "cat": cat, "ph": "s", "id": flow_id,
                         "ts": (t_push - base_ns) / 1000.0, "pid": PID, "tid": call_tid})
                    add({"name": call_name, "cat": cat, "ph": "f", "bp": "e",
                         "id": flow_id, "ts": (t0 - base_ns) / 1000.0, "pid": PID,
                         "tid": tid})
            elif kind == C:
                _, name, cat, t, value = ev
                add({"name": name, "cat": cat, "ph": "C", "ts": (t - base_ns) / 1000.0,
                     "pid": PID, "args": {name: value}})
            elif kind == XA:
                _, name, cat, t0, t1, args = ev
                key = (name, cat, XA)
                if key not in templates:
                    templates[key] = _slice_template(name, cat, tid, b',"args":%s}')
                add_slice(templates[key] % (t0 - base_ns, t1 - t0, orjson.dumps(args)))
            elif kind == I:
                _, name, cat, t, scope = ev
                add({"name": name, "cat": cat, "ph": "i", "ts": (t - base_ns) / 1000.0,
                     "s": scope, "pid": PID, "tid": tid})
            elif kind == AB or kind == AE:
                _, name, cat, t, ident = ev
                add({"name": name, "cat": cat, "ph": "b" if kind == AB else "e",
                     "id": ident, "ts": (t - base_ns) / 1000.0, "pid": PID, "tid": tid})
    # '[{...},...' : the metadata comes first
    pieces = [b'{"traceEvents":', orjson.dumps(meta + objs)[:-1]]
    if slices:
        pieces += (b",", b",".join(slices))
    pieces += records
    pieces.append(b'],"displayTimeUnit":"ms","otherData":' + orjson.dumps(other_data) + b"}")
    return b"".join(pieces)


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

