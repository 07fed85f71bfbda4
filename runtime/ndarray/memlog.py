"""A memory-profiled array's records: its allocation, logged as it is made, and its
release, logged when it is freed (:mod:`..profiler.memory` folds the log into the memory
counters at dump).

:func:`allocated` ``(device, nbytes)`` logs ``(device, nbytes, t_ns)`` and returns the
array's release object, held in its ``_released`` slot: freed with the array, it logs
``(device, -nbytes, -1)``. The array keeps its own class (``type(x) is NDArray``
whether or not memory is profiled: a profiler must not be observable by the program),
and arrays made while memory is not profiled carry no release at all. Both halves are C
(``profiler/_memrecord.c``: no Python frame at an allocation or a free, ~1% of a small
custom-op step's instructions less) where it was built; :class:`Release` and
:func:`_allocated` otherwise, making the same records.
"""
import math
from time import perf_counter_ns

from ..profiler.observer import observer as _observer

_mem_log = _observer.mem_log   # memory.log.extend (list.extend of a tuple: atomic, no lock)
# shape -> element count: a dict hit costs a tenth of math.prod (~1,100 instructions
# under callgrind); a program has few distinct shapes
_sizes = {}
_new = object.__new__


def nbytes(shape, dtype):
    """The bytes of an array of ``shape`` and ``dtype`` (keeping the shape's element
    count for the next one)."""
    try:
        return _sizes[shape] * dtype.itemsize
    except (KeyError, TypeError):   # (first of its shape, or a list)
        n = math.prod(shape)
        if len(_sizes) < 4096 and type(shape) is tuple:
            _sizes[shape] = n
        return n * dtype.itemsize


class Release:
    """A memory-profiled array's release (Python fallback of ``_memrecord.Release``):
    its finalizer logs ``entry``."""

    __slots__ = ("entry",)

    def __init__(self, entry):
        self.entry = entry

    def __del__(self, _log=_mem_log):
        try:
            _log(self.entry)   # built at allocation: a finalizer runs on every free
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


def _allocated(dev, n):
    rel = _new(Release)   # (Release(entry) without its __init__'s Python frame)
    rel.entry = (dev, -n, -1)
    _mem_log((dev, n, perf_counter_ns()))
    return rel


try:
    from ..profiler._memrecord import MemLog as _MemLog
except ImportError:   # not built (no C compiler at install)
    NATIVE = False
    allocated = _allocated
else:
    NATIVE = True
    allocated = _MemLog(_mem_log).allocated
