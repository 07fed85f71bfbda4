"""``mx.numpy_dispatch_protocol``: which official NumPy functions and ufuncs, called on
``mx.np`` arrays, run ``mx.np``'s (NEP 18's ``__array_function__`` and NEP 13's
``__array_ufunc__``; the protocol itself is ``numpy/_interop.py``)."""
__all__ = ["with_array_function_protocol", "with_array_ufunc_protocol",
           "_NUMPY_ARRAY_FUNCTION_LIST", "_NUMPY_ARRAY_UFUNC_LIST"]


def with_array_function_protocol(func):
    """A test needing NEP 18 (always on since NumPy 1.17)."""
    return func


def with_array_ufunc_protocol(func):
    return func


def _lists():
    from .numpy import _interop
    return _interop.function_names(), _interop.ufunc_names()


def __getattr__(name):
    if name in ("_NUMPY_ARRAY_FUNCTION_LIST", "_NUMPY_ARRAY_UFUNC_LIST"):
        functions, ufuncs = _lists()
        globals().update(_NUMPY_ARRAY_FUNCTION_LIST=functions, _NUMPY_ARRAY_UFUNC_LIST=ufuncs)
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
