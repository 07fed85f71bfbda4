"""``mx.np`` functions MXNet 2 runs as operators of its own (official NumPy computes them
in MXNet 1.x): ``einsum``, ``pad``, ``diff``, ``ediff1d``, ``nan_to_num``, ``diagflat``,
``polyval``. Each is one differentiable op (:mod:`xprof.runtime.ops.np_numeric`)."""
import numbers

import numpy as _np

from ..ndarray.ndarray import NDArray, invoke
from .multiarray import to_np

__all__ = ["einsum", "pad", "diff", "ediff1d", "nan_to_num", "diagflat", "polyval",
           "shares_memory", "may_share_memory"]


def einsum(*operands, out=None, optimize=False, **kwargs):
    """Op ``_npi_einsum``: ``einsum(subscripts, *arrays)``."""
    subscripts, arrays = operands[0], operands[1:]
    if not isinstance(subscripts, str):
        raise TypeError("einsum: the first argument must be the subscripts string")
    arrays = [to_np(a) for a in arrays]
    like = arrays[0] if arrays else None
    return invoke("_npi_einsum", tuple(arrays), {"subscripts": subscripts.replace(" ", ""),
                                                 "optimize": bool(optimize)}, out=out,
                  cls=like.__class__ if like is not None else None)


def _width(pad_width):
    w = _np.asarray(pad_width, dtype=_np.int64)
    return tuple(tuple(int(v) for v in row) for row in _np.atleast_2d(w)) if w.ndim \
        else int(w)


def pad(x, pad_width, mode="constant", **kwargs):
    """Op ``_npi_pad``: NumPy's modes; the gradient covers those that copy elements
    (constant, edge, reflect, symmetric, wrap)."""
    x = to_np(x)
    constant = kwargs.pop("constant_values", 0)
    reflect = kwargs.pop("reflect_type", "even")
    if kwargs:
        raise TypeError(f"pad: argument {next(iter(kwargs))!r} is not supported")
    if mode not in ("constant", "edge", "reflect", "symmetric", "wrap", "maximum",
                    "minimum", "mean", "median", "linear_ramp"):
        raise ValueError(f"pad: mode={mode!r} is not a NumPy mode")
    return invoke("_npi_pad", (x,), {"pad_width": _width(pad_width), "mode": mode,
                                     "constant_values": constant, "reflect_type": reflect})


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """Op ``_npi_diff``."""
    a = to_np(a)
    if prepend is not None or append is not None:
        from ._shape import concatenate, broadcast_to, expand_dims
        parts = []
        for v in (prepend, None, append):
            if v is None and not parts and prepend is None:
                continue
            if v is None:
                parts.append(a)
                continue
            v = to_np(v, a)
            if v.ndim == 0:
                shape = list(a.shape)
                shape[axis] = 1
                v = broadcast_to(v, tuple(shape))
            parts.append(v)
        if append is None or parts[-1] is not a:
            pass
        a = concatenate(parts if prepend is not None else [a] + parts[1:], axis=axis)
    if not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError(f"diff: order n={n!r} must be a non-negative integer")
    return invoke("_npi_diff", (a,), {"n": int(n), "axis": int(axis)})


def ediff1d(ary, to_end=None, to_begin=None):
    """Op ``_npi_ediff1d`` (``to_begin``/``to_end`` arrays are inputs too)."""
    ary = to_np(ary)
    inputs, slots, params = [ary], [], {"to_begin": None, "to_end": None}
    for slot, value in (("begin", to_begin), ("end", to_end)):
        if isinstance(value, NDArray):
            inputs.append(to_np(value).reshape(-1))
            slots.append(slot)
        elif value is not None:
            params["to_" + slot] = tuple(_np.ravel(value).tolist())
    params["arrays_for"] = tuple(slots)
    return invoke("_npi_ediff1d", tuple(inputs), params)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None, **kwargs):
    """Op ``_npi_nan_to_num`` (``copy=False`` writes ``x``, as NumPy)."""
    x = to_np(x)
    if x.dtype.kind not in "fc":
        return x.copy() if copy else x
    from ..autograd import state
    inplace = not copy and not state.recording     # (recorded: a new array, as MXNet)
    return invoke("_npi_nan_to_num", (x,), {"copy": True, "nan": float(nan),
                                            "posinf": posinf, "neginf": neginf},
                  out=x if inplace else None)


def diagflat(v, k=0):
    """Op ``_npi_diagflat``."""
    return invoke("_npi_diagflat", (to_np(v),), {"k": int(k)})


def polyval(p, x):
    """Op ``_npi_polyval``: ``p`` and ``x`` arrays (a number ``x`` gives NumPy's answer
    on ``p``'s values, as MXNet)."""
    if not isinstance(x, NDArray):
        x = to_np(_np.asarray(x), p if isinstance(p, NDArray) else None)
    return invoke("_npi_polyval", (to_np(p, x), x), {})


def _buffer(a):
    """The memory ``a`` reads: an mx array's buffer once written (a sync point), a numpy
    array itself."""
    if isinstance(a, NDArray):
        a.wait_to_read()
        return a._data
    return _np.asarray(a)


def shares_memory(a, b, max_work=None):
    """Whether ``a`` and ``b`` (mx or numpy arrays) use the same memory: an mx array made
    by ``npx.from_numpy`` shares its numpy array's (waits for both)."""
    return _np.bool_(_np.shares_memory(_buffer(a), _buffer(b)))


def may_share_memory(a, b, max_work=None):
    return _np.bool_(_np.may_share_memory(_buffer(a), _buffer(b)))
