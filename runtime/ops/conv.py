"""``Convolution`` and the window geometry it shares with :mod:`.pooling`.

Layout. Convolution and Pooling take channel-first data: NCW, NCHW or NCDHW (``layout``
None or one of those). Convolution is an im2col: the windows of the (padded) input are
an ``as_strided`` view, copied once into a column matrix and multiplied by the weight
with one BLAS call per group; its data gradient is the transposed product scattered
back with one strided add per kernel offset (col2im). Two column orders exist and the
kernel picks the faster for the shape (see ``_batch_last``): per-sample columns
(n, K, oh * ow) with one GEMM per sample (:mod:`.conv_samples`), and batch-minor columns
(K, oh * ow * n) with one GEMM for the batch, whose contiguous runs stay long when the
output is small. The column matrix and the other large temporaries live in a per-thread
workspace (:mod:`.workspace`) instead of being allocated per call; results are always
fresh arrays.

Dtypes: every output and gradient has the dtype of the corresponding input; Python
scalars (never numpy float64 scalars) are mixed with arrays so float32 stays float32.
"""
import itertools

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .params import (_ACTIVE, _as, _bool, _check_arg_shapes, _positive_int, _size,
                     _without_bias, parse_tuple)
from .registry import defop
from .workspace import _Workspace, _fresh, _into_scratch, _scratch  # noqa: F401
from . import cols_keep, conv_samples

__all__ = ["conv_output_shape"]


# -- geometry shared by Convolution and Pooling -----------------------------------------
_LAYOUTS = {1: "NCW", 2: "NCHW", 3: "NCDHW"}


def _spatial_dims(dshape, layout, opname):
    nsp = len(dshape) - 2
    if nsp not in _LAYOUTS:
        raise ValueError(f"{opname}: data must be 3-D (NCW), 4-D (NCHW) or 5-D (NCDHW), "
                         f"got shape {tuple(dshape)}")
    if layout not in (None, "", "None", _LAYOUTS[nsp]):
        raise ValueError(f"{opname}: layout={layout!r} is not supported for "
                         f"{len(dshape)}-D data; use {_LAYOUTS[nsp]!r} (channels first)")
    return nsp


def _spatial(value, nsp, name, opname, default=None, minimum=1):
    t = parse_tuple(value, name)
    if not t:
        if default is None:
            raise ValueError(f"{opname}: {name} is required")
        t = (default,) * nsp
    if len(t) == 1 and nsp > 1:
        t = t * nsp
    if len(t) != nsp:
        raise ValueError(f"{opname}: {name}={t} has {len(t)} values for data with "
                         f"{nsp} spatial dimensions")
    if any(v is None or v < minimum for v in t):
        raise ValueError(f"{opname}: {name}={t} must have values >= {minimum}")
    return t


class _ConvGeom:
    """Shapes of one convolution: data (n, c, *spatial), weight (f, c // g, *kernel)."""

    __slots__ = ("n", "c", "spatial", "f", "g", "kernel", "stride", "dilate", "pad",
                 "out", "nsp")

    def __init__(self, dshape, kernel, stride, dilate, pad, num_filter, num_group, layout):
        opname = "Convolution"
        dshape = tuple(int(v) for v in dshape)
        self.nsp = nsp = _spatial_dims(dshape, layout, opname)
        self.n, self.c, self.spatial = dshape[0], dshape[1], dshape[2:]
        self.kernel = _spatial(kernel, nsp, "kernel", opname)
        self.stride = _spatial(stride, nsp, "stride", opname, default=1)
        self.dilate = _spatial(dilate, nsp, "dilate", opname, default=1)
        self.pad = _spatial(pad, nsp, "pad", opname, default=0, minimum=0)
        self.f = _positive_int(num_filter, "num_filter", opname)
        self.g = _positive_int(num_group, "num_group", opname)
        if self.c % self.g or self.f % self.g:
            raise ValueError(f"{opname}: num_group={self.g} must divide both the input "
                             f"channels ({self.c}) and num_filter ({self.f})")
        out = []
        for i, (n, k, s, d, p) in enumerate(zip(self.spatial, self.kernel, self.stride,
                                                self.dilate, self.pad)):
            extent, padded = d * (k - 1) + 1, n + 2 * p
            if extent > padded:
                raise ValueError(
                    f"{opname}: kernel={self.kernel} (dilated extent {extent} with "
                    f"dilate={self.dilate}) is larger than the padded input {padded} along "
                    f"spatial axis {i} (data {dshape}, pad={self.pad})")
            out.append((padded - extent) // s + 1)
        self.out = tuple(out)

    @property
    def weight_shape(self):
        return (self.f, self.c // self.g) + self.kernel

    @property
    def out_shape(self):
        return (self.n, self.f) + self.out


def conv_output_shape(dshape, **params):
    """The output shape of ``Convolution`` on data of ``dshape`` (validates params)."""
    return _conv_geom(dshape, params).out_shape


def _check_params(opname, params, known):
    unknown = set(params) - set(known)
    if unknown:
        raise ValueError(f"{opname}: unknown parameter(s) {sorted(unknown)}; known: "
                         f"{sorted(known)}")


def _conv_geom(dshape, params):
    _check_params("Convolution", params, _CONV_PARAMS)
    return _ConvGeom(dshape, params.get("kernel"), params.get("stride"),
                     params.get("dilate"), params.get("pad"), params.get("num_filter"),
                     params.get("num_group", 1), params.get("layout"))


def _batch_last(geom):
    """Column order for im2col: batch-minor (oh, ow, n) when output rows are short.

    Copies and strided adds run at full speed only over long contiguous runs. Per-sample
    columns have runs of ``ow`` elements; batch-minor ones runs of ``ow * n`` but need
    the input, output and output gradient transposed (one copy each). Measured on the
    CNN of benchmarks/bench_cnn_kernels.py: batch-minor wins for ow=8 (2.5x faster
    col2im than batch-major columns; per-sample GEMMs of 50x500x64 also lose to one
    GEMM for the weight gradient, 2.0 against 1.2 ms), per-sample for ow=24.
    """
    return geom.n > 1 and geom.out[-1] < 16


def _padded(x, spatial_axes, before, after, fill=0):
    """``x`` padded along ``spatial_axes`` (a contiguous copy if any pad is nonzero)."""
    if not any(before) and not any(after):
        return x
    shape = list(x.shape)
    inner = [slice(None)] * x.ndim
    for ax, b, a in zip(spatial_axes, before, after):
        inner[ax] = slice(b, b + shape[ax])
        shape[ax] += b + a
    out = np.full(shape, fill, dtype=x.dtype) if fill else np.zeros(shape, dtype=x.dtype)
    out[tuple(inner)] = x
    return out


def _to_batch_last(x, nsp):
    """(n, c, *sp) -> (c, *sp, n) view."""
    return x.transpose((1,) + tuple(range(2, nsp + 2)) + (0,))


def _from_batch_last(x, nsp):
    """(c, *sp, n) -> (n, c, *sp) view."""
    return x.transpose((nsp + 1, 0) + tuple(range(1, nsp + 1)))


def _im2col(data, geom, batch_last, fresh=False):
    """Columns (g, prod(kernel) * c/g, n * prod(out)), rows ordered (kernel..., c/g),
    in a scratch array or (``fresh``) a new one."""
    nsp, g, cg = geom.nsp, geom.g, geom.c // geom.g
    if batch_last:
        src = _into_scratch("src", _to_batch_last(data, nsp), range(1, nsp + 1), geom.pad)
        sc, ssp, sn = src.strides[0], src.strides[1:1 + nsp], src.strides[-1]
        shape = (g,) + geom.kernel + (cg,) + geom.out + (geom.n,)
        strides = ((cg * sc,) + tuple(a * d for a, d in zip(ssp, geom.dilate)) + (sc,)
                   + tuple(a * s for a, s in zip(ssp, geom.stride)) + (sn,))
    else:
        src = data
        if any(geom.pad):
            src = _into_scratch("src", data, range(2, nsp + 2), geom.pad)
        sn, sc, ssp = src.strides[0], src.strides[1], src.strides[2:]
        shape = (g,) + geom.kernel + (cg, geom.n) + geom.out
        strides = ((cg * sc,) + tuple(a * d for a, d in zip(ssp, geom.dilate)) + (sc, sn)
                   + tuple(a * s for a, s in zip(ssp, geom.stride)))
    windows = as_strided(src, shape, strides, writeable=False)
    cshape = (g, _size(geom.kernel) * cg, geom.n * _size(geom.out))
    cols = np.empty(cshape, data.dtype) if fresh else _scratch("cols", cshape, data.dtype)
    np.copyto(cols.reshape(shape), windows)
    return cols


def _weight_matrix(weight, geom):
    """Weight (f, c/g, *kernel) as (g, f/g, prod(kernel) * c/g), columns (kernel..., c/g)."""
    g, nsp = geom.g, geom.nsp
    w = weight.reshape((g, geom.f // g) + weight.shape[1:])
    w = w.transpose((0, 1) + tuple(range(3, 3 + nsp)) + (2,))
    return w.reshape(g, geom.f // g, -1)


def _bmm(a, b, out=None):
    """Batched matmul over a leading group axis; one plain BLAS call when there is one."""
    if out is None:
        out = np.empty((a.shape[0], a.shape[1], b.shape[2]), np.result_type(a, b))
    if a.shape[0] == 1:
        np.matmul(a[0], b[0], out=out[0])
    else:
        np.matmul(a, b, out=out)
    return out


def _conv_out_layout(mat, geom, batch_last):
    """(f, columns) -> a new (n, f, *out) array."""
    if batch_last:
        out = mat.reshape((geom.f,) + geom.out + (geom.n,))
        return _fresh(_from_batch_last(out, geom.nsp))
    out = mat.reshape((geom.f, geom.n) + geom.out)
    return _fresh(out.transpose((1, 0) + tuple(range(2, 2 + geom.nsp))))


def _conv_og_matrix(og, geom, batch_last):
    """(n, f, *out) -> (g, f/g, columns) in a scratch array."""
    if batch_last:
        m = _to_batch_last(og, geom.nsp)
    else:
        m = og.transpose((1, 0) + tuple(range(2, 2 + geom.nsp)))
    return _into_scratch("og", m).reshape(geom.g, geom.f // geom.g, -1)


def _col2im(dcols, geom, batch_last, dtype):
    """Scatter-add column gradients (g, prod(kernel) * c/g, columns) into a new data-
    shaped array."""
    nsp, g, cg = geom.nsp, geom.g, geom.c // geom.g
    padded = tuple(n + 2 * p for n, p in zip(geom.spatial, geom.pad))
    if batch_last:
        buf = _scratch("col2im", (g, cg) + padded + (geom.n,), dtype)
        dc = dcols.reshape((g,) + geom.kernel + (cg,) + geom.out + (geom.n,))
        lead = (slice(None), slice(None))
    else:
        buf = _scratch("col2im", (geom.n, g, cg) + padded, dtype)
        dc = dcols.reshape((g,) + geom.kernel + (cg, geom.n) + geom.out)
        lead = (slice(None),) * 3
        to_nchw = (2, 0, 1) + tuple(range(3, 3 + nsp))
    buf.fill(0)
    for off in itertools.product(*(range(k) for k in geom.kernel)):
        region = tuple(slice(o * d, o * d + s * (n - 1) + 1, s)
                       for o, d, s, n in zip(off, geom.dilate, geom.stride, geom.out))
        part = dc[(slice(None),) + off]
        target = buf[lead + region]
        target += part if batch_last else part.transpose(to_nchw)
    crop = tuple(slice(p, p + n) for p, n in zip(geom.pad, geom.spatial))
    if batch_last:
        dx = buf.reshape((geom.c,) + padded + (geom.n,))[(slice(None),) + crop]
        return _fresh(_from_batch_last(dx, nsp))
    return _fresh(buf.reshape((geom.n, geom.c) + padded)[(slice(None), slice(None)) + crop])


_CONV_PARAMS = {"kernel": (), "stride": (), "dilate": (), "pad": (), "num_filter": None,
                "num_group": 1, "workspace": 1024, "no_bias": False, "cudnn_tune": None,
                "cudnn_off": False, "layout": None}


def _cols_key(geom, batch_last, dtype, with_bias):
    """What a convolution's columns of one data array depend on besides its values."""
    return (geom.n, geom.c, geom.spatial, geom.kernel, geom.stride, geom.dilate, geom.pad,
            geom.g, batch_last, dtype.str, with_bias)


def _columns(data, geom, batch_last, with_bias, fresh=False):
    if batch_last:
        return _im2col(data, geom, True, fresh)
    return conv_samples.im2col(data, geom, fresh, ones=with_bias)


def _conv(data, weight, bias=None, **params):
    geom = _conv_geom(data.shape, params)
    batch_last = _batch_last(geom)
    wm = _weight_matrix(weight.astype(data.dtype, copy=False), geom)
    if bias is not None and not _bool(params.get("no_bias")):
        bias = bias.astype(data.dtype, copy=False)
    else:
        bias = None
    with_bias = bias is not None
    cols = _columns(data, geom, batch_last, with_bias, fresh=True)
    cols_keep.keep(data, _cols_key(geom, batch_last, data.dtype, with_bias), cols)
    if not batch_last:
        return conv_samples.forward(cols, wm, bias, geom)
    out = _bmm(wm, cols, _scratch("gemm", (geom.g, geom.f // geom.g, cols.shape[2]),
                                  data.dtype)).reshape(geom.f, -1)
    if bias is not None:
        out += bias.reshape(-1, 1)
    return _conv_out_layout(out, geom, batch_last)


def _conv_grad(ograds, inputs, outputs, _needs=None, **params):
    data, weight = inputs[:2]
    geom = _conv_geom(data.shape, params)
    batch_last = _batch_last(geom)
    cg, nsp = geom.c // geom.g, geom.nsp
    with_bias = len(inputs) > 2 and not _bool(params.get("no_bias"))
    need_dx = _needs is None or _needs[0]
    wm = _weight_matrix(weight.astype(data.dtype, copy=False), geom) if need_dx else None
    cols = cols_keep.take(data, _cols_key(geom, batch_last, data.dtype, with_bias))
    if cols is None:                                   # not kept: built again
        cols = _columns(data, geom, batch_last, with_bias)
    if not batch_last:
        og = np.ascontiguousarray(_as(data, ograds[0]))
        dw, db = conv_samples.weight_and_bias_grad(og, cols, geom, with_bias)
        # the data gradient is the costliest part: skip it when unneeded
        dx = conv_samples.data_grad(og, wm, geom, data.dtype) if need_dx else None
    else:
        og = _conv_og_matrix(_as(data, ograds[0]), geom, batch_last)   # (g, f/g, columns)
        # (g, kernel..., c/g, f/g), then viewed transposed: the long columns axis is the
        # inner one of both operands (no transposed operand for BLAS), 0.70-0.75x the time
        # of og @ cols.T on the CNN of benchmarks/bench_cnn_kernels.py
        dw = _bmm(cols, og.transpose(0, 2, 1)).transpose(0, 2, 1)      # (g, f/g, K)
        db = og.reshape(geom.f, -1).sum(axis=1) if with_bias else None
        dx = None
        if need_dx:
            dcols = _bmm(wm.transpose(0, 2, 1), og, _scratch("dcols", cols.shape, data.dtype))
            dx = _col2im(dcols, geom, batch_last, data.dtype)
    dw = dw.reshape((geom.f,) + geom.kernel + (cg,))
    dw = dw.transpose((0, nsp + 1) + tuple(range(1, nsp + 1)))
    grads = [dx, _as(weight, _fresh(dw))]
    if len(inputs) > 2:
        grads.append(_as(inputs[2], db) if with_bias else None)
    return grads


def _conv_arg_shapes(dshape, params):
    geom = _conv_geom(dshape, params)
    shapes = [tuple(dshape), geom.weight_shape]
    return geom, (shapes if _bool(params.get("no_bias")) else shapes + [(geom.f,)])


def _conv_infer(in_shapes, in_dtypes, **params):
    geom, expected = _conv_arg_shapes(in_shapes[0], params)
    _check_arg_shapes("Convolution", ("weight", "bias"), in_shapes[1:], expected[1:],
                      f"data {tuple(in_shapes[0])}, num_filter={geom.f}, "
                      f"num_group={geom.g}, kernel={geom.kernel}")
    return [geom.out_shape], [in_dtypes[0]]


def _conv_infer_args(in_shapes, **params):
    if in_shapes[0] is None:
        raise ValueError("Convolution: the data shape is needed to infer weight and bias "
                         "shapes")
    geom, expected = _conv_arg_shapes(in_shapes[0], params)
    _check_arg_shapes("Convolution", ("weight", "bias"), in_shapes[1:], expected[1:],
                      f"data {tuple(in_shapes[0])}, num_filter={geom.f}, "
                      f"num_group={geom.g}, kernel={geom.kernel}")
    return expected[:len(in_shapes)]


def _conv_cost(in_shapes, **params):
    geom = _conv_geom(in_shapes[0], params)
    return _size(geom.out_shape) * (geom.c // geom.g) * _size(geom.kernel)


defop("Convolution", _conv, arg_names=("data", "weight", "bias"), infer=_conv_infer,
      infer_args=_conv_infer_args, grad=_conv_grad, cost=_conv_cost,
      params=dict(_CONV_PARAMS), grad_needs=True, grad_reads=lambda p: ((0, 1), False))
_ACTIVE["Convolution"] = _without_bias
