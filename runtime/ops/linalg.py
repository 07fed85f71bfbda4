"""Matrix products: ``dot`` and ``batch_dot`` (MXNet 1.x names, parameters and
transposition flags), each gradient next to its kernel."""

import numpy as np

from .params import _as, _size
from .registry import defop


# -- dot, batch_dot ---------------------------------------------------------------
def _dot_geometry(lshape, rshape, transpose_a, transpose_b):
    """(m, k, n, output shape) of MXNet's dot, which folds N-d operands into matrices:
    lhs is (prod(shape[:-1]), shape[-1]) (or the transpose of (shape[0], prod(rest))),
    rhs is (shape[0], prod(rest)) (or the transpose of (prod(shape[:-1]), shape[-1]))."""
    lshape, rshape = tuple(lshape), tuple(rshape)
    if not lshape or not rshape:
        raise ValueError(f"dot: operands need at least one dimension, got {lshape} "
                         f"and {rshape}")
    kl = lshape[0] if transpose_a else lshape[-1]
    kr = rshape[-1] if transpose_b else rshape[0]
    if kl != kr:
        raise ValueError(
            f"dot: lhs {lshape}{' (transposed)' if transpose_a else ''} and rhs "
            f"{rshape}{' (transposed)' if transpose_b else ''} do not agree on the "
            f"contracted dimension: {kl} != {kr}")
    lkeep = lshape[1:] if transpose_a else lshape[:-1]
    rkeep = rshape[:-1] if transpose_b else rshape[1:]
    out = lkeep + rkeep
    return _size(lkeep), kl, _size(rkeep), (out if out else (1,))


def _as_matrix(x, first):
    """x folded to (shape[0], rest) when ``first`` else (prod(shape[:-1]), shape[-1])."""
    if first:
        return x.reshape(x.shape[0], _size(x.shape[1:]))
    return x.reshape(_size(x.shape[:-1]), x.shape[-1])


def _dot_operands(lhs, rhs, transpose_a, transpose_b):
    a = _as_matrix(lhs, True).T if transpose_a else _as_matrix(lhs, False)
    b = _as_matrix(rhs, False).T if transpose_b else _as_matrix(rhs, True)
    return a, b


def _dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None):
    *_, out_shape = _dot_geometry(lhs.shape, rhs.shape, transpose_a, transpose_b)
    a, b = _dot_operands(lhs, rhs, transpose_a, transpose_b)
    return _as(lhs, np.matmul(a, b)).reshape(out_shape)


def _dot_grad(ograds, inputs, outputs, transpose_a=False, transpose_b=False,
              forward_stype=None):
    lhs, rhs = inputs
    a, b = _dot_operands(lhs, rhs, transpose_a, transpose_b)
    og = ograds[0].reshape(a.shape[0], b.shape[1])
    ga = og @ b.T                      # d/da, a is (m, k)
    gb = a.T @ og                      # d/db, b is (k, n)
    ga = (ga.T if transpose_a else ga).reshape(lhs.shape)
    gb = (gb.T if transpose_b else gb).reshape(rhs.shape)
    return [_as(lhs, ga), _as(rhs, gb)]


def _dot_infer(in_shapes, in_dtypes, transpose_a=False, transpose_b=False, **_):
    *_, out = _dot_geometry(in_shapes[0], in_shapes[1], transpose_a, transpose_b)
    return [out], [in_dtypes[0]]


def _dot_cost(in_shapes, transpose_a=False, transpose_b=False, **_):
    m, k, n, _out = _dot_geometry(in_shapes[0], in_shapes[1], transpose_a, transpose_b)
    return m * n * k


defop("dot", _dot, arg_names=("lhs", "rhs"), infer=_dot_infer, grad=_dot_grad,
      cost=_dot_cost,
      params={"transpose_a": False, "transpose_b": False, "forward_stype": None})


def _batch_geometry(lshape, rshape, transpose_a, transpose_b):
    lshape, rshape = tuple(lshape), tuple(rshape)
    if len(lshape) < 3 or len(lshape) != len(rshape):
        raise ValueError(f"batch_dot: operands must both have the same number (>= 3) of "
                         f"dimensions, got {lshape} and {rshape}")
    if lshape[:-2] != rshape[:-2]:
        raise ValueError(f"batch_dot: batch dimensions differ: {lshape[:-2]} and "
                         f"{rshape[:-2]}")
    m, kl = (lshape[-1], lshape[-2]) if transpose_a else (lshape[-2], lshape[-1])
    kr, n = (rshape[-1], rshape[-2]) if transpose_b else (rshape[-2], rshape[-1])
    if kl != kr:
        raise ValueError(f"batch_dot: lhs {lshape} and rhs {rshape} do not agree on the "
                         f"contracted dimension: {kl} != {kr}")
    return _size(lshape[:-2]), m, kl, n, lshape[:-2] + (m, n)


def _batch_dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None):
    _batch_geometry(lhs.shape, rhs.shape, transpose_a, transpose_b)
    a = np.swapaxes(lhs, -1, -2) if transpose_a else lhs
    b = np.swapaxes(rhs, -1, -2) if transpose_b else rhs
    return _as(lhs, np.matmul(a, b))


def _batch_dot_grad(ograds, inputs, outputs, transpose_a=False, transpose_b=False,
                    forward_stype=None):
    lhs, rhs = inputs
    og = ograds[0]
    a = np.swapaxes(lhs, -1, -2) if transpose_a else lhs
    b = np.swapaxes(rhs, -1, -2) if transpose_b else rhs
    ga = np.matmul(og, np.swapaxes(b, -1, -2))
    gb = np.matmul(np.swapaxes(a, -1, -2), og)
    if transpose_a:
        ga = np.swapaxes(ga, -1, -2)
    if transpose_b:
        gb = np.swapaxes(gb, -1, -2)
    return [_as(lhs, ga), _as(rhs, gb)]


def _batch_dot_infer(in_shapes, in_dtypes, transpose_a=False, transpose_b=False, **_):
    *_, out = _batch_geometry(in_shapes[0], in_shapes[1], transpose_a, transpose_b)
    return [out], [in_dtypes[0]]


def _batch_dot_cost(in_shapes, transpose_a=False, transpose_b=False, **_):
    b, m, k, n, _out = _batch_geometry(in_shapes[0], in_shapes[1], transpose_a,
                                       transpose_b)
    return b * m * n * k


defop("batch_dot", _batch_dot, arg_names=("lhs", "rhs"), infer=_batch_dot_infer,
      grad=_batch_dot_grad, cost=_batch_dot_cost,
      params={"transpose_a": False, "transpose_b": False, "forward_stype": None})
