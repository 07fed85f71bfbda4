"""Releasing an array's values while the array lives on: an executor's arrays between
its passes (``symbol/memory.py``). Each function runs as an engine op that writes the
array, so the engine starts it once every op pushed before it that reads the array is
done: MXNet's engine frees memory the same way (``DeleteVariable`` after the last
reader). A memory-profiled array's release is logged then, its allocation again when
the next pass is pushed (:func:`retake`)."""
import numpy as np

from ..profiler.observer import flags as _flags
from .memlog import allocated as _allocated, nbytes as _nbytes

__all__ = ["drop_data", "drop_values", "retake"]


def drop_data(a):
    """Engine function: the array's values go (its release logs it: :mod:`.memlog`)."""
    a._data = None
    a._released = None


def drop_values(a):
    """Engine function: like :func:`drop_data`, keeping a placeholder of the array's
    shape and dtype that takes no memory (a zero broadcast), for the gradient ops that
    read only those of it (``OpDef.grad_reads``)."""
    a._data = np.broadcast_to(np.zeros((), a._dtype), a.shape)
    a._released = None


def retake(arrays):
    """Log the allocation of arrays whose values were dropped (:func:`drop_data`) as
    the pass that rewrites them is pushed (while memory is profiled)."""
    if not _flags.mem:
        return
    for a in arrays:
        if a._released is None:
            a._released = _allocated(a.context.dev_num, _nbytes(a.shape, a._dtype))
