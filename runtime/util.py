"""``mx.util``: MXNet's global switches for NumPy semantics, kept where MXNet keeps them.

Three switches, as in MXNet 2:

- ``np_shape`` (per thread): NumPy shape semantics for ``mx.nd`` (``()`` and ``0`` are
  real shapes). xprof's arrays always have them inside; the flag only changes what the
  legacy creation functions accept and what code asking ``is_np_shape`` sees.
- ``np_array`` (per thread): the NumPy array interface is the active one. Gluon makes
  its parameters and data as ``mx.np.ndarray`` while it is on (``npx.set_np()``,
  ``@use_np``); ``mx.np`` itself works whether or not it is on, as in MXNet.
- ``np_default_dtype`` (process-wide, as MXNet's flag in its C library): the dtype
  ``mx.np`` creates from Python data and draws random numbers in, float32 by default,
  float64 under ``npx.set_np(dtype=True)`` (:func:`default_float`).

This module is a leaf: ``mx.np`` and Gluon read these flags, the flags know nothing of
them.
"""
import functools
import inspect
import threading
from tempfile import TemporaryDirectory  # noqa: F401 - mx.util.TemporaryDirectory

import numpy as _np

__all__ = ["np_shape", "use_np_shape", "is_np_shape", "set_np_shape", "is_np_array",
           "np_array", "use_np_array", "set_np", "reset_np", "use_np", "is_np_default_dtype",
           "set_np_default_dtype", "np_default_dtype", "use_np_default_dtype",
           "default_float"]


class _State(threading.local):
    np_shape = False
    np_array = False


_state = _State()
_FLOAT32, _FLOAT64 = _np.dtype(_np.float32), _np.dtype(_np.float64)
_default = [_FLOAT32]    # the np default float dtype (process-wide, as in MXNet)


def is_np_shape():
    return _state.np_shape


def set_np_shape(active):
    """Set the flag; returns the previous value (as MXNet does)."""
    previous, _state.np_shape = _state.np_shape, bool(active)
    return previous


def is_np_array():
    """True while the NumPy array interface is active (``npx.set_np()``, ``np_array``)."""
    return _state.np_array


def set_np_array(active):
    previous, _state.np_array = _state.np_array, bool(active)
    return previous


def is_np_default_dtype():
    """True when ``mx.np`` creates float64 by default (``set_np(dtype=True)``)."""
    return _default[0] is _FLOAT64


def set_np_default_dtype(is_np_default_dtype=True):
    """float64 (True) or float32 (False) as ``mx.np``'s default float; returns the
    previous setting."""
    previous = _default[0] is _FLOAT64
    _default[0] = _FLOAT64 if is_np_default_dtype else _FLOAT32
    return previous


def default_float():
    """The dtype ``mx.np`` gives arrays made from Python floats and random draws."""
    return _default[0]


class _Scope:
    """``with`` one switch set, the previous value restored after."""

    def __init__(self, setter, active):
        self._set, self._enter, self._previous = setter, bool(active), None

    def __enter__(self):
        self._previous = self._set(self._enter)
        return self

    def __exit__(self, *exc):
        self._set(self._previous)


class _NumpyShapeScope(_Scope):
    """MXNet's name of the ``np_shape`` scope."""

    def __init__(self, is_np_shape=True):
        super().__init__(set_np_shape, is_np_shape)
        self._is_np_shape = bool(is_np_shape)


class _NumpyArrayScope(_Scope):
    """MXNet's name of the ``np_array`` scope (``_is_np_array``; ``_current`` is kept
    for code that assigns it, the switch itself is per thread)."""

    _current = None

    def __init__(self, is_np_array=True):
        super().__init__(set_np_array, is_np_array)
        self._is_np_array = bool(is_np_array)


def np_shape(active=True):
    """``with mx.np_shape(True):`` -- NumPy shape semantics inside the block."""
    return _NumpyShapeScope(active)


def np_array(active=True):
    """``with mx.util.np_array(True):`` -- the NumPy array interface inside the block."""
    return _NumpyArrayScope(active)


def np_default_dtype(active=True):
    return _Scope(set_np_default_dtype, active)


def _decorator(scope, name):
    def decorate(func):
        """Run ``func`` (or every method of a class, its constructor included) inside
        the scope."""
        if isinstance(func, type):
            # its own and inherited functions, as MXNet's (inspect.getmembers): a
            # block's inherited __call__ then checks its outputs under the scope
            for attr in dir(func):
                member = inspect.getattr_static(func, attr)
                if inspect.isfunction(member) and (not attr.startswith("__") or attr in (
                        "__init__", "__call__", "__getitem__", "__setitem__")):
                    setattr(func, attr, decorate(member))
            return func
        if not callable(func):
            raise TypeError(f"{name}: {func!r} is not a function or a class")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with scope(True):
                return func(*args, **kwargs)
        return wrapper
    decorate.__name__ = name
    return decorate


use_np_shape = _decorator(np_shape, "use_np_shape")
use_np_array = _decorator(np_array, "use_np_array")
use_np_default_dtype = _decorator(np_default_dtype, "use_np_default_dtype")


def use_np(func):
    """MXNet's ``@use_np``: NumPy shape and array semantics inside ``func`` (a function
    or a class such as a HybridBlock, whose methods then run with them)."""
    return use_np_shape(use_np_array(func))


def set_np(shape=True, array=True, dtype=False):
    """``npx.set_np()``: turn the NumPy semantics on for this thread (``dtype=True``:
    float64 as the default float, process-wide). As in MXNet, NumPy arrays need NumPy
    shapes."""
    if not shape and array:
        raise ValueError("set_np(shape=False, array=True): NumPy arrays need NumPy shape "
                         "semantics; pass shape=True")
    set_np_shape(shape)
    set_np_array(array)
    set_np_default_dtype(dtype)


def reset_np():
    """Back to MXNet 1.x's semantics: ``set_np(False, False, False)``."""
    set_np_shape(False)
    set_np_array(False)
    set_np_default_dtype(False)
