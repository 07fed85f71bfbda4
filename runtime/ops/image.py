"""Image operators of MXNet 1.x's ``image`` namespace, registered as ``_image_<name>``
(``mx.nd.image.normalize`` is ``_image_normalize``): ``normalize`` (``(x - mean[c]) /
std[c]`` over the channel axis of a ``(C, H, W)`` or ``(N, C, H, W)`` image)."""
import numpy as np

from .params import _as
from .registry import defop, input_size


def _per_channel(values, c, name):
    v = np.asarray(values if isinstance(values, (tuple, list)) else
                   ([values] if values is not None else [0.0]), dtype=np.float64).ravel()
    if v.size == 1:
        v = np.repeat(v, c)
    if v.size != c:
        raise ValueError(f"image.normalize: {name} has {v.size} values for {c} channels")
    return v


def _geometry(shape, mean, std):
    if len(shape) not in (3, 4):
        raise ValueError(f"image.normalize: data must be (C, H, W) or (N, C, H, W), got "
                         f"{tuple(shape)}")
    c = shape[-3]
    view = (c, 1, 1)
    return _per_channel(mean, c, "mean").reshape(view), _per_channel(std, c, "std").reshape(view)


def _normalize(data, mean=(0.0,), std=(1.0,)):
    m, s = _geometry(data.shape, mean, std)
    return _as(data, (data - m) / s)


def _normalize_grad(ograds, inputs, outputs, mean=(0.0,), std=(1.0,)):
    _, s = _geometry(inputs[0].shape, mean, std)
    return [_as(inputs[0], ograds[0] / s)]


def _normalize_infer(in_shapes, in_dtypes, mean=(0.0,), std=(1.0,), **_):
    _geometry(tuple(in_shapes[0]), mean, std)
    return [tuple(in_shapes[0])], [in_dtypes[0]]


defop("_image_normalize", _normalize, infer=_normalize_infer, grad=_normalize_grad,
      cost=input_size, params={"mean": (0.0,), "std": (1.0,)})
