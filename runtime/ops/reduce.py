"""Reductions over axes: sum, mean, max, min, prod, nansum, nanprod, norm (MXNet's
``axis``/``keepdims``/``exclude`` params: ``exclude=True`` reduces every axis *not* in
``axis``).

As in MXNet 1.x, reducing every axis without ``keepdims`` gives shape ``(1,)``, never a
0-d array.
"""
import numpy as np

from .registry import alias, defop, input_size


def _axes(axis, ndim):
    if axis is None or (type(axis) is tuple and not axis):
        return None
    if isinstance(axis, (int, np.integer)):
        axes = (axis,)
    else:
        try:
            axes = tuple(axis)
        except TypeError:
            axes = (axis,)
    out = []
    for a in axes:
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise ValueError(f"axis={axis!r} is not allowed; use an int, a tuple of ints "
                             "or None")
        if not -ndim <= a < ndim:
            raise ValueError(f"axis {a} is out of range for an array of {ndim} dimensions")
        out.append(a % ndim)
    return tuple(out)


def _reduced(axis, ndim, exclude=False):
    """The axes reduced: ``axis`` normalized, or its complement when ``exclude``."""
    axes = _axes(axis, ndim)
    if exclude and exclude != "False":
        axes = tuple(i for i in range(ndim) if i not in (axes or ()))
    return axes


def _infer(in_shapes, in_dtypes, axis=None, keepdims=False, exclude=False, **_):
    shape = tuple(in_shapes[0])
    axes = _reduced(axis, len(shape), exclude)
    if axes is None:
        axes = tuple(range(len(shape)))
    if keepdims:
        out = tuple(1 if i in axes else n for i, n in enumerate(shape))
    else:
        out = tuple(n for i, n in enumerate(shape) if i not in axes) or (1,)
    return [out], [in_dtypes[0]]


def _expand(g, shape, axes, keepdims):
    """Give ``g`` (a reduced gradient) back the reduced ``axes`` so it broadcasts."""
    if axes is None:
        axes = tuple(range(len(shape)))
    if not keepdims:
        if len(axes) == len(shape):
            g = g.reshape(())          # the (1,) of a full reduction
        g = np.expand_dims(g, axes) if axes else g
    return g


def _reduction(name, fn, grad):
    def kernel(x, axis=None, keepdims=False, exclude=False):
        out = np.asarray(fn(x, axis=_reduced(axis, x.ndim, exclude), keepdims=keepdims),
                         dtype=x.dtype)
        return out.reshape(1) if out.ndim == 0 else out

    def g(ograds, inputs, outputs, axis=None, keepdims=False, exclude=False):
        x = inputs[0]
        axes = _reduced(axis, x.ndim, exclude)
        og = _expand(ograds[0], x.shape, axes, keepdims)
        o = _expand(outputs[0], x.shape, axes, keepdims)
        return [np.asarray(grad(og, x, o, axes), dtype=x.dtype)]

    # a reduction reads every input element: its cost is the input's size, not the
    # (small) output's, so summing a big array is not run inline on the caller
    infer = _infer
    if name in ("max", "min"):
        infer = _nonempty_infer(name)
    return defop(name, kernel, infer=infer, grad=g, cost=input_size,
                 params={"axis": None, "keepdims": False, "exclude": False})


def _nonempty_infer(name):
    """max/min of nothing has no value: refused at the call, as MXNet does."""
    def infer(in_shapes, in_dtypes, axis=None, keepdims=False, exclude=False, **_):
        shape = tuple(in_shapes[0])
        axes = _reduced(axis, len(shape), exclude)
        axes = range(len(shape)) if axes is None else axes
        if any(shape[a] == 0 for a in axes):
            raise ValueError(f"{name}: cannot reduce an empty axis (input shape {shape})")
        return _infer(in_shapes, in_dtypes, axis, keepdims, exclude)
    return infer


def _count(x, axes):
    if axes is None:
        return x.size
    return int(np.prod([x.shape[a] for a in axes]))


def _arg_grad(og, x, o, axes):
    mask = (x == o)
    return og * mask / mask.sum(axis=axes, keepdims=True)


_reduction("sum", np.sum, lambda og, x, o, axis: np.broadcast_to(og, x.shape))
_reduction("mean", np.mean, lambda og, x, o, axes: np.broadcast_to(og, x.shape) / _count(x, axes))
_reduction("max", np.max, _arg_grad)
_reduction("min", np.min, _arg_grad)


def _prod_grad(og, x, o, axes):
    # d prod / d x_i = prod / x_i; with zeros, the product of the other elements
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(x != 0, o / np.where(x == 0, 1, x), 0)
    zeros = x == 0
    if zeros.any():
        others = np.where(zeros, 1, x).prod(axis=axes, keepdims=True)
        nz = zeros.sum(axis=axes, keepdims=True)
        g = np.where(zeros, np.where(nz == 1, others, 0), g)
    return og * g


_reduction("prod", np.prod, _prod_grad)
_reduction("nansum", np.nansum,
           lambda og, x, o, axes: np.where(np.isnan(x), 0, np.broadcast_to(og, x.shape)))
_reduction("nanprod", np.nanprod,
           lambda og, x, o, axes: np.where(np.isnan(x), 0, _prod_grad(og, np.where(
               np.isnan(x), 1, x), o, axes)))
# MXNet's legacy names
alias("sum_axis", "sum")
alias("max_axis", "max")
alias("min_axis", "min")


# -- norm -------------------------------------------------------------------------------
_ORDS = (1, 2)


def _norm_ord(ord):
    if ord not in _ORDS:
        raise ValueError(f"norm: ord={ord!r} is not supported; use 1 or 2")
    return ord


def _norm(x, ord=2, axis=None, keepdims=False, out_dtype=None):
    axes = _axes(axis, x.ndim)
    if _norm_ord(ord) == 1:
        out = np.abs(x).sum(axis=axes, keepdims=keepdims)
    else:
        out = np.sqrt(np.square(x, dtype=np.float64 if x.dtype != np.float64 else None)
                      .sum(axis=axes, keepdims=keepdims))
    out = np.asarray(out, dtype=out_dtype or x.dtype)
    return out.reshape(1) if out.ndim == 0 else out


def _norm_grad(ograds, inputs, outputs, ord=2, axis=None, keepdims=False, out_dtype=None):
    x = inputs[0]
    axes = _axes(axis, x.ndim)
    og = _expand(ograds[0], x.shape, axes, keepdims)
    if _norm_ord(ord) == 1:
        return [np.asarray(og * np.sign(x), dtype=x.dtype)]
    o = _expand(outputs[0], x.shape, axes, keepdims)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(o == 0, 0, og * x / np.where(o == 0, 1, o))
    return [np.asarray(g, dtype=x.dtype)]


def _norm_infer(in_shapes, in_dtypes, ord=2, axis=None, keepdims=False, out_dtype=None, **_):
    _norm_ord(ord)
    shapes, dtypes = _infer(in_shapes, in_dtypes, axis=axis, keepdims=keepdims)
    return shapes, [np.dtype(out_dtype) if out_dtype else in_dtypes[0]]


defop("norm", _norm, infer=_norm_infer, grad=_norm_grad, cost=input_size,
      params={"ord": 2, "axis": None, "keepdims": False, "out_dtype": None})
