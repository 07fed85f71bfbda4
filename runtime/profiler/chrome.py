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

    Complete slices, nearly every event of a profile, are written by numpy with no
    Python work per event (see :func:`_slice_records`), each thread's in time order;
    everything else is built as dicts and serialized by orjson. The cyclic garbage
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


_TS = b'"ts":'
_MID = b'e-3,"dur":'
_END = b"e-3}"


def _head(name, cat, tid, args_json=None):
    """A complete event up to its ``"ts":`` member (``args_json``: its args, as JSON)."""
    head = b'{"name":' + orjson.dumps(name) + b',"cat":' + orjson.dumps(cat) + \
        b',"ph":"X","pid":%d,"tid":%d,' % (PID, tid)
    if args_json is not None:
        head += b'"args":' + args_json + b","
    return head + _TS


def _slice_records(key, start, dur, head_of):
    """One thread's complete events as a uint8 array of records, each beginning with a
    comma, sorted by start (the longer first at equal starts: parents before children).

    numpy builds them as one matrix of fixed-length rows: heads (``{"name":...,
    "tid":..,``) gathered by key and padded before ``"ts":``, then ``ts`` and ``dur``
    (integer nanoseconds with an ``e-3`` exponent, which JSON reads as the exact
    microsecond value) right-aligned, digits written by column. The padding is spaces,
    which JSON allows there, when it is a small part of the bytes; otherwise NUL bytes
    (never in JSON text: control characters in names are escaped), dropped at the end
    by one boolean mask. ``head_of(key)`` gives a key's head.
    """
    order = np.argsort(start, kind="stable")   # recorded as they end: nearly sorted
    first = start[order]
    if (first[1:] == first[:-1]).any():         # equal starts: the longer one first
        order = np.lexsort((-dur, start))
    key, start, dur = key[order], start[order], dur[order]
    present = np.flatnonzero(np.bincount(key))
    heads = [head_of(k) for k in present.tolist()]
    lut = np.zeros(int(present[-1]) + 1, dtype=np.intp)
    lut[present] = np.arange(len(present))
    which = lut[key]
    nd_start, nd_dur = columns.ndigits(start), columns.ndigits(dur)
    lengths = np.array([len(h) for h in heads])
    width, wt, wd = int(lengths.max()), int(nd_start.max()), int(nd_dur.max())
    row = 1 + width + wt + len(_MID) + wd + len(_END)
    padding = (int((width - lengths) @ np.bincount(which, minlength=len(heads)))
               + wt * len(key) - int(nd_start.sum()) + wd * len(key) - int(nd_dur.sum()))
    fill = 32 if padding * 16 <= row * len(key) else 0
    table = np.frombuffer(b"".join(h[:-len(_TS)] + bytes([fill]) * (width - len(h)) + _TS
                                   for h in heads), dtype=np.uint8).reshape(len(heads), width)
    mat = np.empty((len(key), row), dtype=np.uint8)
    mat[:, 0] = ord(",")
    np.take(table, which, axis=0, out=mat[:, 1:1 + width], mode="clip")
    at = 1 + width
    columns.write_digits(mat[:, at:at + wt], start, nd_start, fill)
    at += wt
    mat[:, at:at + len(_MID)] = np.frombuffer(_MID, dtype=np.uint8)
    at += len(_MID)
    columns.write_digits(mat[:, at:at + wd], dur, nd_dur, fill)
    mat[:, at + wd:] = np.frombuffer(_END, dtype=np.uint8)
    if fill:
        return mat
    flat = mat.reshape(-1)
    return flat[flat != 0]


def _encode(snapshot, base_ns, process_name, other_data):
    meta = [{"name": "process_name", "ph": "M", "pid": PID, "tid": 0,
             "args": {"name": process_name}}]
    objs = []
    records = []         # per thread, a matrix of slices each beginning with a comma
    add = objs.append
    flow_id = 0
    SUB, C, XA, I, AB, AE = R.SUB, R.C, R.XA, R.I, R.AB, R.AE
    keys = R.key_table()
    n_keys = len(keys)   # after the snapshot: every key its slices use
    for buf, n, m in snapshot:
        if n == 0 and m == 0:
            continue
        tid = buf.tid
        if buf.track:
            meta.append({"name": "thread_name", "ph": "M", "pid": PID, "tid": tid,
                         "args": {"name": buf.name}})
            meta.append({"name": "thread_sort_index", "ph": "M", "pid": PID, "tid": tid,
                         "args": {"sort_index": buf.sort_index}})
        extra = []        # slices kept as tuples (with args, sub-operators): key, t0, t1
        local_keys = {}   # their (name, cat[, args JSON]) -> key numbered after the recorder's
        heads = []        # head of key n_keys + i

        def local_key(ident, args_json=None):
            k = local_keys.get(ident)
            if k is None:
                k = local_keys[ident] = n_keys + len(heads)
                heads.append(_head(ident[0], ident[1], tid, args_json))
            return k

        for ev in buf.events[:n]:
            if ev[3] < base_ns:
                continue  # began before this session (an op still running at the last finish)
            kind = ev[0]
            if kind == SUB:
                _, name, cat, t0, t1, t_push, call_tid, call_t0, call_name = ev
                extra += (local_key((name, cat)), t0, t1)
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
                args_json = orjson.dumps(args)
                extra += (local_key((name, cat, args_json), args_json), t0, t1)
            elif kind == I:
                _, name, cat, t, scope = ev
                add({"name": name, "cat": cat, "ph": "i", "ts": (t - base_ns) / 1000.0,
                     "s": scope, "pid": PID, "tid": tid})
            elif kind == AB or kind == AE:
                _, name, cat, t, ident = ev
                add({"name": name, "cat": cat, "ph": "b" if kind == AB else "e",
                     "id": ident, "ts": (t - base_ns) / 1000.0, "pid": PID, "tid": tid})
        rows = columns.table(buf, m)
        if extra:
            rows = np.concatenate((rows, np.array(extra, dtype=np.int64).reshape(-1, 3)))
        key, start, dur = columns.split(rows, base_ns)
        if len(key):
            records.append(_slice_records(
                key, start, dur,
                lambda k: heads[k - n_keys] if k >= n_keys else _head(*keys[k], tid)))
    # '[{...},...' : the metadata comes first
    pieces = [b'{"traceEvents":', orjson.dumps(meta + objs)[:-1]]
    pieces += records     # bytes.join reads the matrices' buffers: no copy
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

