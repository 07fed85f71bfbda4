"""``im2col`` and ``col2im`` (MXNet 1.x): an image's sliding windows as columns and
back. ``im2col`` of ``(N, C, *spatial)`` is ``(N, C * prod(kernel), L)`` (``L``
windows, channel-major rows as MXNet's), ``col2im`` sums overlapping windows into
``output_size``; each is the other's gradient."""
import itertools
import math

import numpy as np

from .params import parse_tuple
from .registry import defop

_PARAMS = {"kernel": (), "stride": (), "dilate": (), "pad": ()}


def _geometry(opname, spatial, kernel, stride, dilate, pad):
    kernel = parse_tuple(kernel, "kernel")
    nsp = len(kernel)
    if nsp < 1 or len(spatial) != nsp:
        raise ValueError(f"{opname}: kernel={tuple(kernel)} does not fit spatial size "
                         f"{tuple(spatial)}")

    def per_axis(v, default):
        v = parse_tuple(v, "param") if v not in (None, ()) else ()
        return tuple(v) if v else (default,) * nsp

    stride, dilate, pad = per_axis(stride, 1), per_axis(dilate, 1), per_axis(pad, 0)
    out = tuple((s + 2 * p - (d * (k - 1) + 1)) // st + 1
                for s, k, st, d, p in zip(spatial, kernel, stride, dilate, pad))
    if any(o < 1 for o in out):
        raise ValueError(f"{opname}: kernel={tuple(kernel)} with dilate={dilate} is larger "
                         f"than the padded input {tuple(spatial)} (pad={pad})")
    return tuple(kernel), stride, dilate, pad, out


def _offsets(kernel, stride, dilate, out):
    """For each kernel position: the slices into the padded image it reads."""
    for pos in itertools.product(*(range(k) for k in kernel)):
        yield tuple(slice(p * d, p * d + st * (o - 1) + 1, st)
                    for p, d, st, o in zip(pos, dilate, stride, out))


def _im2col(data, kernel=(), stride=(), dilate=(), pad=()):
    n, c = data.shape[:2]
    kernel, stride, dilate, pad, out = _geometry("im2col", data.shape[2:], kernel, stride,
                                                 dilate, pad)
    padded = np.pad(data, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    cols = np.empty((n, c, math.prod(kernel)) + out, dtype=data.dtype)
    for i, sl in enumerate(_offsets(kernel, stride, dilate, out)):
        cols[:, :, i] = padded[(slice(None), slice(None)) + sl]
    return cols.reshape(n, c * math.prod(kernel), math.prod(out))


def _col2im(data, output_size=(), kernel=(), stride=(), dilate=(), pad=()):
    size = parse_tuple(output_size, "output_size")
    kernel, stride, dilate, pad, out = _geometry("col2im", size, kernel, stride, dilate, pad)
    n = data.shape[0]
    c = data.shape[1] // math.prod(kernel)
    cols = data.reshape((n, c, math.prod(kernel)) + out)
    padded = np.zeros((n, c) + tuple(s + 2 * p for s, p in zip(size, pad)), dtype=data.dtype)
    for i, sl in enumerate(_offsets(kernel, stride, dilate, out)):
        padded[(slice(None), slice(None)) + sl] += cols[:, :, i]
    crop = tuple(slice(p, p + s) for p, s in zip(pad, size))
    return padded[(slice(None), slice(None)) + crop].copy()


def _im2col_infer(in_shapes, in_dtypes, kernel=(), stride=(), dilate=(), pad=(), **_):
    shape = tuple(in_shapes[0])
    kernel, _, _, _, out = _geometry("im2col", shape[2:], kernel, stride, dilate, pad)
    return [(shape[0], shape[1] * math.prod(kernel), math.prod(out))], [in_dtypes[0]]


def _col2im_infer(in_shapes, in_dtypes, output_size=(), kernel=(), stride=(), dilate=(),
                  pad=(), **_):
    shape = tuple(in_shapes[0])
    size = parse_tuple(output_size, "output_size")
    kernel, _, _, _, out = _geometry("col2im", size, kernel, stride, dilate, pad)
    k = math.prod(kernel)
    if len(shape) != 3 or shape[1] % k or shape[2] != math.prod(out):
        raise ValueError(f"col2im: data of shape {shape} does not hold the "
                         f"{math.prod(out)} windows of kernel={kernel} over {size}")
    return [(shape[0], shape[1] // k) + size], [in_dtypes[0]]


def _cost(in_shapes, kernel=(), **_):
    return max(1, math.prod(in_shapes[0]) * math.prod(parse_tuple(kernel, "kernel") or (1,)))


defop("im2col", _im2col, infer=_im2col_infer, cost=_cost, params=dict(_PARAMS),
      grad=lambda og, i, o, **p: [_col2im(og[0], i[0].shape[2:], **p)])
defop("col2im", _col2im, infer=_col2im_infer, cost=_cost,
      params=dict(_PARAMS, output_size=()),
      grad=lambda og, i, o, output_size=(), **p: [_im2col(og[0], **p)])
