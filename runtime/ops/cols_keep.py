"""The im2col columns of a convolution's forward, kept for its backward.

The weight gradient needs the same columns as the forward; building them again costs
one strided copy of prod(kernel) times the input (0.2-0.3 ms for each convolution of the
CNN of ``benchmarks/bench_cnn_kernels.py``). So the forward builds its columns in a new
array (not a workspace buffer) and leaves it here under (the data array, the geometry);
the backward of the same data takes it out, or builds the columns itself when they are
gone. Sound because kernels never modify their inputs and the NDArray layer replaces an
array's numpy data instead of writing into it: the same live numpy object holds the same
values. An entry lives until the backward takes it, until its data array is freed (a
weak reference), or until newer entries push the total past ``limit`` bytes (inference:
no backward ever takes them). Entries are shared by the engine's worker threads: the
forward and the backward of one convolution may run on different ones.
"""
import threading
import weakref
from collections import OrderedDict

__all__ = ["keep", "take", "clear"]

limit = 64 << 20

# reentrant: a weak reference's callback (_drop) may run in this very thread while it
# holds the lock, when a collection inside keep() frees a data array
_lock = threading.RLock()
_kept = OrderedDict()      # (id(data), key) -> (weak reference to data, columns)
_nbytes = [0]


def _drop(slot):
    with _lock:
        entry = _kept.pop(slot, None)
        if entry is not None:
            _nbytes[0] -= entry[1].nbytes


def keep(data, key, cols):
    """Leave ``cols`` (a new array nobody else holds) for the backward on ``data``."""
    if cols.nbytes > limit:
        return
    slot = (id(data), key)
    try:
        ref = weakref.ref(data, lambda _r, slot=slot: _drop(slot))
    except TypeError:          # not weak-referenceable: nothing kept
        return
    with _lock:
        old = _kept.pop(slot, None)
        if old is not None:
            _nbytes[0] -= old[1].nbytes
        while _kept and _nbytes[0] + cols.nbytes > limit:
            _, (_, evicted) = _kept.popitem(last=False)
            _nbytes[0] -= evicted.nbytes
        _kept[slot] = (ref, cols)
        _nbytes[0] += cols.nbytes


def take(data, key):
    """The columns kept for ``data`` and ``key`` (removed from here), or None."""
    slot = (id(data), key)
    with _lock:
        entry = _kept.pop(slot, None)
        if entry is None:
            return None
        _nbytes[0] -= entry[1].nbytes
    ref, cols = entry
    return cols if ref() is data else None


def clear():
    with _lock:
        _kept.clear()
        _nbytes[0] = 0
