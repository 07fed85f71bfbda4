"""The functions of ``mx.sym.np``: each composes the operator ``mx.np``'s function of the
same name pushes (the tables of ``numpy/_ufuncs.py`` for the elementwise ones), with
parameters that need no input shape."""
import numbers

import numpy as _onp

from ...numpy._ufuncs import ARRAY_ONLY, BINARY_FUNCTIONS, UNARY_FUNCTIONS
from ..symbol import Symbol
from ._symbol import _Symbol, apply

__all__ = ["sum", "mean", "prod", "max", "min", "amax", "amin", "std", "var", "all", "any",
           "argmax", "argmin", "cumsum", "dot", "matmul", "tensordot", "vdot", "outer",
           "inner", "reshape", "transpose", "swapaxes", "expand_dims", "squeeze", "ravel",
           "concatenate", "concat", "stack", "split", "tile", "repeat", "flip", "clip",
           "where", "broadcast_to", "roll", "take", "tril", "triu", "trace", "diagonal",
           "diag", "around", "round", "sort", "argsort", "copy", "zeros", "ones", "full",
           "arange", "eye", "identity", "linspace", "zeros_like", "ones_like", "full_like",
           "ndarray"]

ndarray = _Symbol   # isinstance(x, mx.sym.np.ndarray), as MXNet's module has it


def _binary(name, array_op, scalar_op, rscalar_op):
    def fn(x1, x2, out=None, **kwargs):
        _no_out(name, out)
        s1, s2 = isinstance(x1, Symbol), isinstance(x2, Symbol)
        if s1 and s2:
            return apply(array_op, (x1, x2))
        if s1 and isinstance(x2, numbers.Number):
            return apply(scalar_op, (x1,), {"scalar": x2})
        if s2 and isinstance(x1, numbers.Number):
            return apply(rscalar_op, (x2,), {"scalar": x1})
        if not s1 and not s2:
            return getattr(_onp, name)(x1, x2)
        raise TypeError(f"mx.sym.np.{name}: operands are a Symbol and a "
                        f"{type(x2 if s1 else x1).__name__}")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{array_op}`` on two symbols, ``{scalar_op}`` with a number."
    return fn


def _array_only(name, op):
    def fn(x1, x2, out=None, **kwargs):
        _no_out(name, out)
        return apply(op, (x1, x2))
    fn.__name__ = fn.__qualname__ = name
    return fn


def _unary(name, op):
    def fn(x, out=None, **kwargs):
        _no_out(name, out)
        return apply(op, (x,))
    fn.__name__ = fn.__qualname__ = name
    return fn


def _no_out(name, out):
    if out is not None:
        raise ValueError(f"mx.sym.np.{name}: out= is not supported on symbols")


for _name, _ops in BINARY_FUNCTIONS.items():
    globals()[_name] = _binary(_name, *_ops)
for _name, _op in ARRAY_ONLY.items():
    globals()[_name] = _array_only(_name, _op)
for _name, _op in UNARY_FUNCTIONS.items():
    globals()[_name] = _unary(_name, _op)
__all__ += list(BINARY_FUNCTIONS) + list(ARRAY_ONLY) + list(UNARY_FUNCTIONS)


# -- reductions --------------------------------------------------------------------------------
def _axis(axis):
    if axis is None or isinstance(axis, numbers.Integral):
        return None if axis is None else int(axis)
    return tuple(int(a) for a in axis)


def _dtype(dtype):
    return None if dtype is None else _onp.dtype(dtype).name


def _reduction(opname):
    def fn(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        _no_out(opname, out)
        return apply(opname, (a,), {"axis": _axis(axis), "keepdims": bool(keepdims),
                                    "dtype": _dtype(dtype)})
    return fn


sum = _reduction("_npi_sum")
mean = _reduction("_npi_mean")
prod = _reduction("_npi_prod")


def max(a, axis=None, out=None, keepdims=False):
    return apply("_npi_max", (a,), {"axis": _axis(axis), "keepdims": bool(keepdims)})


def min(a, axis=None, out=None, keepdims=False):
    return apply("_npi_min", (a,), {"axis": _axis(axis), "keepdims": bool(keepdims)})


amax, amin = max, min


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return apply("_npi_std", (a,), {"axis": _axis(axis), "keepdims": bool(keepdims),
                                    "ddof": int(ddof), "dtype": _dtype(dtype)})


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return apply("_npi_var", (a,), {"axis": _axis(axis), "keepdims": bool(keepdims),
                                    "ddof": int(ddof), "dtype": _dtype(dtype)})


def all(a, axis=None, out=None, keepdims=False):
    return apply("_npi_all", (a,), {"axis": _axis(axis), "keepdims": bool(keepdims)})


def any(a, axis=None, out=None, keepdims=False):
    return apply("_npi_any", (a,), {"axis": _axis(axis), "keepdims": bool(keepdims)})


def argmax(a, axis=None, out=None, keepdims=False):
    return apply("_npi_argmax", (a,), {"axis": axis, "keepdims": bool(keepdims)})


def argmin(a, axis=None, out=None, keepdims=False):
    return apply("_npi_argmin", (a,), {"axis": axis, "keepdims": bool(keepdims)})


def cumsum(a, axis=None, dtype=None, out=None):
    return apply("_npi_cumsum", (a,), {"axis": axis, "dtype": _dtype(dtype)})


# -- products ----------------------------------------------------------------------------------
def dot(a, b, out=None):
    return apply("_npi_dot", (a, b))


def matmul(a, b, out=None, **kwargs):
    return apply("_npi_matmul", (a, b))


def tensordot(a, b, axes=2):
    if isinstance(axes, numbers.Integral):
        return apply("_npi_tensordot_int_axes", (a, b), {"axes": int(axes)})
    axes = tuple(tuple(x) if not isinstance(x, numbers.Integral) else (int(x),) for x in axes)
    return apply("_npi_tensordot", (a, b), {"axes": axes})


def vdot(a, b):
    return apply("_npi_tensordot_int_axes", (ravel(a), ravel(b)), {"axes": 1})


def outer(a, b):
    return apply("_npi_tensordot_int_axes", (ravel(a), ravel(b)), {"axes": 0})


def inner(a, b):
    return apply("_npi_tensordot", (a, b), {"axes": ((-1,), (-1,))})


# -- shapes ------------------------------------------------------------------------------------
def reshape(a, newshape=None, reverse=False, order="C", shape=None):
    newshape = newshape if newshape is not None else shape
    if isinstance(newshape, numbers.Integral):
        newshape = (newshape,)
    return apply("_npx_reshape", (a,), {"newshape": tuple(int(s) for s in newshape),
                                        "reverse": bool(reverse)})


def ravel(x, order="C"):
    return reshape(x, (-1,))


def transpose(a, axes=None):
    return apply("_npi_transpose", (a,), {"axes": tuple(axes or ())})


def swapaxes(a, axis1, axis2):
    return apply("SwapAxis", (a,), {"dim1": int(axis1), "dim2": int(axis2)})


def expand_dims(a, axis):
    return apply("expand_dims", (a,), {"axis": int(axis)})


def squeeze(a, axis=None):
    return apply("_npi_squeeze", (a,), {"axis": _axis(axis)})


def concatenate(seq, axis=0, out=None):
    seq = list(seq)
    if axis is None:
        seq, axis = [ravel(a) for a in seq], 0
    return apply("concat", seq, {"dim": int(axis), "num_args": len(seq)})


concat = concatenate


def stack(arrays, axis=0, out=None):
    arrays = list(arrays)
    return apply("stack", arrays, {"axis": int(axis), "num_args": len(arrays)})


def split(ary, indices_or_sections, axis=0):
    """Equal sections (their count: the axis's size is unknown on a symbol) or split
    points: one ``_split_v2`` node."""
    if isinstance(indices_or_sections, numbers.Integral):
        params = {"indices": (), "sections": int(indices_or_sections)}
    else:
        params = {"indices": (0,) + tuple(int(i) for i in indices_or_sections),
                  "sections": 0}
    return apply("_split_v2", (ary,), dict(params, axis=int(axis), squeeze_axis=False))


def tile(A, reps):
    reps = (reps,) if isinstance(reps, numbers.Integral) else tuple(reps)
    return apply("tile", (A,), {"reps": reps})


def repeat(a, repeats, axis=None):
    if axis is None:
        a, axis = ravel(a), 0
    return apply("repeat", (a,), {"repeats": int(repeats), "axis": int(axis)})


def flip(m, axis):
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    return apply("_npi_flip", (m,), {"axis": axes})


def clip(a, a_min, a_max, out=None):
    return apply("clip", (a,), {"a_min": a_min, "a_max": a_max})


def where(condition, x, y):
    return apply("_npi_where", (condition, x, y))


def broadcast_to(array, shape):
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    return apply("_npi_broadcast_to", (array,), {"shape": shape})


def roll(a, shift, axis=None):
    shift = int(shift) if isinstance(shift, numbers.Integral) else tuple(int(s) for s in shift)
    if axis is not None:
        axis = int(axis) if isinstance(axis, numbers.Integral) else tuple(int(x) for x in axis)
    return apply("_npi_roll", (a,), {"shift": shift, "axis": axis})


def take(a, indices, axis=None, mode="raise", out=None):
    if axis is None:
        a, axis = ravel(a), 0
    return apply("take", (a, indices), {"axis": int(axis), "mode": mode})


def tril(m, k=0):
    return apply("_npi_tril", (m,), {"k": int(k)})


def triu(m, k=0):
    return apply("_npi_triu", (m,), {"k": int(k)})


def diagonal(a, offset=0, axis1=0, axis2=1):
    return apply("_npi_diagonal", (a,), {"offset": int(offset), "axis1": int(axis1),
                                         "axis2": int(axis2)})


def trace(a, offset=0, axis1=0, axis2=1, out=None):
    return apply("_npi_trace", (a,), {"offset": int(offset), "axis1": int(axis1),
                                      "axis2": int(axis2)})


def diag(v, k=0):
    return apply("_npi_diag", (v,), {"k": int(k)})


def around(a, decimals=0, out=None):
    return apply("_npi_around", (a,), {"decimals": int(decimals)})


round = around


def sort(a, axis=-1, kind=None, order=None):
    return apply("sort", (a,), {"axis": int(axis), "is_ascend": True})


def argsort(a, axis=-1, kind=None, order=None):
    return apply("argsort", (a,), {"axis": int(axis), "is_ascend": True, "dtype": "int64"})


def copy(a):
    return apply("_npi_copy", (a,))


# -- creation ----------------------------------------------------------------------------------
def _float(dtype):
    from ...util import default_float
    return (default_float() if dtype is None else _onp.dtype(dtype)).name


def _shape(shape):
    return (int(shape),) if isinstance(shape, numbers.Integral) else tuple(int(s)
                                                                           for s in shape)


def zeros(shape, dtype=None, order="C", device=None, ctx=None):
    return apply("_npi_zeros", (), {"shape": _shape(shape), "dtype": _float(dtype)})


def ones(shape, dtype=None, order="C", device=None, ctx=None):
    return apply("_npi_ones", (), {"shape": _shape(shape), "dtype": _float(dtype)})


def full(shape, fill_value, dtype=None, order="C", device=None, ctx=None):
    return apply("_npi_full", (), {"shape": _shape(shape), "value": fill_value,
                                   "dtype": _float(dtype)})


def arange(start, stop=None, step=1, dtype=None, device=None, ctx=None):
    if stop is None:
        start, stop = 0, start
    return apply("_npi_arange", (), {"start": start, "stop": stop, "step": step,
                                     "dtype": _float(dtype)})


def eye(N, M=None, k=0, dtype=None, device=None, ctx=None):
    return apply("_npi_eye", (), {"N": int(N), "M": int(N if M is None else M), "k": int(k),
                                  "dtype": _float(dtype)})


def identity(n, dtype=None, device=None, ctx=None):
    return eye(n, dtype=dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0,
             device=None, ctx=None):
    if retstep or axis:
        raise ValueError("mx.sym.np.linspace: retstep and axis need arrays")
    return apply("_npi_linspace", (), {"start": float(start), "stop": float(stop),
                                       "num": int(num), "endpoint": bool(endpoint),
                                       "dtype": _float(dtype)})


def full_like(a, fill_value, dtype=None, order="C", subok=True, shape=None, device=None,
              ctx=None):
    return apply("_npi_full_like", (a,), {"fill_value": float(fill_value),
                                          "dtype": _dtype(dtype)})


def zeros_like(a, dtype=None, **kwargs):
    return full_like(a, 0, dtype)


def ones_like(a, dtype=None, **kwargs):
    return full_like(a, 1, dtype)
