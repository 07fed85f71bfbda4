"""``Correlation`` (MXNet 1.x; FlowNet's correlation layer, Dosovitskiy et al. 2015).

For each output position and each displacement ``(dy, dx)`` of a ``(2R + 1)^2`` grid
(``R = max_displacement // stride2``, displacements in steps of ``stride2``), the mean
over channels and a ``kernel_size`` window of ``data1 * data2`` shifted by the
displacement (``is_multiply=True``) or of ``|data1 - data2|``. Both inputs are
zero-padded by ``pad_size``; output positions step by ``stride1`` and start
``max_displacement`` into the padded image. ``kernel_size`` must be odd.
"""
import numpy as np

from .params import _as, _bool
from .registry import defop

_PARAMS = {"kernel_size": 1, "max_displacement": 1, "stride1": 1, "stride2": 1,
           "pad_size": 0, "is_multiply": True}


def _geometry(shape, kernel_size, max_displacement, stride1, stride2, pad_size):
    k, md, s1, s2, pad = (int(v) for v in (kernel_size, max_displacement, stride1, stride2,
                                           pad_size))
    if k < 1 or k % 2 == 0:
        raise ValueError(f"Correlation: kernel_size={k} must be a positive odd number")
    if s1 < 1 or s2 < 1 or md < 0 or pad < 0:
        raise ValueError(f"Correlation: stride1={s1}, stride2={s2} must be >= 1 and "
                         f"max_displacement={md}, pad_size={pad} >= 0")
    if len(shape) != 4:
        raise ValueError(f"Correlation: inputs must be 4-D (NCHW), got {tuple(shape)}")
    hp, wp = shape[2] + 2 * pad, shape[3] + 2 * pad
    border = md + (k - 1) // 2
    th, tw = (hp - 2 * border) // s1, (wp - 2 * border) // s1
    if th < 1 or tw < 1:
        raise ValueError(f"Correlation: kernel_size={k} with max_displacement={md} leaves "
                         f"no output for inputs of shape {tuple(shape)} (pad_size={pad})")
    radius = md // s2
    return k, md, s1, s2, pad, th, tw, radius


def _windows(geom):
    """For each (output channel, kernel offset): the slices of the padded data1 and
    data2 it multiplies."""
    k, md, s1, s2, pad, th, tw, radius = geom
    width = 2 * radius + 1
    for tc in range(width * width):
        ox = (tc % width - radius) * s2
        oy = (tc // width - radius) * s2
        for h in range(k):
            for w in range(k):
                y1, x1 = md + h, md + w
                a = (slice(y1, y1 + s1 * (th - 1) + 1, s1), slice(x1, x1 + s1 * (tw - 1) + 1, s1))
                b = (slice(y1 + oy, y1 + oy + s1 * (th - 1) + 1, s1),
                     slice(x1 + ox, x1 + ox + s1 * (tw - 1) + 1, s1))
                yield tc, (Ellipsis,) + a, (Ellipsis,) + b


def _padded(x, pad):
    return np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pad, pad), (pad, pad)])


def _correlation(data1, data2, kernel_size=1, max_displacement=1, stride1=1, stride2=1,
                 pad_size=0, is_multiply=True):
    geom = _geometry(data1.shape, kernel_size, max_displacement, stride1, stride2, pad_size)
    k, _, _, _, pad, th, tw, radius = geom
    p1, p2 = _padded(data1, pad), _padded(data2, pad)
    out = np.zeros((data1.shape[0], (2 * radius + 1) ** 2, th, tw))
    mult = _bool(is_multiply)
    for tc, a, b in _windows(geom):
        x, y = p1[a], p2[b]
        out[:, tc] += (x * y).sum(axis=1) if mult else np.abs(x - y).sum(axis=1)
    return _as(data1, out / float(k * k * data1.shape[1]))


def _correlation_grad(ograds, inputs, outputs, kernel_size=1, max_displacement=1,
                      stride1=1, stride2=1, pad_size=0, is_multiply=True):
    data1, data2 = inputs
    geom = _geometry(data1.shape, kernel_size, max_displacement, stride1, stride2, pad_size)
    k, _, _, _, pad, _, _, _ = geom
    p1, p2 = _padded(data1, pad), _padded(data2, pad)
    g1, g2 = np.zeros_like(p1), np.zeros_like(p2)
    og = ograds[0].astype(np.float64)[:, :, None] / float(k * k * data1.shape[1])
    mult = _bool(is_multiply)
    for tc, a, b in _windows(geom):
        g = og[:, tc]                                    # (N, 1, th, tw)
        if mult:
            g1[a] += g * p2[b]
            g2[b] += g * p1[a]
        else:
            sign = np.where(p1[a] >= p2[b], 1.0, -1.0)
            g1[a] += g * sign
            g2[b] -= g * sign
    h, w = data1.shape[2:]
    crop = (Ellipsis, slice(pad, pad + h), slice(pad, pad + w))
    return [_as(data1, g1[crop]), _as(data2, g2[crop])]


def _correlation_infer(in_shapes, in_dtypes, kernel_size=1, max_displacement=1, stride1=1,
                       stride2=1, pad_size=0, **_):
    s1, s2 = tuple(in_shapes[0]), tuple(in_shapes[1])
    if s1 != s2:
        raise ValueError(f"Correlation: data1 {s1} and data2 {s2} must have the same shape")
    _, _, _, _, _, th, tw, radius = _geometry(s1, kernel_size, max_displacement, stride1,
                                              stride2, pad_size)
    return [(s1[0], (2 * radius + 1) ** 2, th, tw)], [in_dtypes[0]]


def _correlation_cost(in_shapes, kernel_size=1, max_displacement=1, stride2=1, **_):
    radius = int(max_displacement) // max(int(stride2), 1)
    n, c, h, w = in_shapes[0]
    return max(1, n * c * h * w * (2 * radius + 1) ** 2 * int(kernel_size) ** 2)


defop("Correlation", _correlation, arg_names=("data1", "data2"), infer=_correlation_infer,
      grad=_correlation_grad, cost=_correlation_cost, params=dict(_PARAMS))
