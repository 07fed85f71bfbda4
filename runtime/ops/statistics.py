"""Statistics operators (MXNet 1.x): ``moments`` (mean and variance over ``axes``) and
``_histogram`` (``mx.nd.histogram``/``mx.sym.histogram`` are its Python front end in
:mod:`.python_level`: ``bins`` an int with ``range``, or an array of bin edges)."""
import ast
import math

import numpy as np

from .params import _ACTIVE, _bool, _zeros_grad, parse_tuple
from .registry import defop, input_size


def _moment_axes(axes, ndim):
    if axes in (None, ()):
        return tuple(range(ndim))
    return tuple(sorted(int(a) % ndim for a in parse_tuple(axes, "axes")))


def _moments(data, axes=None, keepdims=False):
    ax = _moment_axes(axes, data.ndim)
    mean = data.mean(axis=ax, keepdims=True)
    var = np.square(data - mean).mean(axis=ax, keepdims=True)
    if not _bool(keepdims):
        mean, var = mean.squeeze(ax), var.squeeze(ax)
        if mean.ndim == 0:
            mean, var = mean.reshape(1), var.reshape(1)
    return mean.astype(data.dtype, copy=False), var.astype(data.dtype, copy=False)


def _moments_grad(ograds, inputs, outputs, axes=None, keepdims=False):
    x = inputs[0]
    ax = _moment_axes(axes, x.ndim)
    n = math.prod(x.shape[a] for a in ax)
    kept = tuple(1 if i in ax else s for i, s in enumerate(x.shape))
    g_mean, g_var = (np.zeros(outputs[i].shape, x.dtype) if i >= len(ograds) or
                     ograds[i] is None else ograds[i] for i in (0, 1))
    mean = x.mean(axis=ax, keepdims=True)
    g = g_mean.reshape(kept) / n + g_var.reshape(kept) * 2.0 * (x - mean) / n
    return [g.astype(x.dtype, copy=False)]


def _moments_infer(in_shapes, in_dtypes, axes=None, keepdims=False, **_):
    shape = tuple(in_shapes[0])
    ax = _moment_axes(axes, len(shape))
    if _bool(keepdims):
        out = tuple(1 if i in ax else s for i, s in enumerate(shape))
    else:
        out = tuple(s for i, s in enumerate(shape) if i not in ax) or (1,)
    return [out, out], [in_dtypes[0]] * 2


defop("moments", _moments, infer=_moments_infer, grad=_moments_grad, cost=input_size,
      num_outputs=2, output_names=("mean", "var"), params={"axes": None, "keepdims": False})


# -- histogram -------------------------------------------------------------------------------
def _edges(data, bins, bin_cnt, range):
    if bins is not None:
        return np.asarray(bins, dtype=np.float64)
    if bin_cnt is None or int(bin_cnt) < 1:
        raise ValueError(f"histogram: bin_cnt={bin_cnt!r} must be a positive int")
    if range in (None, (), "None"):
        lo, hi = (float(data.min()), float(data.max())) if data.size else (0.0, 1.0)
    else:
        if isinstance(range, str):            # from symbol JSON
            range = ast.literal_eval(range)
        lo, hi = (float(v) for v in range)
    return np.linspace(lo, hi, int(bin_cnt) + 1)


def _histogram(data, bins=None, bin_cnt=None, range=None):
    edges = _edges(data, bins, bin_cnt, range)
    counts, _ = np.histogram(data, edges)
    return counts.astype(np.int64), edges.astype(data.dtype)


def _histogram_infer(in_shapes, in_dtypes, bin_cnt=None, **_):
    n = in_shapes[1][0] - 1 if len(in_shapes) > 1 else int(bin_cnt)
    return [(n,), (n + 1,)], [np.dtype(np.int64), in_dtypes[0]]


defop("_histogram", _histogram, arg_names=("data", "bins"), infer=_histogram_infer,
      grad=_zeros_grad, cost=input_size, num_outputs=2,
      params={"bin_cnt": None, "range": None})
_ACTIVE["_histogram"] = lambda p: ("data",) if p.get("bin_cnt") is not None \
    else ("data", "bins")
