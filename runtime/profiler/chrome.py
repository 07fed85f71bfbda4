"""Turn raw recorded tuples into a Chrome Trace Event Format document, and write it.

This is the only place that knows the trace layout: small integer pid/tid with
``process_name``/``thread_name`` metadata, complete ``X`` events (one event per slice,
short keys, no args unless an op has some), ``C`` counters, ``i`` instants, async
``b``/``e`` for tasks and frames, and ``s``/``f`` flow pairs from a custom operator's
Python slice to each sub-operator it launched. JSON is produced only at dump time
(numpy-written records, byte templates and orjson); the file is written by
:func:`xprof.traces.atomic.write_atomic`.
"""
import numpy as np
import orjson

from xprof.traces import callstats

from . import columns, deps, linefold, recorder as R, records, sampler
from .observer import observer as _observer

PID = 0


def encode(snapshot, base_ns, process_name, other_data):
    """The trace document (JSON bytes) for the events in ``snapshot``
    ([(buffer, events count, slices length)]).

    Complete slices, nearly every event of a profile, are written by numpy with no
    Python work per event (see :func:`_slice_records`), each thread's in time order;
    everything else is built as dicts and serialized by orjson. The cyclic garbage
    collector is paused meanwhile (:func:`.columns.gc_paused`).
    """
    with columns.gc_paused():
        return _encode(snapshot, base_ns, process_name, other_data)


_TS = b'"ts":'
_MID = b'e-3,"dur":'
_END = b"e-3}"


def _head(name, cat, tid, args_json=None, pid=PID):
    """A complete event up to its ``"ts":`` member (``args_json``: its args, as JSON)."""
    head = b'{"name":' + orjson.dumps(name) + b',"cat":' + orjson.dumps(cat) + \
        b',"ph":"X","pid":%d,"tid":%d,' % (pid, tid)
    if args_json is not None:
        head += b'"args":' + args_json + b","
    return head + _TS


_DEP_OPEN = b',"args":{"dep":['
_DEP_CLOSE = b"]}}"


def _dep_open(args):
    """The start of the args of an op record with attributes ``args`` (a dict; None:
    none): ``,"args":{"name":"conv0","Input Dims":[[...]],"dep":[`` (or only dep)."""
    if not args:
        return _DEP_OPEN
    return b',"args":' + orjson.dumps(args)[:-1] + b',"dep":['


def _dep_tails(cols, var_numbers, tid, opens, which):
    """NUL-padded event endings ``,"args":{"Input Dims":[...],"dep":[p,q,t,v...]}}``
    (docs/dependencies.md; ``Input Dims`` only for an op with input shapes), one row per
    record of ``cols`` (:class:`.deps.OpTable`, ``var_numbers`` its variables
    numbered); record i's args begin with ``opens[which[i]]`` (:func:`_dep_open`).
    Also, per row, the :func:`.columns.layout_key` of where its NULs are (what decides
    them: its opening, the digit counts of its numbers, its variables' signs), for
    :func:`.columns.drop_nul`."""
    pusher = np.where(cols.pusher < 0, tid, cols.pusher)
    fields = [cols.p, cols.q, pusher]
    k = int(cols.counts.max()) if len(cols.counts) else 0
    starts = np.cumsum(cols.counts) - cols.counts
    mag = np.abs(var_numbers)
    wv = int(columns.ndigits(mag).max()) if len(mag) else 1
    nds = [columns.ndigits(f) for f in fields]
    widths = [int(nd.max()) for nd in nds]
    layout = [which, *nds]
    wo = max(len(o) for o in opens)
    width = wo + sum(widths) + 2 + k * (2 + wv) + len(_DEP_CLOSE)
    dep = np.zeros((len(cols), width), dtype=np.uint8)
    table = np.frombuffer(b"".join(o + bytes(wo - len(o)) for o in opens),
                          dtype=np.uint8).reshape(len(opens), wo)
    np.take(table, which, axis=0, out=dep[:, :wo], mode="clip")
    c = wo
    for j, (f, nd, w) in enumerate(zip(fields, nds, widths)):
        if j:
            dep[:, c] = ord(",")
            c += 1
        columns.write_digits(dep[:, c:c + w], f, nd, 0)
        c += w
    for j in range(k):
        has = cols.counts > j
        rows = np.flatnonzero(has)
        v = var_numbers[starts[rows] + j]
        dep[rows, c] = ord(",")
        dep[rows[v < 0], c + 1] = ord("-")
        block = np.zeros((len(rows), wv), dtype=np.uint8)
        nd = columns.ndigits(np.abs(v))
        columns.write_digits(block, np.abs(v), nd, 0)
        dep[rows, c + 2:c + 2 + wv] = block
        slot = np.zeros(len(cols), dtype=np.int64)   # 0: no variable j
        slot[rows] = 1 + (v < 0) + 2 * nd
        layout.append(slot)
        c += 2 + wv
    dep[:, c:c + len(_DEP_CLOSE)] = np.frombuffer(_DEP_CLOSE, dtype=np.uint8)
    return dep, columns.layout_key(layout)


def _slice_records(key, start, dur, head_of, tail=None):
    """One thread's complete events as a uint8 array of records, each beginning with a
    comma, sorted by start (the longer first at equal starts: parents before children).

    numpy builds them as one matrix of fixed-length rows: heads (``{"name":...,
    "tid":..,``) gathered by key and padded before ``"ts":``, then ``ts`` and ``dur``
    (integer nanoseconds with an ``e-3`` exponent, which JSON reads as the exact
    microsecond value) right-aligned, digits written by column. The padding is spaces,
    which JSON allows there, when it is a small part of the bytes; otherwise NUL bytes
    (never in JSON text: control characters in names are escaped), dropped at the end
    by one boolean mask. ``head_of(key)`` gives a key's head. ``tail``: ``(rows,
    endings, layouts)``, what follows ``"dur":...e-3`` in the given rows (NUL-padded
    bytes ending the event and where their NULs are, :func:`_dep_tails`); every other
    row ends with ``}``. None: no endings. The NULs go by :func:`.columns.drop_nul`,
    each row's layout told by what decides its padding (head, digit counts, ending).
    """
    order = np.argsort(start, kind="stable")   # recorded as they end: nearly sorted
    first = start[order]
    if (first[1:] == first[:-1]).any():         # equal starts: the longer one first
        order = np.lexsort((-dur, start))
    key, start, dur = key[order], start[order], dur[order]
    end = _END if tail is None else _END[:-1]
    present = np.flatnonzero(np.bincount(key))
    heads = [head_of(k) for k in present.tolist()]
    lut = np.zeros(int(present[-1]) + 1, dtype=np.intp)
    lut[present] = np.arange(len(present))
    which = lut[key]
    nd_start, nd_dur = columns.ndigits(start), columns.ndigits(dur)
    lengths = np.array([len(h) for h in heads])
    width, wt, wd = int(lengths.max()), int(nd_start.max()), int(nd_dur.max())
    row = 1 + width + wt + len(_MID) + wd + len(end) + (0 if tail is None else tail[1].shape[1])
    padding = (int((width - lengths) @ np.bincount(which, minlength=len(heads)))
               + wt * len(key) - int(nd_start.sum()) + wd * len(key) - int(nd_dur.sum()))
    fill = 32 if tail is None and padding * 16 <= row * len(key) else 0
    # spaces go before "ts": (JSON allows them there); NULs after it, beside the
    # digits' own padding, so that drop_nul moves one run fewer per row
    table = np.frombuffer(b"".join(h[:-len(_TS)] + bytes([fill]) * (width - len(h)) + _TS
                                   if fill else h + bytes(width - len(h))
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
    at += wd
    mat[:, at:at + len(end)] = np.frombuffer(end, dtype=np.uint8)
    if fill:
        return mat
    layout = [which, nd_start, nd_dur]
    if tail is not None:   # "}" then NULs, or the row's ending, where the row went
        rows, endings, tail_layout = tail
        at += len(end)
        mat[:, at] = ord("}")
        mat[:, at + 1:] = 0
        where = np.empty(len(order), dtype=np.intp)
        where[order] = np.arange(len(order))
        mat[where[rows], at:] = endings
        ending = np.zeros(len(order), dtype=np.int64)   # 0: "}"
        ending[where[rows]] = tail_layout + 1
        layout.append(ending)
    return columns.drop_nul(mat, columns.layout_key(layout))


class _Thread:
    """What the encoders of one thread's records share: its track, the trace's events
    built so far, slices kept as tuples (with args, sub-operators) as ``key, t0, t1``
    under keys numbered after the recorder's, and the flow-arrow counter."""

    __slots__ = ("tid", "pid", "base", "add", "extra", "local_keys", "heads", "n_keys",
                 "flows", "calls", "vars", "backlogs")

    def __init__(self, tid, base, add, n_keys, flows, calls=0, pid=PID, var_numbers=None):
        self.tid, self.base, self.add, self.n_keys, self.flows = tid, base, add, n_keys, flows
        self.calls = calls     # ids of custom-op call spans given out so far
        self.pid = pid
        self.vars = var_numbers   # id() -> the trace's variable number (deps.collect)
        self.backlogs = {}     # a custom-op call's start -> its Backlog (deps.call_backlogs)
        self.extra = []
        self.local_keys = {}   # (name, cat[, args JSON]) -> key
        self.heads = []        # head of key n_keys + i

    def key(self, ident, args_json=None):
        k = self.local_keys.get(ident)
        if k is None:
            k = self.local_keys[ident] = self.n_keys + len(self.heads)
            self.heads.append(_head(ident[0], ident[1], self.tid, args_json, self.pid))
        return k

    def us(self, t):
        return (t - self.base) / 1000.0


# -- encoders: one per record kind (records.KINDS), from the kind's declaration unless the
# -- trace shows the kind in a way of its own (below) -----------------------------------
# Where the fields stand that the encoders below read (from the declarations).
NAME, CAT, T = records.NAME, records.CAT, records.T
SYNC_VARS = records.SYNC_VARS
SUB_T_READY, SUB_READS, SUB_WRITES = records.SUB_T_READY, records.SUB_READS, records.SUB_WRITES
_SUB_PUSH, _SUB_TID, _SUB_T0, _SUB_CALL = (records.position(records.SUB_OPERATOR, f)
                                           for f in ("t_push", "call_tid", "call_t0", "call_name"))
_COUNTER_VALUE = records.position(records.COUNTER, "value")
_CALL_START = records.position(records.CALL_SPAN, "t_start")


def _declared(kind):
    """The encoder of a kind from its declaration (phase, fields, keys)."""
    fields = kind.fields
    if kind.phase == "X":   # a slice: a row of the thread's matrix (args, if any, in its head)
        at = fields.index("args") + 1 if "args" in fields else None

        def encode(th, ev):
            name, cat, t0, t1 = ev[NAME], ev[CAT], ev[T], ev[T + 1]
            if at is None:
                th.extra += (th.key((name, cat)), t0, t1)
            else:
                args_json = orjson.dumps(ev[at])
                th.extra += (th.key((name, cat, args_json), args_json), t0, t1)
        return encode
    phase = kind.phase
    extra = [(key, fields.index(field) + 1) for field, key in kind.keys.items()]

    def encode(th, ev):
        obj = {"name": ev[NAME], "cat": ev[CAT], "ph": phase, "ts": th.us(ev[T]), "pid": th.pid,
               "tid": th.tid}
        for key, at in extra:
            obj[key] = ev[at]
        th.add(obj)
    return encode


def _dep_slice(th, name, cat, t0, t1, args):
    """A complete slice with its dependency record as its own event (its args differ
    from every other op's, so it is no row of the shared-head matrix)."""
    th.add({"name": name, "cat": cat, "ph": "X", "ts": th.us(t0), "dur": (t1 - t0) / 1000.0,
            "pid": th.pid, "tid": th.tid, "args": args})


def _op_dep(th, ev):
    """Nothing per event: a thread's op records are written in bulk from their table
    (:func:`.deps.collect`), a row of the thread's matrix each with the args tail of
    :func:`_dep_tails` (``Input Dims`` and ``dep``); the encoder never hands it one."""


def _sync(th, ev):
    name, cat, t0, t1, ids = ev[NAME], ev[CAT], ev[T], ev[T + 1], ev[SYNC_VARS]
    th.add({"name": name, "cat": cat, "ph": "i", "s": "t", "ts": th.us(t1), "pid": th.pid,
            "tid": th.tid, "args": {"wait": "all" if ids is None else [th.vars[i] for i in ids],
                                    "waited": t1 - t0}})


def _sub_operator(th, ev):
    name, cat, t0, t1 = ev[NAME], ev[CAT], ev[T], ev[T + 1]
    t_push, call_tid, call_t0, call_name = ev[_SUB_PUSH], ev[_SUB_TID], ev[_SUB_T0], ev[_SUB_CALL]
    slowed = _observer.slowed.get(t0) if _observer.slowed else None   # (xprof run --slow)
    if len(ev) > SUB_T_READY:   # with its dependency record (pushed by the call's thread)
        t_ready, reads, writes = ev[SUB_T_READY], ev[SUB_READS], ev[SUB_WRITES]
        args = {"dep": deps.dep_args(t0, t_push, t_ready, call_tid, th.tid, reads, writes,
                                     th.vars)}
        if slowed:
            args["slowed_ns"] = slowed
        _dep_slice(th, name, cat, t0, t1, args)
    elif slowed:
        _dep_slice(th, name, cat, t0, t1, {"slowed_ns": slowed})
    else:
        th.extra += (th.key((name, cat)), t0, t1)
    if call_tid is not None and t_push >= call_t0 >= th.base:
        th.flows += 1
        th.add({"name": call_name, "cat": cat, "ph": "s", "id": th.flows,
                "ts": th.us(t_push), "pid": th.pid, "tid": call_tid})
        th.add({"name": call_name, "cat": cat, "ph": "f", "bp": "e", "id": th.flows,
                "ts": th.us(t0), "pid": th.pid, "tid": th.tid})


def _call_span(th, ev):
    """A custom-op call: an async ``b``/``e`` pair (one id per call) from its push to its
    outputs being ready, the split as integer-ns args on ``b`` (``callstats.arg_values``;
    read back by the ``Trace``'s build, ``traces/links.py``; Tail is what the parts leave of
    ``e.ts - b.ts``)."""
    split = records.call_split(ev)
    name, cat = ev[NAME], ev[CAT]
    th.calls += 1
    th.add({"name": name, "cat": cat, "ph": "b", "id": th.calls, "ts": th.us(ev[T]),
            "pid": th.pid, "tid": th.tid, "args": callstats.arg_values(
                *split[1:], th.backlogs.get(ev[_CALL_START]))})
    th.add({"name": name, "cat": cat, "ph": "e", "id": th.calls, "ts": th.us(ev[T] + split[0]),
            "pid": th.pid, "tid": th.tid})


def _slowed_ops(th, ops, var_numbers, slowed, keys, shaped_args):
    """``xprof run --slow`` (runtime/slow.py): the op records of ``ops`` that were made
    slower, written one by one with ``args.slowed_ns`` beside their ``dep``; the rest,
    and their variables, for the bulk writer."""
    mark = np.isin(ops.t0, np.fromiter(slowed, np.int64, len(slowed)))
    if not mark.any():
        return ops, var_numbers
    starts = np.cumsum(ops.counts) - ops.counts
    for j in np.flatnonzero(mark).tolist():
        k = int(ops.key[j])
        name, cat = keys[k][0], keys[k][1]
        t0, t1 = int(ops.t0[j]), int(ops.t1[j])
        pusher = int(ops.pusher[j])
        dep = [int(ops.p[j]), int(ops.q[j]), th.tid if pusher < 0 else pusher,
               *var_numbers[starts[j]:starts[j] + ops.counts[j]].tolist()]
        _dep_slice(th, name, cat, t0, t1, {**(shaped_args.get(k) or {}), "dep": dep,
                                            "slowed_ns": slowed[t0]})
    return ops.select(~mark), var_numbers[np.repeat(~mark, ops.counts)]


def _line_sample(th, ev):
    """Nothing per event: a lines buffer's samples are folded together
    (:mod:`.linefold`); the encoder never hands it one."""


def _counter(th, ev):
    name, cat, t, value = ev[NAME], ev[CAT], ev[T], ev[_COUNTER_VALUE]
    th.add({"name": name, "cat": cat, "ph": "C", "ts": th.us(t), "pid": th.pid,
            "args": {name: value}})


_OWN = {records.SUB_OPERATOR: _sub_operator,   # a slice and a flow arrow from its call
        records.COUNTER: _counter,              # a process-wide series: args {name: value}
        records.OP_DEP: _op_dep,                # a slice with args.dep (numbered variables)
        records.SYNC: _sync,                    # an instant with args.wait, args.waited
        records.CALL_SPAN: _call_span,          # a b/e pair with the call's split
        records.LINE_SAMPLE: _line_sample}      # folded per buffer (linefold.py)
ENCODERS = {code: _OWN.get(code) or _declared(kind) for code, kind in records.KINDS.items()}


def _process_meta(process, pid):
    """Name, labels and place of another process's track group (a DataLoader worker),
    after this process's own."""
    meta = [{"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
             "args": {"name": process.name}},
            {"name": "process_sort_index", "ph": "M", "pid": pid, "tid": 0,
             "args": {"sort_index": pid}}]
    if process.labels:
        meta.append({"name": "process_labels", "ph": "M", "pid": pid, "tid": 0,
                     "args": {"labels": process.labels}})
    return meta


def _encode(snapshot, base_ns, process_name, other_data):
    meta = [{"name": "process_name", "ph": "M", "pid": PID, "tid": 0,
             "args": {"name": process_name}}]
    objs = []
    records_ = []        # per thread, a matrix of slices each beginning with a comma
    flows = calls = 0
    dep_cols, numbers = deps.collect(snapshot, base_ns)   # (gives op records' keys out)
    slowed = _observer.slowed
    # each custom-op call's Backlog: the op that made it ready, from every thread's ops
    backlogs = deps.call_backlogs(
        [ops for ops, _, _ in dep_cols.values()],
        [ev for _, rest, _ in dep_cols.values() for ev in rest
         if ev[0] == records.CALL_SPAN and ev[records.T] >= base_ns])
    keys = R.key_table()
    n_keys = len(keys)   # after the snapshot and its op tables: every key their rows use
    shaped_args = R.shaped_key_args()
    shaped = {k: orjson.dumps(args) for k, args in shaped_args.items()}
    T, encoders = records.T, ENCODERS
    pids = {None: PID}   # this process, then other processes' track groups (1, 2, ...)
    folder = None        # Python-line samples (linefold.py), when there are any
    for buf, n, m in snapshot:
        if n == 0 and m == 0:
            continue
        tid = buf.tid
        pid = pids.get(buf.process)
        if pid is None:
            pid = pids[buf.process] = len(pids)
            meta += _process_meta(buf.process, pid)
        if buf.track:
            meta.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                         "args": {"name": buf.name}})
            meta.append({"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid,
                         "args": {"sort_index": buf.sort_index}})
        th = _Thread(tid, base_ns, objs.append, n_keys, flows, calls, pid, numbers)
        th.backlogs = backlogs
        if buf.sampled is not None:   # a thread's Python-line samples: their own track
            folder = folder or linefold.Folder()
            folder.encode([ev for ev in buf.events[:n] if ev[T] >= base_ns], objs.append,
                          pid, tid, buf.sampled.name, th.us, base_ns)
            continue
        ops, rest, var_numbers = dep_cols[buf] if buf in dep_cols else (None, (), None)
        if slowed and ops is not None and len(ops):   # xprof run --slow's marked ops
            ops, var_numbers = _slowed_ops(th, ops, var_numbers, slowed, keys, shaped_args)
        for ev in rest:   # every record but the op records
            if ev[T] < base_ns:
                continue  # began before this session (an op still running at the last finish)
            encoders[ev[0]](th, ev)
        flows, calls = th.flows, th.calls
        rows = columns.table(buf, m)
        if th.extra:
            rows = np.concatenate((rows, np.array(th.extra, dtype=np.int64).reshape(
                -1, records.SLICE_WIDTH)))
        tail = None
        if ops is not None and len(ops):   # its op records, the last rows (begun after base_ns)
            # attributes go in the args tail, beside dep: such a key's head has no args
            uniq, which = np.unique(ops.key, return_inverse=True)
            heads, opens = [], []
            for k in uniq.tolist():
                args = shaped_args.get(k)
                heads.append(k if args is None else th.key(keys[k]))
                opens.append(_dep_open(args))
            which = which.reshape(-1)
            rows = rows[rows[:, 1] >= base_ns]
            at = np.arange(len(rows), len(rows) + len(ops))
            rows = np.concatenate((rows, np.stack(
                [np.array(heads, dtype=np.int64)[which], ops.t0, ops.t1], axis=1)))
            tail = (at, *_dep_tails(ops, var_numbers, tid, opens, which))
        key, start, dur = columns.split(rows, base_ns)
        if len(key):
            heads = th.heads
            records_.append(_slice_records(
                key, start, dur,
                lambda k: heads[k - n_keys] if k >= n_keys else _head(*keys[k], tid,
                                                                       shaped.get(k), pid=pid),
                tail))
    if folder is not None:
        other_data = dict(other_data, python_lines=dict(
            sampler.sampler.info(), detail_slices=folder.detail,
            detail_dropped=folder.dropped))
    # '[{...},...' : the metadata comes first
    pieces = [b'{"traceEvents":', orjson.dumps(meta + objs)[:-1]]
    pieces += records_    # bytes.join reads the matrices' buffers: no copy
    pieces.append(b'],"displayTimeUnit":"ms","otherData":' + orjson.dumps(other_data) + b"}")
    return b"".join(pieces)
