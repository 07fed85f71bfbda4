"""The engine's dependency rule, replayed over recorded ops: which op made each one ready.

The engine knows variables, not edges; its rule is MXNet's: in push order, a read waits
for the last earlier write of the variable, and a write waits for that write and for
every read since it. Replaying the rule over the records' variables gives each op its
predecessors, and the *binding* one, the predecessor that completed last (its completion
made the op ready). Shared by the runtime, which names at dump time the op a custom-op
call's inputs waited for (``profiler/deps.py``: a call's Backlog and Producer), and the
readers' dependency graph (``xprof.mxcli.analysis.depgraph``: the critical path).
Vectorized: a million ops in well under a second.
"""
from __future__ import annotations

import numpy as np


def occurrences(values, starts, order, push):
    """(var, is_write, record, push time) of every variable use, sorted by variable,
    then push order of the record. ``values``/``starts``: the records' variables as CSR
    (record i's are ``values[starts[i]:starts[i + 1]]``, > 0 read, < 0 written);
    ``order``: the records in push order; ``push``: their push times."""
    counts = np.diff(starts)
    rec = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    var = np.abs(values)
    srt = np.lexsort((rank[rec], var))
    return var[srt], values[srt] < 0, rec[srt], push[rec[srt]]


def binding(occ, done, ready):
    """The binding predecessor of every record: of the ops its variables made it wait
    for, the one completing last; -1 if it waited for none. ``occ``:
    :func:`occurrences`; ``done``: each record's completion (its end, or a custom
    call's outputs being ready); ``ready``: when its last dependency was released."""
    var, write, rec, _ = occ
    n = len(var)
    pred = np.full(len(done), -1, dtype=np.int64)
    if not n:
        return pred
    pos = np.arange(n)
    first = np.r_[True, var[1:] != var[:-1]]
    group_start = np.maximum.accumulate(np.where(first, pos, 0))
    last_w = np.maximum.accumulate(np.where(write, pos, -1))
    prev_w = np.r_[-1, last_w[:-1]]
    prev_w = np.where(prev_w >= group_start, prev_w, -1)     # last write before, same var
    cand_rec, cand_pred = [], []
    has = prev_w >= 0
    cand_rec.append(rec[has])                                # RAW and WAW
    cand_pred.append(rec[prev_w[has]])
    # WAR: a write waits for the reads since the previous write (a run of reads)
    is_read = ~write
    run_break = first | write
    run_id = np.cumsum(run_break)                            # reads after a break share it
    reads = np.flatnonzero(is_read)
    if len(reads):
        read_done = done[rec[reads]]
        o = np.lexsort((read_done, run_id[reads]))
        rr = reads[o]
        rid = run_id[rr]
        last = np.r_[rid[1:] != rid[:-1], True]
        best_of_run = np.full(int(run_id[-1]) + 1, -1, dtype=np.int64)
        best_of_run[rid[last]] = rec[rr[last]]
        w = np.flatnonzero(write & ~first)
        w = w[is_read[w - 1]]                                # a read run right before it
        if len(w):
            runs = run_id[w - 1]
            cand_rec.append(rec[w])
            cand_pred.append(best_of_run[runs])
    cr = np.concatenate(cand_rec)
    cp = np.concatenate(cand_pred)
    # a predecessor completes before its successor is ready; one that does not (clock
    # skew, an inconsistent trace) cannot be what made it ready
    keep = (cr != cp) & (done[cp] <= ready[cr])
    cr, cp = cr[keep], cp[keep]
    if not len(cr):
        return pred
    o = np.lexsort((done[cp], cr))
    cr, cp = cr[o], cp[o]
    last = np.r_[cr[1:] != cr[:-1], True]
    pred[cr[last]] = cp[last]
    return pred
