"""``mx.base``: MXNet's error type and the small helpers MXNet users import from here.

Every error xprof raises for bad input or from a failed operator can be caught as
``mx.base.MXNetError`` (as in MXNet) and, as before, as its Python type (``ValueError``,
``TypeError``, ...): :func:`as_mxnet_error` turns an exception into an instance of a
class deriving from both, made once per Python type.
"""
import numbers

import numpy as np

__all__ = ["MXNetError", "NotImplementedForSymbol", "as_mxnet_error", "integer_types",
           "numeric_types", "string_types", "py_str", "mx_real_t"]

mx_real_t = np.float32      # MXNet's default real type

integer_types = (int, np.integer)
numeric_types = (float, int, np.generic)
string_types = (str,)


def py_str(x):
    """``bytes`` decoded as UTF-8 (MXNet's C API returns bytes)."""
    return x.decode("utf-8") if isinstance(x, bytes) else str(x)


class MXNetError(RuntimeError):
    """The error MXNet functions raise; a base of every error class xprof raises."""


class NotImplementedForSymbol(MXNetError):
    """A function that exists for NDArray but not for Symbol."""

    def __init__(self, function, alias=None, *args):
        super().__init__()
        self.function = getattr(function, "__name__", str(function))
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self):
        alias = f' (namely operator "{self.alias}")' if self.alias else ""
        return f"Function {self.function}{alias} is not implemented for Symbol"


_DERIVED = {}


def mxnet_error_type(cls):
    """The class deriving from both ``cls`` and :class:`MXNetError` (made once)."""
    if issubclass(cls, MXNetError):
        return cls
    derived = _DERIVED.get(cls)
    if derived is None:
        try:
            derived = type(cls.__name__, (cls, MXNetError),
                           {"__module__": cls.__module__, "__doc__": cls.__doc__})
        except TypeError:          # a type that cannot be subclassed: keep it as it is
            derived = cls
        _DERIVED[cls] = derived
    return derived


def as_mxnet_error(exc):
    """``exc`` as an instance of a class deriving from its type and MXNetError.

    The message, traceback, cause and context are kept; an exception that already is an
    MXNetError (or whose type cannot be derived from) is returned unchanged.
    """
    if isinstance(exc, MXNetError) or not isinstance(exc, Exception):
        return exc
    cls = mxnet_error_type(type(exc))
    if cls is type(exc):
        return exc
    try:
        new = cls.__new__(cls, *exc.args)
        new.__init__(*exc.args)
        new.__dict__.update(getattr(exc, "__dict__", {}))
    except Exception:  # noqa: BLE001 - an exception type with an unusual constructor
        return exc
    new.__traceback__ = exc.__traceback__
    new.__cause__ = exc.__cause__
    new.__context__ = exc.__context__
    new.__suppress_context__ = exc.__suppress_context__
    return new


def _as_list(obj):
    """``obj`` if it is a list or tuple, else ``[obj]``."""
    return obj if isinstance(obj, (list, tuple)) else [obj]


def _is_number(x):
    return isinstance(x, numbers.Number)
