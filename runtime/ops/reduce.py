"""Reductions over axes: sum, mean, max, min (MXNet's ``axis``/``keepdims`` params).

As in MXNet 1.x, reducing every axis without ``keepdims`` gives shape ``(1,)``, never a
0-d array.
"""
import numpy as np

from .registry import defop, input_size


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


def _infer(in_shapes, in_dtypes, axis=None, keepdims=False, **_):
    shape = tuple(in_shapes[0])
    axes = _axes(axis, len(shape))
    if axes is None:
        axes = tuple(range(len(shape)))
    if keepdims:
        out = tuple(1 if i in axes else n for i, n in enumerate(shape))
    else:
        out = tuple(n for i, n in enumerate(shape) if i not in axes) or (1,)
    return [out], [in_dtypes[0]]


def _expand(g, shape, axis, keepdims):
    """Give ``g`` (a reduced gradient) back the reduced axes so it broadcasts."""
    axes = _axes(axis, len(shape))
    if axes is None:
        axes = tuple(range(len(shape)))
    if not keepdims:
        if len(axes) == len(shape):
            g = g.reshape(())          # the (1,) of a full reduction
        g = np.expand_dims(g, axes) if axes else g
    return g


def _reduction(name, fn, grad):
    def kernel(x, axis=None, keepdims=False):
        out = np.asarray(fn(x, axis=_axes(axis, x.ndim), keepdims=keepdims), dtype=x.dtype)
        return out.reshape(1) if out.ndim == 0 else out

    def g(ograds, inputs, outputs, axis=None, keepdims=False):
        x = inputs[0]
        og = _expand(ograds[0], x.shape, axis, keepdims)
        o = _expand(outputs[0], x.shape, axis, keepdims)
        return [np.asarray(grad(og, x, o, axis), dtype=x.dtype)]

    # a reduction reads every input element: its cost is the input's size, not the
    # (small) output's, so summing a big array is not run inline on the caller
    defop(name, kernel, infer=_infer, grad=g, cost=input_size,
          params={"axis": None, "keepdims": False})


def _count(x, axis):
    axes = _axes(axis, x.ndim)
    if axes is None:
        return x.size
    return int(np.prod([x.shape[a] for a in axes]))


def _arg_grad(og, x, o, axis):
    mask = (x == o)
    return og * mask / mask.sum(axis=_axes(axis, x.ndim), keepdims=True)


_reduction("sum", np.sum, lambda og, x, o, axis: np.broadcast_to(og, x.shape))
_reduction("mean", np.mean, lambda og, x, o, axis: np.broadcast_to(og, x.shape) / _count(x, axis))
_reduction("max", np.max, _arg_grad)
_reduction("min", np.min, _arg_grad)
