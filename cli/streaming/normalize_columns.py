"""Column helpers of ``xprof trace``'s normalizer (:mod:`.normalize`): array-module
columns as numpy views, grouping positions by key, the JSON heads of output events, the
distinct codes in first-seen order."""
import numpy as np


def _np(a):
    """An array module array as a numpy view (no copy)."""
    dtype = {"d": np.float64, "q": np.int64, "i": np.int32}[a.typecode]
    return np.frombuffer(a, dtype) if len(a) else np.zeros(0, dtype)


def _group(positions, keys):
    """``{key: positions with that key}`` (positions stay in order)."""
    if not len(positions):
        return {}
    order = np.argsort(keys, kind="stable")
    k, p = keys[order], positions[order]
    cuts = np.flatnonzero(np.diff(k)) + 1
    return {int(g[0]): q for g, q in zip(np.split(k, cuts), np.split(p, cuts))}


def _heads(pids, tids, ids):
    """``,\\n{"pid":P,"tid":T,"id":I,`` for each event (no tid or id where they are -1):
    one string per distinct (pid, tid) of the chunk, the ids added where there are any."""
    key = pids.astype(np.int64) << 32 | (tids + 1).astype(np.int64)
    uniq, inverse = np.unique(key, return_inverse=True)
    table = np.array([b',\n{"pid":%d,"tid":%d,' % (k >> 32, (k & 0xFFFFFFFF) - 1) if k & 0xFFFFFFFF
                      else b',\n{"pid":%d,' % (k >> 32) for k in uniq.tolist()], object)
    heads = table[inverse.reshape(-1)]
    with_id = np.flatnonzero(ids >= 0)
    if len(with_id):
        heads[with_id] += np.array([b'"id":%d,' % i for i in ids[with_id].tolist()], object)
    return heads.tolist()


def _unique_in_order(codes):
    if not len(codes):
        return []
    uniq, first = np.unique(codes, return_index=True)
    return uniq[np.argsort(first, kind="stable")].tolist()
