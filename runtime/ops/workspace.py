"""Per-thread scratch arrays for the convolution kernels (:mod:`.conv`,
:mod:`.conv_samples`, :mod:`.deconvolution`), and the rule that results never alias them."""
import threading
from collections import OrderedDict

import numpy as np

from .params import _size


class _Workspace(threading.local):
    """Per-thread scratch arrays reused across calls, like MXNet's conv workspace.

    A 64x1x28x28 CNN step allocates ~50 MB of im2col temporaries. Fresh allocations of
    that size come from mmap and page-fault on first touch: the benchmark's step went
    from ~37 to ~22 ms when such memory was not handed back to the OS. Buffers are keyed
    by (role, shape, dtype), least recently used evicted past ``limit`` bytes per thread
    (a larger buffer is not kept). Only temporaries live here: whatever a kernel returns
    is a fresh array (see ``_fresh``), so nothing returned aliases a scratch buffer.
    """

    limit = 64 << 20

    def __init__(self):
        self.buffers = OrderedDict()
        self.nbytes = 0

    def get(self, role, shape, dtype):
        key = (role, shape, dtype)
        buf = self.buffers.pop(key, None)
        if buf is None:
            nbytes = _size(shape) * dtype.itemsize
            if nbytes > self.limit:            # too big to keep: a one-off allocation
                return np.empty(shape, dtype)
            while self.buffers and self.nbytes + nbytes > self.limit:
                _, old = self.buffers.popitem(last=False)
                self.nbytes -= old.nbytes
            buf = np.empty(shape, dtype)
            self.nbytes += buf.nbytes
        self.buffers[key] = buf
        return buf


_workspace = _Workspace()


def _scratch(role, shape, dtype):
    """A scratch array of this thread for ``role`` (contents undefined)."""
    return _workspace.get(role, tuple(shape), np.dtype(dtype))


def _fresh(view):
    """A new C-contiguous array with the values of ``view`` (never ``view``'s memory)."""
    out = np.empty(view.shape, view.dtype)
    np.copyto(out, view)
    return out


def _into_scratch(role, view, spatial_axes=(), pad=()):
    """``view`` copied into a scratch array, zero-padded by ``pad`` along ``spatial_axes``."""
    if not any(pad):
        buf = _scratch(role, view.shape, view.dtype)
        np.copyto(buf, view)
        return buf
    shape = list(view.shape)
    inner = [slice(None)] * view.ndim
    for ax, p in zip(spatial_axes, pad):
        inner[ax] = slice(p, p + shape[ax])
        shape[ax] += 2 * p
    buf = _scratch(role, shape, view.dtype)
    buf.fill(0)
    buf[tuple(inner)] = view
    return buf
