"""``Deconvolution`` (transposed convolution), built from :mod:`.conv`'s im2col pieces.

A deconvolution of data ``(n, c, *in)`` with weight ``(c, f / g, *kernel)`` is the data
gradient of the ``Convolution`` that maps ``(n, f, *out)`` to ``(n, c, *in)`` with the
same weight, where ``out = stride * (in - 1) + dilate * (kernel - 1) + 1 - 2 * pad +
adj``. So its forward is that convolution's col2im, and its gradient is that
convolution's forward (for the data) and weight gradient (for the weight); the window
geometry is :class:`.conv._ConvGeom` of the equivalent convolution. As in MXNet,
``no_bias`` defaults to True, and a ``target_shape`` (the output's spatial size; all
zeros: not given) sets ``pad`` and ``adj`` instead of them.
"""
import numpy as np

from . import conv as _conv
from .params import (_ACTIVE, _as, _bool, _check_arg_shapes, _positive_int, _size,
                     _without_bias, parse_tuple)
from .registry import defop

__all__ = []

_PARAMS = {"kernel": (), "stride": (), "dilate": (), "pad": (), "adj": (),
           "target_shape": (), "num_filter": None, "num_group": 1, "workspace": 512,
           "no_bias": True, "cudnn_tune": None, "cudnn_off": False, "layout": None}


def _geom(dshape, params):
    """The geometry of the equivalent convolution (its data is this op's output)."""
    _conv._check_params("Deconvolution", params, _PARAMS)
    name = "Deconvolution"
    dshape = tuple(int(v) for v in dshape)
    nsp = _conv._spatial_dims(dshape, params.get("layout"), name)
    kernel = _conv._spatial(params.get("kernel"), nsp, "kernel", name)
    stride = _conv._spatial(params.get("stride"), nsp, "stride", name, default=1)
    dilate = _conv._spatial(params.get("dilate"), nsp, "dilate", name, default=1)
    pad = _conv._spatial(params.get("pad"), nsp, "pad", name, default=0, minimum=0)
    adj = _conv._spatial(params.get("adj"), nsp, "adj", name, default=0, minimum=0)
    target = parse_tuple(params.get("target_shape"), "target_shape")
    if any(target):
        pad, adj = _pad_for_target(dshape, kernel, stride, dilate, target, nsp)
    f = _positive_int(params.get("num_filter"), "num_filter", name)
    g = _positive_int(params.get("num_group", 1), "num_group", name)
    if any(a >= s and a for a, s in zip(adj, stride)):
        raise ValueError(f"Deconvolution: adj={adj} must be smaller than stride={stride}")
    out = tuple(s * (n - 1) + d * (k - 1) + 1 - 2 * p + a
                for n, k, s, d, p, a in zip(dshape[2:], kernel, stride, dilate, pad, adj))
    if any(o < 1 for o in out):
        raise ValueError(f"Deconvolution: data {dshape} with kernel={kernel}, "
                         f"stride={stride}, pad={pad} gives an empty output {out}")
    if dshape[1] % g or f % g:
        raise ValueError(f"Deconvolution: num_group={g} must divide both the input "
                         f"channels ({dshape[1]}) and num_filter ({f})")
    return _conv._ConvGeom((dshape[0], f) + out, kernel, stride, dilate, pad, dshape[1], g,
                           params.get("layout"))


def _pad_for_target(dshape, kernel, stride, dilate, target, nsp):
    """MXNet's ``pad`` and ``adj`` for an output of spatial size ``target``: the full
    output, ``stride * (in - 1) + dilate * (kernel - 1) + 1``, less ``target`` is padded
    away, half on each side, the odd one at the end (``adj``)."""
    if len(target) != nsp:
        raise ValueError(f"Deconvolution: target_shape={tuple(target)} needs {nsp} "
                         f"spatial sizes for data {dshape}")
    pad, adj = [], []
    for n, k, s, d, t in zip(dshape[2:], kernel, stride, dilate, target):
        total = s * (n - 1) + d * (k - 1) + 1 - t
        if total < 0:
            raise ValueError(f"Deconvolution: target_shape={tuple(target)} is larger than "
                             f"the full output {s * (n - 1) + d * (k - 1) + 1} of data "
                             f"{dshape} with kernel={kernel}, stride={stride}")
        pad.append((total + 1) // 2)
        adj.append(total % 2)
    return tuple(pad), tuple(adj)


def _deconv(data, weight, bias=None, **params):
    geom = _geom(data.shape, params)                       # conv: (n, f, *out) -> data
    bl = _conv._batch_last(geom)
    og = _conv._conv_og_matrix(data, geom, bl)             # (g, c/g, columns)
    wm = _conv._weight_matrix(weight.astype(data.dtype, copy=False), geom)
    dcols = _conv._bmm(wm.transpose(0, 2, 1), og,
                       _conv._scratch("dcols", (geom.g, wm.shape[2], og.shape[2]),
                                      data.dtype))
    out = _conv._col2im(dcols, geom, bl, data.dtype)       # (n, f, *out)
    if bias is not None and not _bool(params.get("no_bias", True)):
        out += bias.astype(data.dtype, copy=False).reshape((1, -1) + (1,) * geom.nsp)
    return out


def _deconv_grad(ograds, inputs, outputs, _needs=None, **params):
    data, weight = inputs[:2]
    geom = _geom(data.shape, params)
    bl = _conv._batch_last(geom)
    og = _as(data, ograds[0])
    cols = _conv._im2col(og, geom, bl)                     # windows of the output grad
    wm = _conv._weight_matrix(weight.astype(data.dtype, copy=False), geom)
    dx = None
    if _needs is None or _needs[0]:
        mat = _conv._bmm(wm, cols).reshape(geom.f, -1)      # the conv's forward
        dx = _conv._conv_out_layout(mat, geom, bl)
    dm = _conv._conv_og_matrix(data, geom, bl)
    cg, nsp = geom.c // geom.g, geom.nsp
    dw = _conv._bmm(dm, cols.transpose(0, 2, 1))
    dw = dw.reshape((geom.f,) + geom.kernel + (cg,))
    dw = dw.transpose((0, nsp + 1) + tuple(range(1, nsp + 1)))
    grads = [dx, _as(weight, _conv._fresh(dw))]
    if len(inputs) > 2:
        grads.append(None if _bool(params.get("no_bias", True))
                     else _as(inputs[2], og.sum(axis=(0,) + tuple(range(2, og.ndim)))))
    return grads


def _arg_shapes(dshape, params):
    geom = _geom(dshape, params)
    shapes = [tuple(dshape), (geom.f,) + (geom.c // geom.g,) + geom.kernel]
    return geom, (shapes if _bool(params.get("no_bias", True)) else shapes + [(geom.c,)])


def _context(dshape, geom):
    return (f"data {tuple(dshape)}, num_filter={geom.c}, num_group={geom.g}, "
            f"kernel={geom.kernel}")


def _deconv_infer(in_shapes, in_dtypes, **params):
    geom, expected = _arg_shapes(in_shapes[0], params)
    _check_arg_shapes("Deconvolution", ("weight", "bias"), in_shapes[1:], expected[1:],
                      _context(in_shapes[0], geom))
    return [(geom.n, geom.c) + geom.spatial], [in_dtypes[0]]


def _deconv_infer_args(in_shapes, **params):
    if in_shapes[0] is None:
        raise ValueError("Deconvolution: the data shape is needed to infer weight and "
                         "bias shapes")
    geom, expected = _arg_shapes(in_shapes[0], params)
    _check_arg_shapes("Deconvolution", ("weight", "bias"), in_shapes[1:], expected[1:],
                      _context(in_shapes[0], geom))
    return expected[:len(in_shapes)]


def _deconv_cost(in_shapes, **params):
    geom = _geom(in_shapes[0], params)
    return _size(in_shapes[0]) * (geom.c // geom.g) * _size(geom.kernel)


defop("Deconvolution", _deconv, arg_names=("data", "weight", "bias"), infer=_deconv_infer,
      infer_args=_deconv_infer_args, grad=_deconv_grad, cost=_deconv_cost,
      params=dict(_PARAMS), grad_needs=True)
_ACTIVE["Deconvolution"] = _without_bias
