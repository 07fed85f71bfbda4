"""Index arithmetic and gathers by index tuples (MXNet 1.x): ``batch_take``,
``gather_nd``, ``scatter_nd``, ``ravel_multi_index``, ``unravel_index``.

``gather_nd(data, indices)``: ``indices`` of shape ``(M, *rest)`` picks
``data[indices[0], ..., indices[M-1]]`` (negative indices count from the end; out of
range is an ``IndexError`` at the sync point), shaped ``rest + data.shape[M:]``;
``scatter_nd`` is its adjoint into zeros of ``shape``.
"""
import math

import numpy as np

from .params import _zeros_grad, parse_tuple
from .registry import defop, input_size


# -- batch_take: a[i, indices[i]] --------------------------------------------------------------
def _batch_take(a, indices):
    idx = np.clip(np.asarray(indices).reshape(-1).astype(np.int64), 0, a.shape[-1] - 1)
    rows = a.reshape(-1, a.shape[-1])
    return rows[np.arange(rows.shape[0]), idx]


def _batch_take_grad(ograds, inputs, outputs):
    a, indices = inputs
    idx = np.clip(np.asarray(indices).reshape(-1).astype(np.int64), 0, a.shape[-1] - 1)
    g = np.zeros((math.prod(a.shape[:-1]), a.shape[-1]), dtype=a.dtype)
    g[np.arange(g.shape[0]), idx] = ograds[0].reshape(-1)
    return [g.reshape(a.shape), np.zeros_like(indices)]


def _batch_take_infer(in_shapes, in_dtypes, **_):
    a, i = tuple(in_shapes[0]), tuple(in_shapes[1])
    if math.prod(a[:-1]) != math.prod(i):
        raise ValueError(f"batch_take: indices of shape {i} must have one entry per row of "
                         f"a {a}")
    return [i], [in_dtypes[0]]


defop("batch_take", _batch_take, arg_names=("a", "indices"), infer=_batch_take_infer,
      grad=_batch_take_grad, cost=input_size)


# -- gather_nd, scatter_nd ----------------------------------------------------------------------
def _nd_index(indices, shape, opname):
    idx = np.asarray(indices).astype(np.int64)
    m = idx.shape[0]
    if m > len(shape):
        raise ValueError(f"{opname}: indices index {m} axes of an array with {len(shape)}")
    out = []
    for k in range(m):
        n = shape[k]
        bad = (idx[k] >= n) | (idx[k] < -n)
        if np.any(bad):
            v = int(idx[k][bad].flat[0])
            raise IndexError(f"{opname}: index {v} is out of bounds for axis {k} with "
                             f"size {n}")
        out.append(np.where(idx[k] < 0, idx[k] + n, idx[k]))
    return tuple(out)


def _gather_nd(data, indices):
    return data[_nd_index(indices, data.shape, "gather_nd")].copy()


def _gather_nd_grad(ograds, inputs, outputs):
    data, indices = inputs
    g = np.zeros_like(data)
    np.add.at(g, _nd_index(indices, data.shape, "gather_nd"), ograds[0])
    return [g, np.zeros_like(indices)]


def _gather_nd_infer(in_shapes, in_dtypes, **_):
    d, i = tuple(in_shapes[0]), tuple(in_shapes[1])
    if not i or i[0] > len(d):
        raise ValueError(f"gather_nd: indices of shape {i} do not fit data of shape {d}")
    return [i[1:] + d[i[0]:]], [in_dtypes[0]]


defop("gather_nd", _gather_nd, arg_names=("data", "indices"), infer=_gather_nd_infer,
      grad=_gather_nd_grad, cost=input_size)


def _scatter_nd(data, indices, shape=()):
    shape = parse_tuple(shape, "shape")
    out = np.zeros(shape, dtype=data.dtype)
    out[_nd_index(indices, shape, "scatter_nd")] = data
    return out


def _scatter_nd_grad(ograds, inputs, outputs, shape=()):
    data, indices = inputs
    g = ograds[0][_nd_index(indices, parse_tuple(shape, "shape"), "scatter_nd")]
    return [g.astype(data.dtype, copy=False), np.zeros_like(indices)]


defop("scatter_nd", _scatter_nd, arg_names=("data", "indices"), grad=_scatter_nd_grad,
      cost=input_size, params={"shape": ()},
      infer=lambda in_shapes, in_dtypes, shape=(), **_: (
          [parse_tuple(shape, "shape")], [in_dtypes[0]]))


# -- ravel_multi_index, unravel_index -----------------------------------------------------------
def _strides(shape):
    """Row-major strides of ``shape``; its first entry may be -1 (unbounded)."""
    shape = parse_tuple(shape, "shape")
    strides = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * int(shape[k + 1])
    return shape, np.asarray(strides, dtype=np.int64)


def _ravel(data, shape=()):
    shape, strides = _strides(shape)
    idx = np.asarray(data).astype(np.int64)
    if idx.shape[0] != len(shape):
        raise ValueError(f"ravel_multi_index: data has {idx.shape[0]} rows for a shape of "
                         f"{len(shape)} dimensions")
    flat = np.tensordot(strides, idx, axes=(0, 0))
    return flat.astype(data.dtype)


defop("_ravel_multi_index", _ravel, grad=_zeros_grad, cost=input_size, params={"shape": ()},
      aliases=("ravel_multi_index",),
      infer=lambda in_shapes, in_dtypes, shape=(), **_: (
          [tuple(in_shapes[0][1:]) or (1,)], [in_dtypes[0]]))


def _unravel(data, shape=()):
    shape, strides = _strides(shape)
    flat = np.asarray(data).astype(np.int64)
    out = []
    for k, s in enumerate(strides):
        q = flat // s
        out.append(q if k == 0 and int(shape[0]) < 0 else q % int(shape[k]))
    return np.stack(out).astype(data.dtype)


defop("_unravel_index", _unravel, grad=_zeros_grad, cost=input_size, params={"shape": ()},
      aliases=("unravel_index",),
      infer=lambda in_shapes, in_dtypes, shape=(), **_: (
          [(len(parse_tuple(shape, "shape")),) + tuple(in_shapes[0])], [in_dtypes[0]]))
