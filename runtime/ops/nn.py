"""Neural-network operators: FullyConnected, Convolution, Pooling, activations, Dropout,
softmax family and the softmax loss heads.

Names, argument names and parameters follow MXNet 1.x. Each gradient sits next to its
kernel.

Optional inputs. ``FullyConnected`` and ``Convolution`` declare
``arg_names=("data", "weight", "bias")`` and ``LeakyReLU`` declares
``("data", "gamma")``, but which of them an op takes depends on its params (``no_bias``,
``act_type='prelu'``). :func:`active_args` gives the names actually taken; inputs are
always passed positionally in that order (``kernel(data, weight, num_hidden=10,
no_bias=True)``), and the gradient returns one array per input passed.
``infer_args(in_shapes, **params)`` takes one shape (or None when unknown) per active
argument and returns them all filled in, raising ``ValueError`` on a contradiction.

Layout. Convolution and Pooling take channel-first data: NCW, NCHW or NCDHW (``layout``
None or one of those). Convolution is an im2col: the windows of the (padded) input are
an ``as_strided`` view, copied once into a column matrix and multiplied by the weight
with one BLAS call per group; its data gradient is the transposed product scattered
back with one strided add per kernel offset (col2im). Two column orders exist and the
kernel picks the faster for the shape (see ``_batch_last``): batch-major columns
(n, oh, ow), and batch-minor columns (oh, ow, n) whose contiguous runs stay long when the
output is small. The column matrix and the other large temporaries live in a per-thread
workspace (``_Workspace``) instead of being allocated per call; results are always fresh
arrays. Pooling reduces with one elementwise ``maximum``/``add`` per kernel offset over
strided slices (a reshape followed by ``max`` over the window axes is ~25x slower in
numpy: reductions over short, strided axes are slow); when the windows tile the input
(stride == kernel, no pad) the gradient is written without a zero fill or accumulation.
Max pooling routes each window's gradient to its first maximum (row-major), as MXNet
does, so ties (all-zero windows after a relu) do not multiply the gradient.

Randomness. ``Dropout`` takes a ``numpy.random.Generator`` as the param ``rng``, like the
random operators in ``matrix.py`` (the NDArray layer passes the context's generator and
serializes random ops on one engine variable); without it a fresh generator is used.

Dtypes: every output and gradient has the dtype of the corresponding input; Python
scalars (never numpy float64 scalars) are mixed with arrays so float32 stays float32.
"""
import itertools
import threading
from collections import OrderedDict

import numpy as np
from numpy.lib.stride_tricks import as_strided

from . import registry as _registry
from .matrix import _bool, _size, parse_tuple
from .registry import defop, input_size, same_shape

__all__ = ["active_args", "conv_output_shape", "pool_output_shape"]


# -- optional inputs -----------------------------------------------------------------
_ACTIVE = {}


def active_args(op, params=None):
    """The argument names ``op`` (an OpDef or a name) takes under ``params``.

    FullyConnected/Convolution drop ``bias`` when ``no_bias``; LeakyReLU takes ``gamma``
    only for ``act_type='prelu'``; every other op takes all of ``op.arg_names``.
    """
    if isinstance(op, str):
        op = _registry.get(op)
    rule = _ACTIVE.get(op.name)
    if rule is None:
        return op.arg_names
    merged = dict(op.params)
    merged.update(params or {})
    return rule(merged)


def _without_bias(params):
    return ("data", "weight") if _bool(params.get("no_bias")) else ("data", "weight", "bias")


def _as(like, value):
    return value if value.dtype == like.dtype else value.astype(like.dtype)


def _check_arg_shapes(opname, names, given, expected, context):
    for name, g, e in zip(names, given, expected):
        if g is not None and tuple(g) != tuple(e):
            raise ValueError(f"{opname}: {name} has shape {tuple(g)}, expected {tuple(e)} "
                             f"for {context}")


def _positive_int(value, name, opname):
    if value is None:
        raise ValueError(f"{opname}: {name} is required")
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{opname}: {name}={value!r} is not an integer") from None
    if n < 1 or n != value and not isinstance(value, str):
        raise ValueError(f"{opname}: {name}={value!r} must be a positive integer")
    return n


# -- FullyConnected ----------------------------------------------------------------
def _fc_geometry(dshape, num_hidden, flatten):
    dshape = tuple(dshape)
    hidden = _positive_int(num_hidden, "num_hidden", "FullyConnected")
    if not dshape:
        raise ValueError("FullyConnected: data needs at least one dimension")
    if _bool(flatten):
        return hidden, _size(dshape[1:]), (dshape[0], hidden)
    return hidden, dshape[-1], dshape[:-1] + (hidden,)


def _fc_arg_shapes(dshape, num_hidden, no_bias, flatten):
    hidden, units, _ = _fc_geometry(dshape, num_hidden, flatten)
    shapes = [tuple(dshape), (hidden, units)]
    return shapes if _bool(no_bias) else shapes + [(hidden,)]


def _fc(data, weight, bias=None, num_hidden=None, no_bias=False, flatten=True):
    hidden, units, out_shape = _fc_geometry(data.shape, num_hidden, flatten)
    x = data.reshape(-1, units)
    out = x @ weight.T
    if bias is not None and not _bool(no_bias):
        out += bias
    return _as(data, out).reshape(out_shape)


def _fc_grad(ograds, inputs, outputs, num_hidden=None, no_bias=False, flatten=True):
    data, weight = inputs[:2]
    hidden, units, _ = _fc_geometry(data.shape, num_hidden, flatten)
    x = data.reshape(-1, units)
    og = ograds[0].reshape(-1, hidden)
    grads = [_as(data, og @ weight).reshape(data.shape), _as(weight, og.T @ x)]
    if len(inputs) > 2:
        bias = inputs[2]
        grads.append(None if _bool(no_bias) else _as(bias, og.sum(axis=0)))
    return grads


def _fc_infer(in_shapes, in_dtypes, num_hidden=None, no_bias=False, flatten=True, **_):
    expected = _fc_arg_shapes(in_shapes[0], num_hidden, no_bias, flatten)
    _check_arg_shapes("FullyConnected", ("weight", "bias"), in_shapes[1:], expected[1:],
                      f"data {tuple(in_shapes[0])} and num_hidden={num_hidden}")
    return [_fc_geometry(in_shapes[0], num_hidden, flatten)[2]], [in_dtypes[0]]


def _fc_infer_args(in_shapes, num_hidden=None, no_bias=False, flatten=True, **_):
    if in_shapes[0] is None:
        raise ValueError("FullyConnected: the data shape is needed to infer weight and "
                         "bias shapes")
    expected = _fc_arg_shapes(in_shapes[0], num_hidden, no_bias, flatten)
    _check_arg_shapes("FullyConnected", ("weight", "bias"), in_shapes[1:], expected[1:],
                      f"data {tuple(in_shapes[0])} and num_hidden={num_hidden}")
    return expected[:len(in_shapes)]


def _fc_cost(in_shapes, num_hidden=None, flatten=True, **_):
    hidden, units, out_shape = _fc_geometry(in_shapes[0], num_hidden, flatten)
    return _size(out_shape) * units


defop("FullyConnected", _fc, arg_names=("data", "weight", "bias"), infer=_fc_infer,
      infer_args=_fc_infer_args, grad=_fc_grad, cost=_fc_cost,
      params={"num_hidden": None, "no_bias": False, "flatten": True})
_ACTIVE["FullyConnected"] = _without_bias


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

    Copies and strided adds run at full speed only over long contiguous runs. Batch-major
    columns have runs of ``ow`` elements; batch-minor ones runs of ``ow * n`` but need
    the input, output and output gradient transposed (one copy each). Measured on the
    CNN of benchmarks/bench_cnn_kernels.py: batch-minor wins for ow=8 (2.5x faster
    col2im), batch-major for ow=24.
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


class _Workspace(threading.local):
    """Per-thread scratch arrays reused across calls, like MXNet's conv workspace.

    A 64x1x28x28 CNN step allocates ~50 MB of im2col temporaries. Fresh allocations of
    that size come from mmap and page-fault on first touch: the benchmark's step went
    from ~37 to ~22 ms when such memory was not handed back to the OS. Buffers are keyed
    by (role, shape, dtype), least recently used evicted past ``limit`` bytes per thread
    (a larger buffer is not kept). Only temporaries live here: whatever a kernel returns
    is a fresh array (see ``_fresh``), so nothing returned aliases a scratch buffer.
    """

    limit = 64 << 20

    def __init__(self):
        self.buffers = OrderedDict()
        self.nbytes = 0

    def get(self, role, shape, dtype):
        key = (role, shape, dtype)
        buf = self.buffers.pop(key, None)
        if buf is None:
            nbytes = _size(shape) * dtype.itemsize
            if nbytes > self.limit:            # too big to keep: a one-off allocation
                return np.empty(shape, dtype)
            while self.buffers and self.nbytes + nbytes > self.limit:
                _, old = self.buffers.popitem(last=False)
                self.nbytes -= old.nbytes
            buf = np.empty(shape, dtype)
            self.nbytes += buf.nbytes
        self.buffers[key] = buf
        return buf


_workspace = _Workspace()


def _scratch(role, shape, dtype):
    """A scratch array of this thread for ``role`` (contents undefined)."""
    return _workspace.get(role, tuple(shape), np.dtype(dtype))


def _fresh(view):
    """A new C-contiguous array with the values of ``view`` (never ``view``'s memory)."""
    out = np.empty(view.shape, view.dtype)
    np.copyto(out, view)
    return out


def _into_scratch(role, view, spatial_axes=(), pad=()):
    """``view`` copied into a scratch array, zero-padded by ``pad`` along ``spatial_axes``."""
    if not any(pad):
        buf = _scratch(role, view.shape, view.dtype)
        np.copyto(buf, view)
        return buf
    shape = list(view.shape)
    inner = [slice(None)] * view.ndim
    for ax, p in zip(spatial_axes, pad):
        inner[ax] = slice(p, p + shape[ax])
        shape[ax] += 2 * p
    buf = _scratch(role, shape, view.dtype)
    buf.fill(0)
    buf[tuple(inner)] = view
    return buf


def _im2col(data, geom, batch_last):
    """Columns (g, prod(kernel) * c/g, n * prod(out)), rows ordered (kernel..., c/g),
    in a scratch array."""
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
    cols = _scratch("cols", (g, _size(geom.kernel) * cg, geom.n * _size(geom.out)),
                    data.dtype)
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


def _conv(data, weight, bias=None, **params):
    geom = _conv_geom(data.shape, params)
    batch_last = _batch_last(geom)
    cols = _im2col(data, geom, batch_last)
    wm = _weight_matrix(weight.astype(data.dtype, copy=False), geom)
    out = _bmm(wm, cols, _scratch("gemm", (geom.g, geom.f // geom.g, cols.shape[2]),
                                  data.dtype)).reshape(geom.f, -1)
    if bias is not None and not _bool(params.get("no_bias")):
        out += bias.reshape(-1, 1).astype(data.dtype, copy=False)
    return _conv_out_layout(out, geom, batch_last)


def _conv_grad(ograds, inputs, outputs, _needs=None, **params):
    data, weight = inputs[:2]
    geom = _conv_geom(data.shape, params)
    batch_last = _batch_last(geom)
    og = _conv_og_matrix(_as(data, ograds[0]), geom, batch_last)   # (g, f/g, columns)
    cols = _im2col(data, geom, batch_last)                         # recomputed, not cached
    cg, nsp = geom.c // geom.g, geom.nsp
    dw = _bmm(og, cols.transpose(0, 2, 1))                         # (g, f/g, kernel..., c/g)
    dw = dw.reshape((geom.f,) + geom.kernel + (cg,))
    dw = dw.transpose((0, nsp + 1) + tuple(range(1, nsp + 1)))
    if _needs is None or _needs[0]:
        wm = _weight_matrix(weight.astype(data.dtype, copy=False), geom)
        dcols = _bmm(wm.transpose(0, 2, 1), og, _scratch("dcols", cols.shape, data.dtype))
        dx = _col2im(dcols, geom, batch_last, data.dtype)
    else:
        dx = None   # the data gradient is the costliest part: skip it when unneeded
    grads = [dx, _as(weight, _fresh(dw))]
    if len(inputs) > 2:
        bias = inputs[2]
        grads.append(None if _bool(params.get("no_bias"))
                     else _as(bias, og.reshape(geom.f, -1).sum(axis=1)))
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
      params=dict(_CONV_PARAMS), grad_needs=True)
_ACTIVE["Convolution"] = _without_bias


# -- Pooling ---------------------------------------------------------------------------
class _PoolGeom:
    __slots__ = ("nsp", "spatial", "kernel", "stride", "pad", "extra", "out", "glob")

    def __init__(self, dshape, kernel, pool_type, global_pool, pooling_convention, stride,
                 pad, layout):
        opname = "Pooling"
        dshape = tuple(int(v) for v in dshape)
        self.nsp = nsp = _spatial_dims(dshape, layout, opname)
        if pool_type not in ("max", "avg", "sum"):
            raise ValueError(f"Pooling: pool_type={pool_type!r} is not supported; use "
                             f"'max', 'avg' or 'sum'")
        self.spatial = dshape[2:]
        self.glob = _bool(global_pool)
        if self.glob:
            self.kernel, self.stride = self.spatial, (1,) * nsp
            self.pad = self.extra = (0,) * nsp
            self.out = (1,) * nsp
            return
        if pooling_convention not in ("valid", "full"):
            raise ValueError(f"Pooling: pooling_convention={pooling_convention!r} is not "
                             f"supported; use 'valid' or 'full'")
        self.kernel = _spatial(kernel, nsp, "kernel", opname)
        self.stride = _spatial(stride, nsp, "stride", opname, default=1)
        self.pad = _spatial(pad, nsp, "pad", opname, default=0, minimum=0)
        out, extra = [], []
        for i, (n, k, s, p) in enumerate(zip(self.spatial, self.kernel, self.stride,
                                             self.pad)):
            padded = n + 2 * p
            if k > padded:
                raise ValueError(f"Pooling: kernel={self.kernel} is larger than the padded "
                                 f"input {padded} along spatial axis {i} (data {dshape}, "
                                 f"pad={self.pad})")
            if pooling_convention == "valid":
                o = (padded - k) // s + 1
            else:
                o = -(-(padded - k) // s) + 1
            out.append(o)
            extra.append(max(0, (o - 1) * s + k - padded))
        self.out, self.extra = tuple(out), tuple(extra)

    def offsets(self):
        """Each kernel offset with the strided slices of the padded input it reads."""
        for off in itertools.product(*(range(k) for k in self.kernel)):
            yield tuple(slice(o, o + s * (n - 1) + 1, s)
                        for o, s, n in zip(off, self.stride, self.out))

    def tiles(self):
        """Whether the windows cover the input exactly once (stride == kernel, no pad)."""
        return (not any(self.pad) and not any(self.extra)
                and all(s == k and o * k == n for s, k, o, n in
                        zip(self.stride, self.kernel, self.out, self.spatial)))

    def overlapping(self):
        return any(s < k for s, k in zip(self.stride, self.kernel))

    def counts(self, count_include_pad, dtype):
        """Divisor of average pooling for each output position, shape (*out)."""
        per_axis = []
        for n, k, s, p, o in zip(self.spatial, self.kernel, self.stride, self.pad,
                                 self.out):
            start = np.arange(o) * s - p
            lo, hi = (-p, n + p) if count_include_pad else (0, n)
            per_axis.append(np.minimum(start + k, hi) - np.maximum(start, lo))
        c = per_axis[0]
        for a in per_axis[1:]:
            c = np.multiply.outer(c, a)
        return np.maximum(c, 1).astype(dtype)


_POOL_PARAMS = {"kernel": (), "pool_type": "max", "global_pool": False, "cudnn_off": False,
                "pooling_convention": "valid", "stride": (), "pad": (), "p_value": None,
                "count_include_pad": None, "layout": None}


def _pool_geom(dshape, params):
    _check_params("Pooling", params, _POOL_PARAMS)
    return _PoolGeom(dshape, params.get("kernel"), params.get("pool_type", "max"),
                     params.get("global_pool", False),
                     params.get("pooling_convention", "valid"), params.get("stride"),
                     params.get("pad"), params.get("layout"))


def pool_output_shape(dshape, **params):
    """The output shape of ``Pooling`` on data of ``dshape`` (validates params)."""
    geom = _pool_geom(dshape, params)
    return tuple(dshape[:2]) + geom.out


def _lowest(dtype):
    if np.issubdtype(dtype, np.floating):
        return -np.inf
    return np.iinfo(dtype).min


def _include_pad(params):
    value = params.get("count_include_pad")
    return True if value is None else _bool(value)


def _pool(data, **params):
    geom = _pool_geom(data.shape, params)
    pool_type = params.get("pool_type", "max")
    axes = tuple(range(2, 2 + geom.nsp))
    if geom.glob:
        if pool_type == "max":
            return data.max(axis=axes, keepdims=True)
        out = data.sum(axis=axes, keepdims=True)
        if pool_type == "avg":
            out /= _size(geom.spatial)
        return _as(data, out)
    fill = _lowest(data.dtype) if pool_type == "max" else 0
    xp = _padded(data, axes, geom.pad, tuple(p + e for p, e in zip(geom.pad, geom.extra)),
                 fill)
    out = None
    reduce = np.maximum if pool_type == "max" else np.add
    lead = (slice(None), slice(None))
    for region in geom.offsets():
        part = xp[lead + region]
        if out is None:
            out = part.copy()
        else:
            reduce(out, part, out=out)
    if pool_type == "avg":
        out /= geom.counts(_include_pad(params), data.dtype)
    return out


def _pool_grad(ograds, inputs, outputs, **params):
    data = inputs[0]
    geom = _pool_geom(data.shape, params)
    pool_type = params.get("pool_type", "max")
    og, out = ograds[0], outputs[0]
    axes = tuple(range(2, 2 + geom.nsp))
    if geom.glob:
        if pool_type == "max":
            flat = data.reshape(data.shape[:2] + (-1,))
            first = flat.argmax(axis=-1)[..., None]
            g = np.zeros_like(flat)
            np.put_along_axis(g, first, og.reshape(first.shape), axis=-1)
            return [g.reshape(data.shape)]
        scale = 1.0 / _size(geom.spatial) if pool_type == "avg" else 1.0
        return [_as(data, np.broadcast_to(og * scale, data.shape).copy())]
    padded = tuple(n + p + p + e for n, p, e in zip(geom.spatial, geom.pad, geom.extra))
    overlap = geom.overlapping()
    # Windows that tile the input exactly write every element once: no zero fill needed.
    alloc = np.empty if geom.tiles() else np.zeros
    gxp = alloc(data.shape[:2] + padded, dtype=data.dtype)
    lead = (slice(None), slice(None))
    if pool_type == "max":
        xp = _padded(data, axes, geom.pad, tuple(p + e for p, e in zip(geom.pad, geom.extra)),
                     _lowest(data.dtype))
        regions = list(geom.offsets())
        avail = None       # windows whose max has not been routed yet (first max wins)
        for i, region in enumerate(regions):
            hit = np.equal(xp[lead + region], out)
            if avail is None:
                avail = ~hit
            else:
                hit &= avail
                if i + 1 < len(regions):
                    avail ^= hit
            if overlap:
                gxp[lead + region] += og * hit
            else:
                np.multiply(og, hit, out=gxp[lead + region])
    else:
        g = og / geom.counts(_include_pad(params), data.dtype) if pool_type == "avg" else og
        for region in geom.offsets():
            if overlap:
                gxp[lead + region] += g
            else:
                gxp[lead + region] = g
    crop = tuple(slice(p, p + n) for p, n in zip(geom.pad, geom.spatial))
    gx = gxp[lead + crop]
    return [_as(data, gx if gx.base is None and gx.flags.c_contiguous
                else np.ascontiguousarray(gx))]


def _pool_infer(in_shapes, in_dtypes, **params):
    return [pool_output_shape(in_shapes[0], **params)], [in_dtypes[0]]


def _pool_cost(in_shapes, **params):
    geom = _pool_geom(in_shapes[0], params)
    return _size(in_shapes[0][:2]) * _size(geom.out) * _size(geom.kernel)


defop("Pooling", _pool, infer=_pool_infer, grad=_pool_grad, cost=_pool_cost,
      params=dict(_POOL_PARAMS))


# -- activations -----------------------------------------------------------------------
def _sigmoid(x):
    # 0.5 * (1 + tanh(x / 2)) is the logistic function without exp overflow warnings.
    out = np.tanh(x * 0.5)
    out += 1
    out *= 0.5
    return out


def _softrelu(x):
    return np.logaddexp(x, 0)


_ACTIVATIONS = {
    # act_type: (forward, gradient from (og, x, out))
    "relu": (lambda x: np.maximum(x, 0), lambda og, x, o: og * (o > 0)),
    "sigmoid": (_sigmoid, lambda og, x, o: og * (o * (1 - o))),
    "tanh": (np.tanh, lambda og, x, o: og * (1 - o * o)),
    "softrelu": (_softrelu, lambda og, x, o: og * _sigmoid(x)),
    "softsign": (lambda x: x / (1 + np.abs(x)),
                 lambda og, x, o: og / np.square(1 + np.abs(x))),
    "log_sigmoid": (lambda x: -_softrelu(-x), lambda og, x, o: og * _sigmoid(-x)),
    "mish": (lambda x: x * np.tanh(_softrelu(x)),
             lambda og, x, o: og * _mish_slope(x)),
}


def _mish_slope(x):
    t = np.tanh(_softrelu(x))
    return t + x * (1 - t * t) * _sigmoid(x)


def _act_fns(act_type):
    try:
        return _ACTIVATIONS[act_type]
    except KeyError:
        raise ValueError(f"Activation: act_type={act_type!r} is not one of "
                         f"{sorted(_ACTIVATIONS)}") from None


def _activation(data, act_type="relu"):
    return _as(data, _act_fns(act_type)[0](data))


def _activation_grad(ograds, inputs, outputs, act_type="relu"):
    x = inputs[0]
    return [_as(x, _act_fns(act_type)[1](ograds[0], x, outputs[0]))]


def _activation_infer(in_shapes, in_dtypes, act_type="relu", **_):
    _act_fns(act_type)
    return same_shape(in_shapes, in_dtypes)


defop("Activation", _activation, infer=_activation_infer, grad=_activation_grad,
      cost=input_size,
      params={"act_type": "relu"})


_SELU_ALPHA = 1.6732632423543772
_SELU_LAMBDA = 1.0507009873234985
_GELU_C = 0.7978845608028654      # sqrt(2 / pi); MXNet's gelu is the tanh approximation
_GELU_K = 0.044715


def _gelu_parts(x):
    inner = _GELU_C * (x + _GELU_K * x * x * x)
    return inner, np.tanh(inner)


def _leaky_check(act_type):
    if act_type not in ("leaky", "elu", "selu", "gelu", "prelu"):
        raise ValueError(f"LeakyReLU: act_type={act_type!r} is not supported; use "
                         f"'leaky', 'elu', 'selu', 'gelu' or 'prelu'")


def _gamma_view(gamma, ndim):
    """PReLU's gamma (c,) or (1,) broadcast against (n, c, ...)."""
    return gamma.reshape((1, -1) + (1,) * (ndim - 2)) if ndim >= 2 else gamma


def _leaky(data, gamma=None, act_type="leaky", slope=0.25, lower_bound=0.125,
           upper_bound=0.334):
    _leaky_check(act_type)
    x = data
    slope = float(slope)
    if act_type == "leaky":
        out = np.where(x > 0, x, x * slope)
    elif act_type == "prelu":
        if gamma is None:
            raise ValueError("LeakyReLU: act_type='prelu' needs the gamma input")
        out = np.where(x > 0, x, x * _gamma_view(gamma, x.ndim))
    elif act_type == "elu":
        out = np.where(x > 0, x, slope * np.expm1(np.minimum(x, 0)))
    elif act_type == "selu":
        out = _SELU_LAMBDA * np.where(x > 0, x, _SELU_ALPHA * np.expm1(np.minimum(x, 0)))
    else:
        out = 0.5 * x * (1 + _gelu_parts(x)[1])
    return _as(data, out)


def _leaky_grad(ograds, inputs, outputs, act_type="leaky", slope=0.25, lower_bound=0.125,
                upper_bound=0.334):
    x, og = inputs[0], ograds[0]
    slope = float(slope)
    pos = x > 0
    if act_type == "leaky":
        return [_as(x, og * np.where(pos, 1, slope).astype(x.dtype))]
    if act_type == "prelu":
        gamma = inputs[1]
        gv = _gamma_view(gamma, x.ndim)
        gx = og * np.where(pos, 1, gv)
        gg = np.where(pos, 0, og * x)
        if x.ndim >= 2:
            gg = gg.sum(axis=tuple(i for i in range(x.ndim) if i != 1))
        else:
            gg = gg.sum(keepdims=True)
        if gamma.size == 1:
            gg = gg.sum(keepdims=True)
        return [_as(x, gx), _as(gamma, gg.reshape(gamma.shape))]
    if act_type == "elu":
        return [_as(x, og * np.where(pos, 1, slope * np.exp(np.minimum(x, 0))))]
    if act_type == "selu":
        return [_as(x, og * (_SELU_LAMBDA * np.where(
            pos, 1, _SELU_ALPHA * np.exp(np.minimum(x, 0)))))]
    inner, t = _gelu_parts(x)
    d_inner = _GELU_C * (1 + 3 * _GELU_K * x * x)
    return [_as(x, og * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * d_inner))]


def _leaky_infer(in_shapes, in_dtypes, act_type="leaky", **_):
    _leaky_check(act_type)
    if act_type == "prelu" and len(in_shapes) > 1 and in_shapes[1] is not None:
        expected = _prelu_gamma_shape(in_shapes[0])
        if tuple(in_shapes[1]) not in (expected, (1,)):
            raise ValueError(f"LeakyReLU: gamma has shape {tuple(in_shapes[1])}, expected "
                             f"{expected} or (1,) for data {tuple(in_shapes[0])}")
    return [tuple(in_shapes[0])], [in_dtypes[0]]


def _prelu_gamma_shape(dshape):
    return (dshape[1],) if len(dshape) >= 2 else (1,)


def _leaky_infer_args(in_shapes, act_type="leaky", **_):
    shapes = list(in_shapes)
    if act_type == "prelu" and len(shapes) > 1 and shapes[1] is None:
        if shapes[0] is None:
            raise ValueError("LeakyReLU: the data shape is needed to infer gamma's shape")
        shapes[1] = _prelu_gamma_shape(shapes[0])
    return shapes


defop("LeakyReLU", _leaky, arg_names=("data", "gamma"), infer=_leaky_infer,
      infer_args=_leaky_infer_args, grad=_leaky_grad, cost=input_size,
      params={"act_type": "leaky", "slope": 0.25, "lower_bound": 0.125,
              "upper_bound": 0.334})
_ACTIVE["LeakyReLU"] = lambda p: (("data", "gamma") if p.get("act_type") == "prelu"
                                  else ("data",))


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


# -- softmax family ------------------------------------------------------------------
def _softmax_fwd(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    e = np.exp(shifted)
    e /= e.sum(axis=axis, keepdims=True)
    return e


def _log_softmax_fwd(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    shifted -= np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    return shifted


def _scaled(x, temperature):
    if temperature is None or float(temperature) == 1.0:
        return x
    return x / float(temperature)


def _sm_axis(axis, ndim, opname):
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"{opname}: axis {axis} is out of range for an array of "
                         f"{ndim} dimensions")
    return axis % ndim


def _softmax(data, axis=-1, temperature=None, dtype=None, use_length=False):
    out = _softmax_fwd(_scaled(data, temperature), _sm_axis(axis, data.ndim, "softmax"))
    return out.astype(dtype or data.dtype, copy=False)


def _softmax_grad(ograds, inputs, outputs, axis=-1, temperature=None, dtype=None,
                  use_length=False):
    x, o, og = inputs[0], outputs[0], ograds[0]
    ax = _sm_axis(axis, x.ndim, "softmax")
    g = o * (og - (og * o).sum(axis=ax, keepdims=True))
    return [_as(x, _scaled(g, temperature))]


def _log_softmax(data, axis=-1, temperature=None, dtype=None, use_length=False):
    out = _log_softmax_fwd(_scaled(data, temperature),
                           _sm_axis(axis, data.ndim, "log_softmax"))
    return out.astype(dtype or data.dtype, copy=False)


def _log_softmax_grad(ograds, inputs, outputs, axis=-1, temperature=None, dtype=None,
                      use_length=False):
    x, o, og = inputs[0], outputs[0], ograds[0]
    ax = _sm_axis(axis, x.ndim, "log_softmax")
    g = og - np.exp(o) * og.sum(axis=ax, keepdims=True)
    return [_as(x, _scaled(g, temperature))]


def _softmax_infer(opname):
    def infer(in_shapes, in_dtypes, axis=-1, dtype=None, use_length=False, **_):
        if _bool(use_length):
            raise ValueError(f"{opname}: use_length=True is not supported")
        _sm_axis(axis, len(in_shapes[0]), opname)
        return [tuple(in_shapes[0])], [np.dtype(dtype) if dtype else in_dtypes[0]]
    return infer


_SOFTMAX_PARAMS = {"axis": -1, "temperature": None, "dtype": None, "use_length": False}
defop("softmax", _softmax, infer=_softmax_infer("softmax"), grad=_softmax_grad,
      cost=input_size,
      params=dict(_SOFTMAX_PARAMS))
defop("log_softmax", _log_softmax, infer=_softmax_infer("log_softmax"),
      grad=_log_softmax_grad, cost=input_size, params=dict(_SOFTMAX_PARAMS))


# -- SoftmaxOutput and softmax_cross_entropy ----------------------------------------------
def _so_layout(dshape, multi_output, preserve_shape):
    """(axis of the classes in the working view, working shape, label shape)."""
    dshape = tuple(dshape)
    if len(dshape) < 1:
        raise ValueError("SoftmaxOutput: data needs at least one dimension")
    if _bool(multi_output):
        if len(dshape) < 2:
            raise ValueError(f"SoftmaxOutput: multi_output needs data (n, k, ...), got "
                             f"{dshape}")
        return 1, dshape, (dshape[0],) + dshape[2:]
    if _bool(preserve_shape):
        return len(dshape) - 1, dshape, dshape[:-1]
    work = (dshape[0], _size(dshape[1:]))
    return 1, work, (dshape[0],)


def _so_check_label(dshape, lshape, multi_output, preserve_shape):
    _, work, expected = _so_layout(dshape, multi_output, preserve_shape)
    lshape = tuple(lshape)
    if lshape != expected and _size(lshape) != _size(expected):
        raise ValueError(f"SoftmaxOutput: label has shape {lshape}, expected {expected} "
                         f"for data {tuple(dshape)}")
    return expected


_SO_PARAMS = {"grad_scale": 1.0, "ignore_label": -1.0, "multi_output": False,
              "use_ignore": False, "preserve_shape": False, "normalization": "null",
              "out_grad": False, "smooth_alpha": 0.0}


def _softmax_output(data, label, grad_scale=1.0, ignore_label=-1.0, multi_output=False,
                    use_ignore=False, preserve_shape=False, normalization="null",
                    out_grad=False, smooth_alpha=0.0):
    axis, work, _ = _so_layout(data.shape, multi_output, preserve_shape)
    return _softmax_fwd(data.reshape(work), axis).reshape(data.shape)


def _softmax_output_grad(ograds, inputs, outputs, grad_scale=1.0, ignore_label=-1.0,
                         multi_output=False, use_ignore=False, preserve_shape=False,
                         normalization="null", out_grad=False, smooth_alpha=0.0):
    """(softmax - one_hot(label)) * grad_scale / normalizer; the output gradient is
    ignored unless ``out_grad`` (as in MXNet: the op is a loss head)."""
    data, label = inputs
    axis, work, lshape = _so_layout(data.shape, multi_output, preserve_shape)
    prob = outputs[0].reshape(work)
    k = work[axis]
    lab = label.reshape(lshape)
    idx = np.clip(lab.astype(np.int64), 0, k - 1)
    idx = np.expand_dims(idx, axis)
    g = prob.copy()
    alpha = float(smooth_alpha)
    if alpha:
        g -= alpha / (k - 1) if k > 1 else 0.0
        np.put_along_axis(g, idx, np.take_along_axis(prob, idx, axis) - (1.0 - alpha), axis)
    else:
        np.put_along_axis(g, idx, np.take_along_axis(prob, idx, axis) - 1.0, axis)
    valid = None
    if _bool(use_ignore):
        valid = lab != float(ignore_label)
        g *= np.expand_dims(valid, axis)
    if normalization == "batch":
        scale = float(grad_scale) / work[0]
    elif normalization == "valid":
        count = int(valid.sum()) if valid is not None else lab.size
        scale = float(grad_scale) / max(count, 1)
    elif normalization == "null":
        scale = float(grad_scale)
    else:
        raise ValueError(f"SoftmaxOutput: normalization={normalization!r} must be "
                         f"'null', 'batch' or 'valid'")
    g *= scale
    g = g.reshape(data.shape)
    if _bool(out_grad):
        g *= ograds[0]
    return [_as(data, g), np.zeros_like(label)]


def _softmax_output_infer(in_shapes, in_dtypes, multi_output=False, preserve_shape=False,
                          normalization="null", **_):
    if normalization not in ("null", "batch", "valid"):
        raise ValueError(f"SoftmaxOutput: normalization={normalization!r} must be "
                         f"'null', 'batch' or 'valid'")
    if len(in_shapes) > 1 and in_shapes[1] is not None:
        _so_check_label(in_shapes[0], in_shapes[1], multi_output, preserve_shape)
    return [tuple(in_shapes[0])], [in_dtypes[0]]


def _softmax_output_infer_args(in_shapes, multi_output=False, preserve_shape=False, **_):
    if in_shapes[0] is None:
        raise ValueError("SoftmaxOutput: the data shape is needed to infer the label shape")
    label = _so_layout(in_shapes[0], multi_output, preserve_shape)[2]
    given = in_shapes[1] if len(in_shapes) > 1 else None
    if given is not None:
        _so_check_label(in_shapes[0], given, multi_output, preserve_shape)
        label = tuple(given)
    return [tuple(in_shapes[0]), label]


defop("SoftmaxOutput", _softmax_output, arg_names=("data", "label"),
      infer=_softmax_output_infer, infer_args=_softmax_output_infer_args,
      grad=_softmax_output_grad, cost=input_size, params=dict(_SO_PARAMS))


def _sce_check(dshape, lshape):
    dshape, lshape = tuple(dshape), tuple(lshape)
    if len(dshape) != 2 or lshape != dshape[:1]:
        raise ValueError(f"softmax_cross_entropy: data must be (n, k) and label (n,), got "
                         f"data {dshape} and label {lshape}")


def _sce(data, label):
    _sce_check(data.shape, label.shape)
    logp = _log_softmax_fwd(data, 1)
    idx = np.clip(label.astype(np.int64), 0, data.shape[1] - 1)[:, None]
    return -np.take_along_axis(logp, idx, 1).sum(keepdims=True).reshape(1)


def _sce_grad(ograds, inputs, outputs):
    data, label = inputs
    g = _softmax_fwd(data, 1)
    idx = np.clip(label.astype(np.int64), 0, data.shape[1] - 1)[:, None]
    np.put_along_axis(g, idx, np.take_along_axis(g, idx, 1) - 1.0, 1)
    g *= ograds[0].reshape(())
    return [_as(data, g), np.zeros_like(label)]


def _sce_infer(in_shapes, in_dtypes, **_):
    _sce_check(in_shapes[0], in_shapes[1])
    return [(1,)], [in_dtypes[0]]


defop("softmax_cross_entropy", _sce, arg_names=("data", "label"), infer=_sce_infer,
      grad=_sce_grad, cost=lambda in_shapes, **_: _size(in_shapes[0]))
