"""Column helpers of the read model (:mod:`.model`): dtypes, id tables, CSR lists.

Why apart: they are how the :class:`~.model.Trace`'s columns are stored, not what they
hold; the model module keeps the rules of building it.
"""
from __future__ import annotations

from array import array

import numpy as np

I32 = next(code for code in "ilh" if array(code).itemsize == 4)   # a 4-byte C int
_CSR_BLOCK = 1 << 16   # records gathered at a time by csr


def ordinal_type(top, bottom=0):
    """The dtype of ordinals within [bottom, top]: int32 while they fit (4 bytes a slice
    fewer), else int64 (an array.array column of 4-byte ordinals becomes 8-byte)."""
    return np.int32 if -2 ** 31 < bottom and top < 2 ** 31 - 1 else np.int64


def table(index):
    """The keys of a ``{key: id}`` index (ids 0..n-1) as a list by id."""
    out = [None] * len(index)
    for k, v in index.items():
        out[v] = k
    return out


def csr(counts, flat, order):
    """(values, starts) of variable lists reordered by ``order``, gathered a block of
    records at a time (the gather's index arrays stay small)."""
    counts = np.asarray(counts, dtype=np.int64)
    flat = np.asarray(flat, dtype=np.int64)
    starts = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    c = counts[order]
    new_starts = np.zeros(len(c) + 1, dtype=np.int64)
    np.cumsum(c, out=new_starts[1:])
    if not len(flat):
        return flat, new_starts
    out = np.empty(int(new_starts[-1]), dtype=np.int64)
    for b0 in range(0, len(c), _CSR_BLOCK):
        b1 = min(b0 + _CSR_BLOCK, len(c))
        lo, hi = int(new_starts[b0]), int(new_starts[b1])
        if hi > lo:   # each record's run of values, in the new order
            src = np.repeat(starts[:-1][order[b0:b1]] - new_starts[b0:b1], c[b0:b1])
            src += np.arange(lo, hi)
            out[lo:hi] = flat[src]
    return out, new_starts

