"""The collectives' result buffers, reused once nothing holds them any more.

Why: a fresh numpy array of 64 MB is fresh memory (glibc maps allocations that large
anew each time), and the first write to each of its pages faults and has the kernel zero
it. An allreduce writing its sum into such a buffer pays that on every call: a large
part of its time, which ``MPI_Allreduce`` into a buffer used before does not pay.
MXNet keeps a pool of freed storage for the same reason (``PooledStorageManager``).

Which buffer is free: kernels never write into an array's buffer (each result is a new
one, and arrays share buffers freely: a pull shares the stored value's), so a buffer
may be written again only when no array, view or pending op holds it. CPython's
reference count says exactly that: a buffer referenced by nothing but the pool is
unreachable from anywhere else. Each key keeps at most :data:`PER_KEY` buffers (two:
the sum being written, and the one the previous step's arrays still hold).
"""
import sys

import numpy as np

__all__ = ["BufferPool"]

PER_KEY = 2
_POOL_ONLY = 3   # references of a free buffer in take(): the list, `buf`, getrefcount's


class BufferPool:
    """``take(key, n, dtype)``: a 1-d buffer of ``n`` elements that nothing else holds.
    Used from one thread (the comm thread)."""

    def __init__(self, per_key=PER_KEY):
        self._per_key = per_key
        self._buffers = {}   # (key, n, dtype) -> [arrays]

    def take(self, key, n, dtype):
        buffers = self._buffers.setdefault((key, n, np.dtype(dtype)), [])
        for buf in buffers:
            if sys.getrefcount(buf) <= _POOL_ONLY:
                return buf
        buf = np.empty(n, dtype)
        if len(buffers) < self._per_key:
            buffers.append(buf)
        return buf
