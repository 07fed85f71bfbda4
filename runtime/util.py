"""``mx.util``: MXNet's global switches for NumPy semantics (``np_shape``, ``np_array``).

xprof's arrays always have NumPy shape semantics (zero-size dimensions and 0-d arrays
are ordinary shapes), so ``np_shape`` only records the flag for code that asks
(``is_np_shape``). The NumPy-compatible array interface (``mx.np``, ``np_array``) is
MXNet 2's and is not part of xprof: ``is_np_array()`` is always False and turning it on
raises ``NotImplementedError``.
"""
import functools
import threading

__all__ = ["np_shape", "use_np_shape", "is_np_shape", "set_np_shape", "is_np_array",
           "np_array", "use_np_array", "set_np", "reset_np"]


class _State(threading.local):
    np_shape = False


_state = _State()


def is_np_shape():
    return _state.np_shape


def set_np_shape(active):
    """Set the flag; returns the previous value (as MXNet does)."""
    previous, _state.np_shape = _state.np_shape, bool(active)
    return previous


class _NumpyShapeScope:
    def __init__(self, is_np_shape=True):
        self._enter = bool(is_np_shape)
        self._previous = None

    def __enter__(self):
        self._previous = set_np_shape(self._enter)
        return self

    def __exit__(self, *exc):
        set_np_shape(self._previous)


def np_shape(active=True):
    """``with mx.np_shape(True):`` -- NumPy shape semantics inside the block."""
    return _NumpyShapeScope(active)


def use_np_shape(func):
    """Run ``func`` (or every method of a class) inside ``np_shape(True)``."""
    if isinstance(func, type):
        for name, member in list(vars(func).items()):
            if callable(member) and not name.startswith("__"):
                setattr(func, name, use_np_shape(member))
        return func

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with np_shape(True):
            return func(*args, **kwargs)
    return wrapper


def is_np_array():
    return False


def _no_np_array():
    raise NotImplementedError("the NumPy-compatible array interface (mx.np, np_array) "
                              "is MXNet 2's and is not supported by xprof; use mx.nd")


class _NumpyArrayScope:
    def __init__(self, is_np_array=True):
        if is_np_array:
            _no_np_array()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


def np_array(active=True):
    return _NumpyArrayScope(active)


def use_np_array(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        _no_np_array()
    return wrapper


def set_np(shape=True, array=True):
    if array:
        _no_np_array()
    set_np_shape(shape)


def reset_np():
    set_np_shape(False)
