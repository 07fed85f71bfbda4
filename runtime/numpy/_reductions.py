"""``mx.np``'s reductions and products: ``sum``, ``mean``, ``max``/``amax``,
``min``/``amin``, ``prod``, ``std``, ``var``, ``all``, ``any``, ``argmax``, ``argmin``,
``cumsum``, ``dot``, ``tensordot``, ``matmul``, ``inner``, ``outer``, ``vdot``.

The result dtype is resolved here, at the call (``mean`` of ints: the default float;
``sum`` of ints: their dtype, as MXNet 2), and given to the operator as its ``dtype``
parameter. A reduction over every axis is a 0-d array, and never waits.
"""
import numbers

import numpy as _np

from ..ndarray.ndarray import NDArray, invoke
from ..ops.np_elemwise import float_of
from ..util import default_float
from .multiarray import to_np

__all__ = ["sum", "mean", "max", "min", "amax", "amin", "prod", "std", "var", "all",
           "any", "argmax", "argmin", "cumsum", "dot", "tensordot", "matmul", "inner",
           "outer", "vdot", "average"]

def _axis(axis):
    if axis is None or isinstance(axis, numbers.Integral):
        return None if axis is None else int(axis)
    return tuple(int(a) for a in axis)


def _check(name, kwargs):
    for key, value in kwargs.items():
        if value is None or key == "where" and value is True:
            continue
        raise TypeError(f"{name}: argument {key}={value!r} is not supported")


def _reduce(opname, a, axis, keepdims, out, dtype):
    return invoke(opname, (to_np(a),), {"axis": _axis(axis), "keepdims": bool(keepdims),
                                        "dtype": dtype}, out=out)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    _check("sum", {"initial": initial, "where": where})
    a = to_np(a)
    if dtype is None:
        dtype = default_float() if a._dtype.kind == "b" else a._dtype
    return _reduce("_npi_sum", a, axis, keepdims, out, _np.dtype(dtype).name)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    _check("mean", {"where": where})
    a = to_np(a)
    dtype = float_of(a._dtype) if dtype is None else _np.dtype(dtype)
    return _reduce("_npi_mean", a, axis, keepdims, out, dtype.name)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    _check("prod", {"initial": initial, "where": where})
    a = to_np(a)
    dtype = a._dtype if dtype is None else _np.dtype(dtype)
    return _reduce("_npi_prod", a, axis, keepdims, out, dtype.name)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    _check("max", {"initial": initial, "where": where})
    return _reduce("_npi_max", a, axis, keepdims, out, None)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    _check("min", {"initial": initial, "where": where})
    return _reduce("_npi_min", a, axis, keepdims, out, None)


amax, amin = max, min


def _moment(opname, a, axis, dtype, out, ddof, keepdims):
    a = to_np(a)
    dtype = float_of(a._dtype) if dtype is None else _np.dtype(dtype)
    return invoke(opname, (a,), {"axis": _axis(axis), "keepdims": bool(keepdims),
                                 "ddof": int(ddof), "dtype": dtype.name}, out=out)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    _check("std", {"where": where})
    return _moment("_npi_std", a, axis, dtype, out, ddof, keepdims)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    _check("var", {"where": where})
    return _moment("_npi_var", a, axis, dtype, out, ddof, keepdims)


def all(a, axis=None, out=None, keepdims=False, where=None):
    _check("all", {"where": where})
    return invoke("_npi_all", (to_np(a),), {"axis": _axis(axis), "keepdims": bool(keepdims)},
                  out=out)


def any(a, axis=None, out=None, keepdims=False, where=None):
    _check("any", {"where": where})
    return invoke("_npi_any", (to_np(a),), {"axis": _axis(axis), "keepdims": bool(keepdims)},
                  out=out)


def argmax(a, axis=None, out=None, keepdims=False):
    return invoke("_npi_argmax", (to_np(a),), {"axis": axis, "keepdims": bool(keepdims)},
                  out=out)


def argmin(a, axis=None, out=None, keepdims=False):
    return invoke("_npi_argmin", (to_np(a),), {"axis": axis, "keepdims": bool(keepdims)},
                  out=out)


def cumsum(a, axis=None, dtype=None, out=None):
    return invoke("_npi_cumsum", (to_np(a),), {"axis": axis, "dtype": None if dtype is None
                                               else _np.dtype(dtype).name}, out=out)


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    a = to_np(a)
    if weights is None:
        avg = mean(a, axis=axis, keepdims=keepdims)
        count = a.size if axis is None else _np.prod([a.shape[i] for i in _np.atleast_1d(
            axis)])
        return (avg, full_like_scalar(avg, count)) if returned else avg
    w = to_np(weights, a)
    if w.shape != a.shape:
        if axis is None or w.ndim != 1:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        shape = [1] * a.ndim
        shape[int(axis)] = w.shape[0]
        w = w.reshape(shape)
    total = sum(a * w, axis=axis, keepdims=keepdims)
    scale = sum(w + a * 0, axis=axis, keepdims=keepdims)
    avg = total / scale
    return (avg, scale) if returned else avg


def full_like_scalar(like, value):
    return invoke("_npi_full_like", (like,), {"fill_value": float(value), "dtype": None})


# -- products ------------------------------------------------------------------------------
def dot(a, b, out=None):
    if not isinstance(a, NDArray) and not isinstance(b, NDArray):
        return _np.dot(a, b)
    a, b = to_np(a, b if isinstance(b, NDArray) else None), to_np(b, a)
    return invoke("_npi_dot", (a, b), {}, out=out)


def tensordot(a, b, axes=2):
    a, b = to_np(a), to_np(b)
    name = "_npi_tensordot_int_axes" if isinstance(axes, numbers.Integral) else \
        "_npi_tensordot"
    if not isinstance(axes, numbers.Integral):
        axes = tuple(tuple(x) if not isinstance(x, numbers.Integral) else (int(x),)
                     for x in axes)
    return invoke(name, (a, b), {"axes": axes})


def matmul(a, b, out=None, **kwargs):
    return invoke("_npi_matmul", (to_np(a), to_np(b)), {}, out=out)


def inner(a, b):
    a, b = to_np(a), to_np(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return invoke("_npi_tensordot", (a, b), {"axes": ((a.ndim - 1,), (b.ndim - 1,))})


def outer(a, b):
    a, b = to_np(a).reshape(-1), to_np(b).reshape(-1)
    return invoke("_npi_tensordot_int_axes", (a, b), {"axes": 0})


def vdot(a, b):
    a, b = to_np(a).reshape(-1), to_np(b).reshape(-1)
    return invoke("_npi_tensordot_int_axes", (a, b), {"axes": 1})

