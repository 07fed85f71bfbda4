"""``LRN``: local response normalization across channels (AlexNet's), as MXNet 1.x has it.

For channel ``c`` of an ``(N, C, ...)`` input, ``tmp_norm = knorm + alpha / nsize *
sum(x[:, j]**2 for j within nsize // 2 of c)`` and ``output = x * tmp_norm**-beta``.
The normalizer is MXNet's second, hidden output (``lrn_tmp_norm``): monitors see it,
``list_outputs`` does not; the gradient reuses it.
"""

import numpy as np

from .params import _as, _positive_int
from .registry import defop, input_size


def _window_sum(sq, nsize):
    """Per channel, the sum of ``sq`` over the channels within ``nsize // 2`` of it."""
    half = nsize // 2
    c = sq.shape[1]
    cum = np.cumsum(sq, axis=1)
    zero = np.zeros_like(cum[:, :1])
    cum = np.concatenate([zero, cum], axis=1)
    hi = np.minimum(np.arange(c) + half + 1, c)
    lo = np.maximum(np.arange(c) - half, 0)
    return cum[:, hi] - cum[:, lo]


def _check(data_ndim, nsize):
    nsize = _positive_int(nsize, "nsize", "LRN")
    if data_ndim < 3:
        raise ValueError(f"LRN: data must have channels on axis 1 and at least 3 "
                         f"dimensions (N, C, ...), got {data_ndim}")
    return nsize


def _lrn(data, alpha=1e-4, beta=0.75, knorm=2.0, nsize=None):
    nsize = _check(data.ndim, nsize)
    x = data.astype(np.float64)
    norm = float(knorm) + float(alpha) / nsize * _window_sum(x * x, nsize)
    return _as(data, x * norm ** -float(beta)), _as(data, norm)


def _lrn_grad(ograds, inputs, outputs, alpha=1e-4, beta=0.75, knorm=2.0, nsize=None):
    nsize = _check(inputs[0].ndim, nsize)
    x = inputs[0].astype(np.float64)
    g = ograds[0].astype(np.float64)
    norm = outputs[1].astype(np.float64)
    beta = float(beta)
    # d output_c / d x_j: N_c^-beta where j == c, minus 2 alpha beta / n x_j x_c N_c^(-beta-1)
    # for every c whose window holds j (windows are symmetric: the window of j)
    inner = _window_sum(g * x * norm ** (-beta - 1.0), nsize)
    return [_as(inputs[0], g * norm ** -beta - 2.0 * float(alpha) * beta / nsize * x * inner)]


def _lrn_infer(in_shapes, in_dtypes, nsize=None, **_):
    shape = tuple(in_shapes[0])
    _check(len(shape), nsize)
    return [shape, shape], [in_dtypes[0], in_dtypes[0]]


defop("LRN", _lrn, infer=_lrn_infer, grad=_lrn_grad, num_outputs=2, visible_outputs=1,
      output_names=("output", "tmp_norm"), cost=input_size,
      params={"alpha": 1e-4, "beta": 0.75, "knorm": 2.0, "nsize": None})
