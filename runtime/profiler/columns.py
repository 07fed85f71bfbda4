"""Recorded complete slices as numpy columns: what the trace encoder and ``dumps()`` share.

A buffer's ``slices`` (a flat list ``key, t0, t1, ...``, see :mod:`.recorder`) becomes
an int64 table in one ``np.fromiter`` call. Grouping by key with a stable sort gives
per-name statistics (``reduceat``), and the encoder writes the decimal digits of whole
columns into a byte matrix: no Python work per event, which is what made dumping cost
about a microsecond per event before.
"""
import contextlib
import gc

import numpy as np

_EMPTY = np.zeros(0, dtype=np.int64)
NO_ROWS = np.zeros((0, 3), dtype=np.int64)
_POW10 = 10 ** np.arange(19, dtype=np.int64)          # 1, 10, ..., 10**18
_POW10_INTS = _POW10.tolist()


@contextlib.contextmanager
def gc_paused():
    """The cyclic garbage collector paused for a dump's work (the trace, ``dumps()``):
    the objects made there are acyclic, and a collection pass over many of them (or
    over the recorded tuples) costs more than the work itself."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def table(buf, m):
    """``buf.slices[:m]`` as an int64 array of rows ``(key, t0, t1)``.

    Converting Python integers is most of the cost of reading slices (~40 ns each), and
    ``dumps()``, ``dump()`` and each continuous dump read the same prefix again, so the
    conversion is kept on the buffer (``buf.converted``; ``recorder.clear`` drops it) and
    only the slices recorded since are converted."""
    done = buf.converted
    if done is None or len(done) * 3 > m:
        done = NO_ROWS
    if len(done) * 3 < m:
        new = np.fromiter(buf.slices[len(done) * 3:m], dtype=np.int64,
                          count=m - len(done) * 3).reshape(-1, 3)
        done = np.concatenate((done, new)) if len(done) else new
        buf.converted = done
    return done[:m // 3]


def split(rows, base_ns):
    """``(key, start, duration)`` columns of ``(key, t0, t1)`` rows, without the slices
    that began before ``base_ns`` (an op still running when an earlier session ended);
    ``start`` is relative to ``base_ns``."""
    start = rows[:, 1] - base_ns
    if len(start) and start.min() < 0:
        keep = start >= 0
        rows, start = rows[keep], start[keep]
    return rows[:, 0], start, rows[:, 2] - rows[:, 1]


def runs(group):
    """``(order, values, starts, ends)``: ``group[order]`` is sorted (stably, so each run
    keeps its recorded order) and ``order[starts[i]:ends[i]]`` are the positions whose
    group is ``values[i]``."""
    order = np.argsort(group, kind="stable")
    g = group[order]
    if not len(g):
        return order, g, _EMPTY, _EMPTY
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    ends = np.r_[starts[1:], len(g)]
    return order, g[starts], starts, ends


def summarize(key, dur):
    """``[(key, count, total, min, max)]`` of the durations per key, as Python ints
    (integer nanoseconds: sums are exact whatever the order)."""
    order, values, starts, ends = runs(key)
    if not len(values):
        return []
    d = dur[order]
    return list(zip(values.tolist(), (ends - starts).tolist(),
                    np.add.reduceat(d, starts).tolist(),
                    np.minimum.reduceat(d, starts).tolist(),
                    np.maximum.reduceat(d, starts).tolist()))


def ndigits(v):
    """Number of decimal digits of each value of a non-negative int64 array."""
    v = np.asarray(v)
    d = np.ones(v.shape, dtype=np.intp)
    top = int(v.max()) if v.size else 0
    for p in _POW10_INTS[1:]:   # one vectorized compare per digit of the largest value
        if p > top:
            break
        d += v >= p
    return d


def write_digits(dst, v, nd=None, fill=32):
    """Write the non-negative values ``v`` as ASCII decimal into the uint8 matrix
    ``dst``, right-aligned after ``fill`` bytes (``dst.shape[1]`` must hold the
    longest; ``nd``: the values' :func:`ndigits`, if known).

    Digits are peeled off nine at a time in uint32 (numpy divides unsigned 32-bit
    integers by a scalar with SIMD; 64-bit division is several times slower), each
    written straight into its column of ``dst`` (a column is one strided pass; a
    digit-major matrix copied in transposed costs a loop per row of ``dst``). A value's
    leading positions hold ``'0'`` until they are turned into ``fill``."""
    width = dst.shape[1]
    pad = width - (ndigits(v) if nd is None else nd)
    row = width - 1
    while row >= 0:
        if row >= 9:
            v, chunk = np.divmod(v, 1_000_000_000)
            n = 9
        else:
            chunk, n = v, row + 1
        q = chunk.astype(np.uint32)
        for _ in range(n):
            nq = q // 10
            q -= nq * 10
            q += 48
            dst[:, row] = q
            q = nq
            row -= 1
    for row in range(int(pad.max()) if len(pad) else 0):   # leading '0's -> fill
        dst[:, row] -= (pad > row).astype(np.uint8) * np.uint8(48 - fill)


def layout_key(cols):
    """Small integers 0, 1, ..., one per row, equal for two rows exactly when every
    column of ``cols`` (integer arrays of one length) is: the columns combined as digits
    in a mixed radix (renumbered whenever the product of their ranges would not fit),
    then renumbered densely (:func:`_renumbered`)."""
    key, bound = None, 1
    for c in cols:
        c = np.asarray(c, dtype=np.int64)
        lo = int(c.min()) if len(c) else 0
        base = int(c.max()) - lo + 1 if len(c) else 1
        if key is None:
            key, bound = c - lo, base
            continue
        if bound * base >= 1 << 62:
            key, bound = _renumbered(key, bound)
        key = key * base + (c - lo)
        bound *= base
    return _renumbered(key, bound)[0]


def _renumbered(key, bound):
    """``(key's values numbered 0, 1, ... in order, how many)`` for non-negative
    ``key`` below ``bound``: by a table of ``bound`` entries when that is small beside
    ``key`` (no sort), else ``np.unique``."""
    if bound <= 16 * len(key) + 4096:
        seen = np.zeros(bound, dtype=np.int64)
        seen[key] = 1
        ranks = np.cumsum(seen) - 1
        return ranks[key], int(ranks[-1]) + 1 if bound else 0
    uniq, inverse = np.unique(key, return_inverse=True)
    return inverse.reshape(-1), len(uniq)


def drop_nul(mat, layout):
    """The bytes of the uint8 matrix ``mat`` without its NUL bytes, row after row
    (``flat[flat != 0]``), as a uint8 array; ``layout`` (one integer per row, e.g.
    :func:`layout_key`) must be equal for rows that hold NUL bytes in the same places.

    Why not the mask: numpy's boolean indexing reads the mask byte by byte, ~7
    instructions per byte of the matrix whatever the padding (half of a dump's cost
    with dependency records). Here the rows of one layout are moved together: their
    content columns (read off one of them) joined by one ``concatenate``, each row then
    copied whole to its place in the result through a view of the result whose row j
    starts at byte j (~1 instruction per byte). Each layout costs a few numpy calls, so
    with many layouts for few rows the mask is used."""
    n, width = mat.shape
    flat = mat.reshape(-1)
    if n and layout.max() < 1 << 15:   # numpy's stable sort of 16-bit ints is a radix sort
        layout = layout.astype(np.int16)
    order = np.argsort(layout, kind="stable")
    ordered = layout[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if n else _EMPTY
    if not n or len(starts) * 128 > n:
        return flat[flat != 0]
    bounds = np.r_[starts, n]
    rows = np.take(mat, order, axis=0)     # grouped by layout, in time order within
    runs_of, lengths = [], []
    for s in starts.tolist():   # the content runs of the group's first row
        edges = np.flatnonzero(np.diff(np.r_[0, rows[s] != 0, 0])).tolist()
        runs_of.append(list(zip(edges[::2], edges[1::2])))
        lengths.append(sum(b - a for a, b in runs_of[-1]))
    row_length = np.empty(n, dtype=np.int64)
    row_length[order] = np.repeat(lengths, np.diff(bounds))
    at = (np.cumsum(row_length) - row_length)[order]   # where each grouped row goes
    total = int(row_length.sum())
    out = np.empty(total, dtype=np.uint8)
    for g, runs in enumerate(runs_of):
        s, e, length = bounds[g], bounds[g + 1], lengths[g]
        if not length:
            continue
        block = rows[s:e]
        dense = np.concatenate([block[:, a:b] for a, b in runs], axis=1)
        np.ndarray((total - length + 1, length), np.uint8, out, 0, (1, 1))[at[s:e]] = dense
    return out

