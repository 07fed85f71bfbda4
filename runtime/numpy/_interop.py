"""Official NumPy's functions on ``mx.np`` arrays (NEP 18 ``__array_function__``, NEP 13
``__array_ufunc__``): ``numpy.sum(x)`` on an np array runs ``mx.np.sum`` (pushed, profiled,
an np array back), as MXNet 2 does. A function or ufunc ``mx.np`` lacks runs official
NumPy on the arrays' values (a sync point) and gives np arrays back."""
import numpy as _onp

from ..ndarray.ndarray import NDArray
from .multiarray import ndarray, to_np

__all__ = ["array_function", "array_ufunc", "function_names", "ufunc_names"]

_SUBMODULES = {"numpy": "", "numpy.linalg": "linalg", "numpy.random": "random",
               "numpy.fft": None}


_BOUND = []      # the mx.np module, given by the package when it is complete (bind)


def bind(namespace):
    _BOUND[:] = [namespace]


def _namespace():
    return _BOUND[0]


def _ours(module, name):
    mxnp = _namespace()
    sub = _SUBMODULES.get(module.replace("numpy.lib", "numpy").split("._")[0], "")
    if sub is None:
        return None
    ns = getattr(mxnp, sub) if sub else mxnp
    fn = getattr(ns, name, None)
    return fn if callable(fn) and not isinstance(fn, type) else None


def _to_numpy(value):
    if isinstance(value, NDArray):
        return value.asnumpy()
    if type(value) in (list, tuple):
        return type(value)(_to_numpy(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_numpy(v) for k, v in value.items()}
    return value


def _to_mx(value):
    if isinstance(value, _onp.ndarray):
        return to_np(value, dtype=value.dtype)
    if type(value) in (list, tuple):
        return type(value)(_to_mx(v) for v in value)
    return value


def array_function(func, types, args, kwargs):
    fn = _ours(getattr(func, "__module__", "numpy") or "numpy", func.__name__)
    if fn is not None:
        return fn(*args, **kwargs)
    return _to_mx(func(*_to_numpy(args), **_to_numpy(kwargs)))


def array_ufunc(ufunc, method, inputs, kwargs):
    if method == "__call__":
        fn = _ours("numpy", ufunc.__name__)
        if fn is not None:
            return fn(*inputs, **kwargs)
    out = kwargs.pop("out", None)
    result = getattr(ufunc, method)(*_to_numpy(inputs), **_to_numpy(kwargs))
    if out is not None:
        targets = out if isinstance(out, tuple) else (out,)
        results = result if isinstance(result, tuple) else (result,)
        for t, r in zip(targets, results):
            t[...] = r
        return out[0] if isinstance(out, tuple) and len(out) == 1 else out
    return _to_mx(result)


def function_names():
    """Official NumPy's functions that run ``mx.np``'s on np arrays."""
    mxnp = _namespace()
    names = [n for n in dir(mxnp) if not n.startswith("_") and callable(getattr(mxnp, n))
             and callable(getattr(_onp, n, None)) and not isinstance(getattr(_onp, n), type)
             and not isinstance(getattr(_onp, n), _onp.ufunc)]
    names += ["linalg." + n for n in dir(mxnp.linalg) if not n.startswith("_")
              and callable(getattr(_onp.linalg, n, None))]
    return names


def ufunc_names():
    mxnp = _namespace()
    return [n for n in dir(mxnp) if isinstance(getattr(_onp, n, None), _onp.ufunc)]


ndarray.__array_function__ = lambda self, func, types, args, kwargs: array_function(
    func, types, args, kwargs)
ndarray.__array_ufunc__ = lambda self, ufunc, method, *inputs, **kwargs: array_ufunc(
    ufunc, method, inputs, kwargs)
