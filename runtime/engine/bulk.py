"""``mx.engine.set_bulk_size`` / ``mx.engine.bulk``: MXNet's limit on how many imperative
operators the engine may bundle into one engine op.

xprof does not bundle imperative operators: each call is its own engine op and its own
profile event (bulk segments exist for bound graphs, see ``symbol/executor.py`` and
``MXNET_EXEC_BULK_EXEC_*``). The size is kept per thread and returned as MXNet returns it,
so code that sets and restores it runs unchanged and sees the value it set.
"""
import threading

__all__ = ["set_bulk_size", "bulk"]


class _State(threading.local):
    size = 0      # MXNet's default outside ``bulk``: no imperative bulking


_state = _State()


def _checked(size, what):
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ValueError(f"{what}: size={size!r} must be a non-negative integer")
    return size


def set_bulk_size(size):
    """Set the calling thread's imperative bulk size; return the previous one."""
    previous, _state.size = _state.size, _checked(size, "set_bulk_size")
    return previous


class _BulkScope:
    def __init__(self, size):
        self._size = size
        self._previous = None

    def __enter__(self):
        self._previous = set_bulk_size(self._size)
        return self

    def __exit__(self, *exc):
        set_bulk_size(self._previous)
        return False


def bulk(size):
    """``with mx.engine.bulk(10):`` -- the bulk size inside the block (see the module)."""
    return _BulkScope(_checked(size, "bulk"))
