"""MXNet 2's NumPy reductions: ``_npi_sum``, ``_npi_mean``, ``_npi_max``, ``_npi_min``,
``_npi_prod`` (MXNet 1.x's ``sum``... made over, :func:`.registry.derive`), and the ones
1.x has no counterpart of: ``_npi_std``, ``_npi_var``, ``_npi_all``, ``_npi_any``,
``_npi_argmax``/``_npi_argmin`` (int64), ``_npi_cumsum``, ``_npi_average``.

NumPy's shapes: reducing every axis gives a 0-d array (1.x gives ``(1,)``; the NDArray
layer reshapes the kernel's ``(1,)`` to the output's ``()``). The output dtype is a
parameter the front door resolves when called (``dtype``: the default float for an int
array's mean, for instance), so a kernel never has to read a global switch.
"""
import math

import numpy as np

from .np_elemwise import float_of
from .params import _dtype
from .reduce import _expand, _reduced
from .registry import defop, derive, input_size, reads_no_out_grads, registry

__all__ = ["reduced_shape", "np_axes"]

_INT64 = np.dtype(np.int64)
_BOOL = np.dtype(bool)


def np_axes(axis, ndim):
    """NumPy's reduction axes: None is every axis, ``()`` none (1.x reads it as every
    axis), else the normalized tuple."""
    if axis is None:
        return None
    if type(axis) is tuple and not axis:
        return ()
    return _reduced(axis, ndim)


def reduced_shape(shape, axis, keepdims):
    """The shape of a NumPy reduction of ``shape`` over ``axis`` (None: every axis)."""
    shape = tuple(shape)
    axes = np_axes(axis, len(shape))
    if axes is None:
        axes = tuple(range(len(shape)))
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _infer(in_shapes, in_dtypes, axis=None, keepdims=False, dtype=None, **_):
    return [reduced_shape(in_shapes[0], axis, keepdims)], [_dtype(dtype, in_dtypes[0])]


def _np_reduction(name, base, grad_name, nonempty=False):
    """``base``'s kernel and gradient on the input cast to the result dtype."""
    source = registry[base]
    kernel0, grad0 = source.kernel, source.grad

    def kernel(x, axis=None, keepdims=False, dtype=None):
        if dtype is not None and name == "_npi_mean" and np.dtype(dtype).kind in "iu":
            axes = np_axes(axis, x.ndim)     # numpy's int mean: the sum in that dtype
            return np.mean(x, axis=axes, dtype=dtype, keepdims=keepdims) \
                if axes != () else x.astype(dtype)
        if dtype is not None and x.dtype != np.dtype(dtype):
            # accumulated in the wider of the two, then given the asked dtype (MXNet's
            # accumulation type: float32 in float16 out sums in float32)
            out = np.dtype(dtype)
            wide = np.promote_types(x.dtype, out) if out.kind == "f" and \
                x.dtype.kind != "b" else out     # (an int result: accumulated as numpy)
            x = x.astype(wide)
            if np_axes(axis, x.ndim) == ():
                return x.astype(out)
            return np.asarray(kernel0(x, axis=axis, keepdims=keepdims)).astype(out)
        if np_axes(axis, x.ndim) == ():      # no axis reduced: the values themselves
            return x.copy()
        return kernel0(x, axis=axis, keepdims=keepdims)

    def grad(ograds, inputs, outputs, axis=None, keepdims=False, dtype=None):
        x = inputs[0]
        og = ograds[0].astype(x.dtype, copy=False)
        if np_axes(axis, x.ndim) == ():
            return [og]
        return grad0([og], inputs, [outputs[0].astype(x.dtype, copy=False)], axis=axis,
                     keepdims=keepdims)

    def infer(in_shapes, in_dtypes, axis=None, keepdims=False, dtype=None, **_):
        shape = tuple(in_shapes[0])
        if nonempty:
            axes = np_axes(axis, len(shape))
            if any(shape[a] == 0 for a in (range(len(shape)) if axes is None else axes)):
                raise ValueError(f"{name}: zero-size array to reduction operation which "
                                 "has no identity")
        return _infer(in_shapes, in_dtypes, axis, keepdims, dtype)

    derive(name, base, grad_name, kernel=kernel, grad=grad, infer=infer,
           params={"axis": None, "keepdims": False, "dtype": None})


_np_reduction("_npi_sum", "sum", "_backward_npi_sum")
_np_reduction("_npi_mean", "mean", "_backward_np_mean")
_np_reduction("_npi_max", "max", "_backward_npi_max", nonempty=True)
_np_reduction("_npi_min", "min", "_backward_npi_min", nonempty=True)
_np_reduction("_npi_prod", "prod", "_backward_npi_prod")


# -- std, var ------------------------------------------------------------------------------
def _moment(x, axis=None, keepdims=False, ddof=0, dtype=None, std=False):
    axes = np_axes(axis, x.ndim)
    out = np.var(x.astype(np.float64), axis=axes, keepdims=keepdims, ddof=int(ddof))
    return np.sqrt(out) if std else out


def _moment_grad(ograds, inputs, outputs, axis=None, keepdims=False, ddof=0, dtype=None,
                 std=False):
    x = inputs[0].astype(np.float64)
    axes = np_axes(axis, x.ndim)
    n = x.size if axes is None else math.prod(x.shape[a] for a in axes)
    og = _expand(ograds[0].astype(np.float64), x.shape, axes, keepdims)
    centered = x - x.mean(axis=axes, keepdims=True)
    g = og * 2 * centered / max(n - int(ddof), 1)
    if std:
        o = _expand(outputs[0].astype(np.float64), x.shape, axes, keepdims)
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(o == 0, 0, g / (2 * np.where(o == 0, 1, o)))
    return [g.astype(inputs[0].dtype)]


for _name, _std in (("_npi_var", False), ("_npi_std", True)):
    defop(_name, lambda x, _s=_std, **p: _moment(x, std=_s, **p), infer=_infer,
          grad=lambda og, ins, outs, _s=_std, **p: _moment_grad(og, ins, outs, std=_s, **p),
          cost=input_size, params={"axis": None, "keepdims": False, "ddof": 0, "dtype": None})


# -- all, any, argmax, argmin --------------------------------------------------------------
@reads_no_out_grads
def _no_grad(ograds, inputs, outputs, **_):
    return [None] * len(inputs)


def _bool_reduce(fn):
    return lambda x, axis=None, keepdims=False: fn(x, axis=np_axes(axis, x.ndim),
                                                   keepdims=keepdims)


def _bool_infer(in_shapes, in_dtypes, axis=None, keepdims=False, **_):
    return [reduced_shape(in_shapes[0], axis, keepdims)], [_BOOL]


defop("_npi_all", _bool_reduce(np.all), infer=_bool_infer, grad=_no_grad, cost=input_size,
      params={"axis": None, "keepdims": False})
defop("_npi_any", _bool_reduce(np.any), infer=_bool_infer, grad=_no_grad, cost=input_size,
      params={"axis": None, "keepdims": False})


def _arg_infer(in_shapes, in_dtypes, axis=None, keepdims=False, **_):
    shape = tuple(in_shapes[0])
    if axis is None or not shape:
        if not shape and axis is not None and int(axis) not in (0, -1):
            raise ValueError(f"axis {axis} is out of range for a 0-d array")
        if not math.prod(shape):
            raise ValueError("attempt to get argmax of an empty sequence")
        return [(1,) * len(shape) if keepdims else ()], [_INT64]
    if not shape[int(axis) % len(shape)] if -len(shape) <= int(axis) < len(shape) else False:
        raise ValueError(f"attempt to get argmax of an empty sequence (axis {axis})")
    return [reduced_shape(shape, axis, keepdims)], [_INT64]


def _arg(fn):
    def kernel(x, axis=None, keepdims=False):
        if axis is None or not x.ndim:     # a 0-d array's axis 0/-1: the whole array
            return fn(x, axis=None, keepdims=bool(keepdims))
        return fn(x, axis=int(axis), keepdims=bool(keepdims))
    return kernel


for _name, _fn in (("_npi_argmax", np.argmax), ("_npi_argmin", np.argmin)):
    defop(_name, _arg(_fn),
          infer=_arg_infer, grad=_no_grad, cost=input_size,
          params={"axis": None, "keepdims": False})


# -- cumsum ------------------------------------------------------------------------------
def _cumsum(x, axis=None, dtype=None):
    return np.cumsum(x, axis=axis, dtype=dtype)


def _cumsum_grad(ograds, inputs, outputs, axis=None, dtype=None):
    x = inputs[0]
    g = ograds[0]
    if axis is None:
        return [np.flip(np.cumsum(np.flip(g))).reshape(x.shape).astype(x.dtype)]
    return [np.flip(np.cumsum(np.flip(g, axis), axis=axis), axis).astype(x.dtype)]


def _cumsum_infer(in_shapes, in_dtypes, axis=None, dtype=None, **_):
    shape = tuple(in_shapes[0])
    out = (math.prod(shape),) if axis is None else shape
    d = in_dtypes[0]
    if dtype is None and d.kind in "biu":
        d = _INT64 if d.kind != "u" else np.dtype(np.uint64)
    return [out], [_dtype(dtype, d)]


defop("_npi_cumsum", _cumsum, infer=_cumsum_infer, grad=_cumsum_grad, cost=input_size,
      params={"axis": None, "dtype": None})


# -- norm ----------------------------------------------------------------------------------
def _norm_axes(ndim, axis):
    if axis is None:
        return None
    return _reduced(axis, ndim)


def _np_norm(x, ord=None, axis=None, keepdims=False):
    x = x.astype(np.float64) if x.dtype.kind not in "fc" else x
    axes = _norm_axes(x.ndim, axis)
    if ord is None or ord == "fro" or (ord == 2 and axes is not None and len(axes) == 1):
        return np.sqrt(np.sum(x * x, axis=axes, keepdims=keepdims))
    if axes is not None and len(axes) == 1 or axes is None and x.ndim == 1:
        return np.linalg.norm(x, ord=ord, axis=axes[0] if axes else None, keepdims=keepdims)
    return np.linalg.norm(x, ord=ord, axis=axes, keepdims=keepdims)


def _vector_norm_grad(x, og, o, ord):
    ax = np.abs(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        if ord in (np.inf, -np.inf, float("inf"), float("-inf")):
            hit = ax == o
            n = np.sum(hit, axis=-1, keepdims=True)
            return og * np.sign(x) * hit / np.maximum(n, 1)
        if ord == 0:
            return np.zeros_like(x)
        if ord == 1:
            return og * np.sign(x)
        p = float(ord)
        return np.nan_to_num(og * np.sign(x) * ax ** (p - 1) / o ** (p - 1))


def _matrix_norm_grad(x, og, o, ord):
    """x (..., m, n) with the norm over the last two axes; og and o (..., 1, 1)."""
    if ord in (1, -1, np.inf, -np.inf, float("inf"), float("-inf")):
        cols = ord in (1, -1)         # 1: the largest column sum of |x|
        sums = np.abs(x).sum(axis=-2 if cols else -1, keepdims=True)
        hit = sums == o
        hit = hit / np.maximum(hit.sum(axis=-1 if cols else -2, keepdims=True), 1)
        return og * np.sign(x) * hit
    u, s, vh = np.linalg.svd(x.astype(np.float64), full_matrices=False)
    if ord == "nuc":
        return og * np.matmul(u, vh)
    k = 0 if ord == 2 else -1          # 2: the largest singular value, -2 the smallest
    return og * (u[..., :, k, None] * vh[..., None, k, :])


def _np_norm_grad(ograds, inputs, outputs, ord=None, axis=None, keepdims=False):
    x = inputs[0]
    axes = _norm_axes(x.ndim, axis)
    og = _expand(ograds[0], x.shape, axes, keepdims)
    o = _expand(outputs[0], x.shape, axes, keepdims)
    xf = x.astype(np.float64)
    if ord is None or ord == "fro" or ord == 2 and axes is not None and len(axes) == 1 \
            or ord == 2 and axes is None and x.ndim == 1:
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(o == 0, 0, og * xf / np.where(o == 0, 1, o))
    elif axes is None and x.ndim == 1 or axes is not None and len(axes) == 1:
        a = axes[0] if axes else 0
        g = np.moveaxis(_vector_norm_grad(np.moveaxis(xf, a, -1), np.moveaxis(og, a, -1),
                                          np.moveaxis(o, a, -1), ord), -1, a)
    else:
        a0, a1 = axes if axes is not None else (0, 1)
        move = lambda t: np.moveaxis(t, (a0, a1), (-2, -1))     # noqa: E731
        g = np.moveaxis(_matrix_norm_grad(move(xf), move(og)[..., :1, :1],
                                          move(o)[..., :1, :1], ord), (-2, -1), (a0, a1))
    return [np.asarray(g, dtype=x.dtype)]


def _np_norm_infer(in_shapes, in_dtypes, ord=None, axis=None, keepdims=False, **_):
    return [reduced_shape(in_shapes[0], axis, keepdims)], [float_of(in_dtypes[0])]


defop("_npi_norm", _np_norm, infer=_np_norm_infer, grad=_np_norm_grad, cost=input_size,
      params={"ord": None, "axis": None, "keepdims": False})
