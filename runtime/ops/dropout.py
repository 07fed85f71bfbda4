"""``Dropout``: a training kernel that masks, an inference kernel that copies.

``Dropout`` takes a ``numpy.random.Generator`` as the param ``rng``, like the random
operators in :mod:`.sampling` (the NDArray layer passes the context's generator and
serializes random ops on one engine variable); without it a fresh generator is used.
"""

import numpy as np

from .params import _as, parse_tuple
from .registry import defop, input_size


# -- Dropout ---------------------------------------------------------------------------
def _dropout_mask_shape(shape, axes):
    axes = parse_tuple(axes, "axes")
    shape = tuple(shape)
    for a in axes:
        if not -len(shape) <= a < len(shape):
            raise ValueError(f"Dropout: axes={axes} is out of range for data {shape}")
    drop = {a % len(shape) for a in axes}
    return tuple(1 if i in drop else n for i, n in enumerate(shape))


def _dropout_p(p):
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"Dropout: p={p} must be in [0, 1]")
    return p


def _dropout_train(data, p=0.5, mode="training", axes=(), cudnn_off=False, rng=None):
    p = _dropout_p(p)
    shape = _dropout_mask_shape(data.shape, axes)
    if p == 0.0:
        return data.view(), np.broadcast_to(np.ones(1, dtype=data.dtype), shape)
    gen = np.random.default_rng() if rng is None else rng
    keep = gen.random(shape, dtype=np.float32) >= p
    mask = keep.astype(data.dtype)
    if p < 1.0:
        mask *= 1.0 / (1.0 - p)
    else:   # as MXNet's kernel: x * mask / (1 - p) is 0 * inf, NaN everywhere
        mask[...] = np.nan
    return data * mask, mask


def _dropout(data, p=0.5, mode="training", axes=(), cudnn_off=False, rng=None):
    """Inference: the identity (and an all-ones mask), unless ``mode='always'``."""
    if mode == "always":
        return _dropout_train(data, p, mode, axes, cudnn_off, rng)
    if mode != "training":
        raise ValueError(f"Dropout: mode={mode!r} must be 'training' or 'always'")
    shape = _dropout_mask_shape(data.shape, axes)
    return data.view(), np.broadcast_to(np.ones(1, dtype=data.dtype), shape)


def _dropout_grad(ograds, inputs, outputs, **_):
    x = inputs[0]
    return [_as(x, ograds[0] * outputs[1])]


def _dropout_infer(in_shapes, in_dtypes, p=0.5, axes=(), **_):
    _dropout_p(p)
    shape = tuple(in_shapes[0])
    return [shape, _dropout_mask_shape(shape, axes)], [in_dtypes[0], in_dtypes[0]]


defop("Dropout", _dropout, train_kernel=_dropout_train, infer=_dropout_infer,
      grad=_dropout_grad, num_outputs=2, visible_outputs=1, cost=input_size,
      output_names=("output", "mask"),
      params={"p": 0.5, "mode": "training", "axes": (), "cudnn_off": False, "rng": None})
