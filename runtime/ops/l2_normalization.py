"""``L2Normalization`` (MXNet 1.x): ``x / sqrt(sum(x^2) + eps)`` over every axis but the
batch (``mode='instance'``), over the channels (``'channel'``: axis 1) or over the
spatial axes of each channel (``'spatial'``)."""
import numpy as np

from .params import _as
from .registry import defop, input_size

_MODES = ("instance", "channel", "spatial")


def _axes(mode, ndim):
    if mode not in _MODES:
        raise ValueError(f"L2Normalization: mode={mode!r} must be one of "
                         + ", ".join(_MODES))
    if mode == "instance":
        if ndim < 2:
            raise ValueError("L2Normalization: mode='instance' needs at least 2 dimensions")
        return tuple(range(1, ndim))
    if ndim < 3:
        raise ValueError(f"L2Normalization: mode={mode!r} needs at least 3 dimensions")
    return (1,) if mode == "channel" else tuple(range(2, ndim))


def _norm(x, eps, mode):
    return np.sqrt(np.square(x).sum(axis=_axes(mode, x.ndim), keepdims=True) + float(eps))


def _l2(data, eps=1e-10, mode="instance"):
    return _as(data, data / _norm(data, eps, mode))


def _l2_grad(ograds, inputs, outputs, eps=1e-10, mode="instance"):
    x, y, g = inputs[0], outputs[0], ograds[0]
    axes = _axes(mode, x.ndim)
    n = _norm(x, eps, mode)
    return [_as(x, (g - y * (g * y).sum(axis=axes, keepdims=True)) / n)]


def _l2_infer(in_shapes, in_dtypes, mode="instance", **_):
    _axes(mode, len(in_shapes[0]))
    return [tuple(in_shapes[0])], [in_dtypes[0]]


defop("L2Normalization", _l2, infer=_l2_infer, grad=_l2_grad, cost=input_size,
      params={"eps": 1e-10, "mode": "instance"})
