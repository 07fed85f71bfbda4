"""Operators MXNet 1.x has for sparse arrays, on xprof's dense values (see
``ndarray/sparse.py``): ``cast_storage`` (the values unchanged; the result's storage
type is the parameter's), ``_sparse_retain`` (the rows of ``indices`` kept, the others
zero), ``_square_sum`` (sum of squares over ``axis``)."""
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


def _retain_infer(in_shapes, in_dtypes, **_):
    return [tuple(in_shapes[0])], [in_dtypes[0]]


defop("cast_storage", _cast_storage, params={"stype": "default"},
      grad=lambda og, i, o, **_: [og[0]])
defop("_sparse_retain", _retain, arg_names=("data", "indices"), infer=_retain_infer,
      grad=_retain_grad)

_reduction("_square_sum", lambda x, axis=None, keepdims=False: np.sum(np.square(x), axis=axis,
                                                                       keepdims=keepdims),
           lambda og, x, o, axes: 2 * og * x)
