"""``UpSampling`` (MXNet 1.x), NCHW.

``sample_type='nearest'``: any number of inputs; input ``k`` is repeated up to the first
input's size times ``scale`` (each pixel a block), and the results are concatenated along
the channels (``multi_input_mode='concat'``) or summed (``'sum'``). The gradient of an
input sums its blocks.

``sample_type='bilinear'``: inputs ``data`` and ``weight`` (``(C, 1, k, k)``, ``k = 2 *
scale - scale % 2``, usually initialized by ``mx.init.Bilinear``): the grouped
``Deconvolution`` MXNet runs, with ``stride=scale``, ``pad=ceil((scale - 1) / 2)``,
``num_group=num_filter=C`` and no bias, so the output is ``scale`` times the input.
"""
import math

import numpy as np

from . import deconvolution as _deconv
from .params import _as
from .registry import defop

_PARAMS = {"scale": 1, "num_filter": 0, "sample_type": "nearest",
           "multi_input_mode": "concat", "num_args": 1, "workspace": 512}


def _check(sample_type, multi_input_mode):
    if sample_type not in ("nearest", "bilinear"):
        raise ValueError(f"UpSampling: sample_type={sample_type!r} must be 'nearest' or "
                         "'bilinear'")
    if multi_input_mode not in ("concat", "sum"):
        raise ValueError(f"UpSampling: multi_input_mode={multi_input_mode!r} must be "
                         "'concat' or 'sum'")


def _bilinear_params(scale, channels):
    s = int(scale)
    k = 2 * s - s % 2
    p = int(math.ceil((s - 1) / 2.0))
    return {"kernel": (k, k), "stride": (s, s), "pad": (p, p), "num_filter": channels,
            "num_group": channels, "no_bias": True}


def _factors(shapes, scale):
    """Each input's repeat factor: the first input's size times scale over its own."""
    out_h, out_w = shapes[0][2] * int(scale), shapes[0][3] * int(scale)
    factors = []
    for s in shapes:
        if len(s) != 4:
            raise ValueError(f"UpSampling: inputs must be 4-D (NCHW), got shape {tuple(s)}")
        if out_h % s[2] or out_w % s[3] or out_h // s[2] != out_w // s[3]:
            raise ValueError(f"UpSampling: input of shape {tuple(s)} does not scale to "
                             f"{out_h}x{out_w} by an integer factor")
        factors.append(out_h // s[2])
    return out_h, out_w, factors


def _upsampling(*inputs, scale=1, num_filter=0, sample_type="nearest",
                multi_input_mode="concat", num_args=1, workspace=512):
    _check(sample_type, multi_input_mode)
    if sample_type == "bilinear":
        data, weight = inputs[:2]
        return _deconv._deconv(data, weight, **_bilinear_params(scale, data.shape[1]))
    _, _, factors = _factors([x.shape for x in inputs], scale)
    ups = [x.repeat(f, axis=2).repeat(f, axis=3) for x, f in zip(inputs, factors)]
    if multi_input_mode == "sum":
        out = ups[0].copy()
        for u in ups[1:]:
            out += u
        return out
    return np.concatenate(ups, axis=1) if len(ups) > 1 else ups[0]


def _block_sum(g, f):
    n, c, h, w = g.shape
    return g.reshape(n, c, h // f, f, w // f, f).sum(axis=(3, 5))


def _upsampling_grad(ograds, inputs, outputs, scale=1, num_filter=0, sample_type="nearest",
                     multi_input_mode="concat", num_args=1, workspace=512):
    g = ograds[0]
    if sample_type == "bilinear":
        data, weight = inputs[:2]
        params = dict(_deconv._PARAMS, **_bilinear_params(scale, data.shape[1]))
        return list(_deconv._deconv_grad(ograds, [data, weight], outputs, **params))
    _, _, factors = _factors([x.shape for x in inputs], scale)
    grads, c0 = [], 0
    for x, f in zip(inputs, factors):
        part = g if multi_input_mode == "sum" else g[:, c0:c0 + x.shape[1]]
        c0 += x.shape[1]
        grads.append(_as(x, _block_sum(part, f)))
    return grads


def _upsampling_infer(in_shapes, in_dtypes, scale=1, num_filter=0, sample_type="nearest",
                      multi_input_mode="concat", **_):
    _check(sample_type, multi_input_mode)
    first = tuple(in_shapes[0])
    if sample_type == "bilinear":
        if len(first) != 4:
            raise ValueError(f"UpSampling: data must be 4-D (NCHW), got shape {first}")
        return [first[:2] + (first[2] * int(scale), first[3] * int(scale))], [in_dtypes[0]]
    out_h, out_w, _ = _factors(in_shapes, scale)
    if multi_input_mode == "sum":
        channels = first[1]
        if any(s[1] != channels for s in in_shapes):
            raise ValueError("UpSampling: multi_input_mode='sum' needs inputs with the same "
                             "number of channels")
    else:
        channels = sum(s[1] for s in in_shapes)
    return [(first[0], channels, out_h, out_w)], [in_dtypes[0]]


def _upsampling_infer_args(in_shapes, scale=1, sample_type="nearest", **_):
    if sample_type != "bilinear" or in_shapes[0] is None:
        return list(in_shapes)
    c = in_shapes[0][1]
    k = 2 * int(scale) - int(scale) % 2
    return [tuple(in_shapes[0]), (c, 1, k, k)] + list(in_shapes[2:])


def _upsampling_cost(in_shapes, scale=1, **_):
    return max(1, sum(math.prod(s) for s in in_shapes) * int(scale) ** 2)


defop("UpSampling", _upsampling, arg_names=("data",), variadic=True,
      infer=_upsampling_infer, infer_args=_upsampling_infer_args, grad=_upsampling_grad,
      cost=_upsampling_cost, params=dict(_PARAMS))
