"""Convolution with one GEMM per sample: columns (n, g, prod(kernel) * c/g, prod(out)).

Used by :mod:`.conv` when the output rows are long (see ``conv._batch_last``). Each
sample's columns are small enough to stay in cache across its GEMM, and the layouts
line up with NCHW on both sides of every product: the forward writes (n, f, *out)
directly (no transposed copy of the result), the weight gradient reads the output
gradient as it comes (no transposed copy of it), and col2im reads the column gradient
in order. Measured on the first convolution of the CNN of
``benchmarks/bench_cnn_kernels.py`` (64x1x28x28, 20 filters 5x5; one BLAS thread):
forward GEMM 0.17 against 0.44 ms as one product over all samples, weight-gradient GEMM
0.25 against 0.53 ms (see docs/performance.md). ``np.matmul`` over the stacked samples
makes one BLAS call per sample (and group).

Rows of a sample's columns are ordered (kernel..., c/g), as the weight matrix of
``conv._weight_matrix``.
"""
import itertools

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .params import _size
from .workspace import _fresh, _into_scratch, _scratch

__all__ = ["im2col", "forward", "weight_and_bias_grad", "data_grad"]


def im2col(data, geom, fresh=False, ones=False):
    """Columns (n, g, prod(kernel) * c/g [+ 1], prod(out)) of ``data``, in a scratch
    array or (``fresh``) a new one; with ``ones`` a last row of ones per sample and group,
    so that the bias rides along in the GEMMs (its add and its gradient's sum are then
    no extra passes over the output)."""
    nsp, g, cg = geom.nsp, geom.g, geom.c // geom.g
    src = data
    if any(geom.pad):
        src = _into_scratch("src", data, range(2, nsp + 2), geom.pad)
    sn, sc, ssp = src.strides[0], src.strides[1], src.strides[2:]
    shape = (geom.n, g) + geom.kernel + (cg,) + geom.out
    strides = ((sn, cg * sc) + tuple(a * d for a, d in zip(ssp, geom.dilate)) + (sc,)
               + tuple(a * s for a, s in zip(ssp, geom.stride)))
    windows = as_strided(src, shape, strides, writeable=False)
    k = _size(geom.kernel) * cg
    cshape = (geom.n, g, k + int(ones), _size(geom.out))
    cols = np.empty(cshape, data.dtype) if fresh else _scratch("cols/n", cshape, data.dtype)
    np.copyto(cols[:, :, :k].reshape(shape), windows)
    if ones:
        cols[:, :, k] = 1
    return cols


def _per_group(a, geom, rows):
    """(n, rows * g, ...) data-like array as (n, g, rows, prod(out)) (a view)."""
    return a.reshape(geom.n, geom.g, rows, -1)


def forward(cols, wm, bias, geom):
    """A new (n, f, *out) output: ``wm`` (g, f/g, K) times each sample's columns (the
    columns end with a row of ones when there is a ``bias``)."""
    out = np.empty(geom.out_shape, cols.dtype)
    if bias is not None:
        g = geom.g
        wm = np.concatenate([wm, bias.reshape(g, geom.f // g, 1)], axis=2)
    np.matmul(wm, cols, out=_per_group(out, geom, geom.f // geom.g))
    return out


def weight_and_bias_grad(og, cols, geom, with_bias):
    """(dw as (g, f/g, K) view of a temporary, bias gradient (f,) or None); ``og`` is
    the (n, f, *out) output gradient, C-contiguous, ``cols`` the data's columns (with
    the row of ones when ``with_bias``)."""
    ogs = _per_group(og, geom, geom.f // geom.g)
    # per sample: (K, P) @ (P, f/g); the long P axis is inner in both operands
    per = np.matmul(cols, ogs.transpose(0, 1, 3, 2),
                    out=_scratch("dw/n", cols.shape[:3] + (ogs.shape[2],), og.dtype))
    total = per.sum(axis=0)                                  # (g, K [+ 1], f/g)
    k = _size(geom.kernel) * (geom.c // geom.g)
    dw = total[:, :k].transpose(0, 2, 1)                     # (g, f/g, K)
    db = total[:, k].reshape(-1) if with_bias else None
    return dw, db


def data_grad(og, wm, geom, dtype):
    """The data gradient, a new (n, c, *spatial) array: each sample's column gradient
    ``wm.T @ og`` scattered back with one strided add per kernel offset (col2im)."""
    nsp, g, cg = geom.nsp, geom.g, geom.c // geom.g
    ogs = _per_group(og, geom, geom.f // g)
    k = wm.shape[2]
    dcols = np.matmul(wm.transpose(0, 2, 1), ogs,
                      out=_scratch("dcols/n", (geom.n, g, k, ogs.shape[3]), dtype))
    padded = tuple(n + 2 * p for n, p in zip(geom.spatial, geom.pad))
    buf = _scratch("col2im/n", (geom.n, g, cg) + padded, dtype)
    buf.fill(0)
    dc = dcols.reshape((geom.n, g) + geom.kernel + (cg,) + geom.out)
    lead = (slice(None),) * 3
    for off in itertools.product(*(range(kk) for kk in geom.kernel)):
        region = tuple(slice(o * d, o * d + s * (n - 1) + 1, s)
                       for o, d, s, n in zip(off, geom.dilate, geom.stride, geom.out))
        target = buf[lead + region]
        target += dc[(slice(None), slice(None)) + off]
    crop = tuple(slice(p, p + n) for p, n in zip(geom.pad, geom.spatial))
    return _fresh(buf.reshape((geom.n, geom.c) + padded)[(slice(None), slice(None)) + crop])
