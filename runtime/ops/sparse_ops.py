"""Operators MXNet 1.x has for sparse arrays, on xprof's dense values (see
``ndarray/sparse.py``): ``cast_storage`` (the values unchanged; the result's storage
type is the parameter's), ``_sparse_retain`` (the rows of ``indices`` kept, the others
zero), ``_square_sum`` (sum of squares over ``axis``), ``_contrib_getnnz`` (stored values
per row, column or in all), and the ``_scatter_*`` operators, which apply only where the
sparse left side stores values (here: where it is nonzero)."""
import numpy as np

from .registry import defop
from .reduce import _reduction


def _cast_storage(data, stype="default"):
    if stype not in ("default", "csr", "row_sparse"):
        raise ValueError(f"cast_storage: stype={stype!r} is not allowed; use 'default', "
                         "'csr' or 'row_sparse'")
    return data


def _retain(data, indices):
    keep = np.zeros(data.shape[0], bool)
    idx = indices.astype(np.int64).ravel()
    keep[idx[(idx >= 0) & (idx < data.shape[0])]] = True
    out = np.zeros_like(data)
    out[keep] = data[keep]
    return out


def _retain_grad(ograds, inputs, outputs):
    return [_retain(ograds[0], inputs[1]), None]


def _retain_infer(in_shapes, in_dtypes, **params):
    if params:
        raise ValueError(f"_sparse_retain: unknown parameter(s) {sorted(params)}; it has none")
    if len(in_shapes) != 2:
        raise ValueError(f"_sparse_retain: takes 2 inputs (data, indices), got "
                         f"{len(in_shapes)}")
    return [tuple(in_shapes[0])], [in_dtypes[0]]


defop("cast_storage", _cast_storage, params={"stype": "default"},
      grad=lambda og, i, o, **_: [og[0]])
defop("_sparse_retain", _retain, arg_names=("data", "indices"), infer=_retain_infer,
      grad=_retain_grad)

_reduction("_square_sum", lambda x, axis=None, keepdims=False: np.sum(np.square(x), axis=axis,
                                                                       keepdims=keepdims),
           lambda og, x, o, axes: 2 * og * x)


def _getnnz(data, axis=None):
    nz = data != 0
    out = np.count_nonzero(nz) if axis is None else np.count_nonzero(nz, axis=int(axis))
    return np.asarray(out, np.int64).reshape(-1)


def _getnnz_infer(in_shapes, in_dtypes, axis=None, **_):
    shape = tuple(in_shapes[0])
    out = (1,) if axis is None else ((shape[1],) if int(axis) == 0 else (shape[0],))
    return [out], [np.dtype(np.int64)]


defop("_contrib_getnnz", _getnnz, infer=_getnnz_infer, params={"axis": None})


def _scatter(fn):
    def kernel(lhs, *rest, **params):
        with np.errstate(all="ignore"):
            full = fn(lhs, *rest, **params)
        return np.where(lhs != 0, full, 0).astype(lhs.dtype, copy=False)
    return kernel


def _scatter_grad_div(ograds, inputs, outputs):
    lhs, rhs = inputs
    stored = lhs != 0
    return [np.where(stored, ograds[0] / rhs, 0), np.where(stored, -ograds[0] * lhs / rhs ** 2, 0)]


defop("_scatter_elemwise_div", _scatter(lambda a, b: a / b), arg_names=("lhs", "rhs"),
      infer=lambda s, d, **_: ([tuple(s[0])], [d[0]]), grad=_scatter_grad_div)
defop("_scatter_plus_scalar", _scatter(lambda a, scalar=0.0: a + scalar),
      params={"scalar": 0.0}, grad=lambda og, i, o, **_: [np.where(i[0] != 0, og[0], 0)])
defop("_scatter_minus_scalar", _scatter(lambda a, scalar=0.0: a - scalar),
      params={"scalar": 0.0}, grad=lambda og, i, o, **_: [np.where(i[0] != 0, og[0], 0)])
