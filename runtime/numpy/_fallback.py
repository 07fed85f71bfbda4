"""``mx.np`` functions that run official NumPy, as MXNet 2 hands them to it: each call is
one engine op, ``_np_fallback_<name>`` (:mod:`xprof.runtime.ops.np_fallback`), reading
the call's arrays, so it is asynchronous, ordered after the ops writing them and
profiled. A function whose output shape depends on the values (``unique``...) waits
for its op: the op's marker is a recorded sync point.
"""
import numpy as _onp

from ..ndarray.ndarray import NDArray, invoke
from ..ops.np_fallback import VALUE_SHAPED, fallback_op, probe
from ..ops.np_indexing import SLOT
from .multiarray import ndarray, to_np

__all__ = ["FALLBACK", "make_fallback", "install", "LINALG_FALLBACK"]

# MXNet 2's mx.np names that official NumPy computes here
FALLBACK = (
    "allclose", "alltrue", "apply_along_axis", "apply_over_axes", "argpartition", "argsort",
    "argwhere", "around", "array_equal", "array_equiv", "bincount", "blackman", "choose",
    "compress", "corrcoef", "correlate", "count_nonzero", "cov", "cross", "cumprod",
    "delete", "diag", "diag_indices_from", "diagflat", "diagonal", "diff", "digitize",
    "divmod", "ediff1d", "einsum", "extract", "fill_diagonal", "flatnonzero", "float_power",
    "frexp", "hamming", "hanning", "heaviside", "histogram", "histogram2d",
    "histogram_bin_edges", "histogramdd", "i0", "in1d", "indices", "insert", "interp",
    "intersect1d", "isclose", "isin", "ix_", "kron", "lexsort", "logspace", "median",
    "meshgrid", "modf", "msort", "nan_to_num", "nanargmax", "nanargmin", "nancumprod",
    "nancumsum", "nanmax", "nanmedian", "nanmin", "nanpercentile", "nanprod", "nanquantile",
    "nanstd", "nansum", "nanvar", "packbits", "pad", "partition", "percentile", "piecewise",
    "poly", "polyadd", "polydiv", "polyfit", "polyint", "polymul", "polysub", "polyval",
    "ptp", "quantile", "real", "resize", "rollaxis", "roots", "searchsorted", "select",
    "setdiff1d", "setxor1d", "sort", "spacing", "take_along_axis", "trace", "trapz", "tri",
    "tril", "tril_indices", "tril_indices_from", "trim_zeros", "triu", "triu_indices",
    "triu_indices_from", "union1d", "unique", "unpackbits", "unravel_index", "unwrap",
    "vander", "sometrue", "product", "round", "round_", "unique_all", "unique_inverse",
    "unique_values")
LINALG_FALLBACK = ("cholesky", "cond", "eig", "eigh", "eigvals", "eigvalsh", "lstsq",
                   "matrix_power", "matrix_rank", "multi_dot", "pinv", "qr", "solve",
                   "svd", "tensorinv", "tensorsolve", "svdvals", "matrix_norm",
                   "vector_norm", "cross", "outer", "matrix_transpose", "trace",
                   "diagonal", "tensordot", "vecdot")
# official NumPy's names for MXNet's where numpy renamed or dropped one
_NUMPY_NAME = {"alltrue": "all", "sometrue": "any", "product": "prod", "round_": "round",
               "msort": "sort", "trapz": "trapezoid", "in1d": "isin"}


def _delete(arr, obj, axis=None):
    """MXNet's ``delete``: index-array entries outside ``[0, size)`` are dropped (NumPy
    raises for them)."""
    if isinstance(obj, _onp.ndarray) and obj.ndim:
        n = arr.size if axis is None else arr.shape[axis]
        obj = obj[(obj >= 0) & (obj < n)]
    return _onp.delete(arr, obj, axis)


def _quantile(fn):
    """MXNet's ``interpolation=`` keyword is NumPy 2's ``method=``."""
    def call(a, q, axis=None, out=None, overwrite_input=False, interpolation=None,
             keepdims=False, method="linear"):
        return fn(a, q, axis=axis, out=out, overwrite_input=overwrite_input,
                  method=interpolation or method, keepdims=keepdims)
    call.__name__ = fn.__name__
    return call


_OWN = {"delete": _delete, "quantile": _quantile(_onp.quantile),
        "percentile": _quantile(_onp.percentile),
        "nanquantile": _quantile(_onp.nanquantile),
        "nanpercentile": _quantile(_onp.nanpercentile)}


def _numpy_function(namespace, name):
    if namespace is _onp and name in _OWN:
        return _OWN[name]
    fn = getattr(namespace, _NUMPY_NAME.get(name, name), None)
    if fn is None and name == "unique_all":
        return None
    return fn


def make_fallback(name, fn, opname=None):
    """``mx.np.<name>``: official NumPy's ``fn`` on the call's arrays, inside one
    engine op (``opname``, by default ``name``)."""
    def function(*args, **kwargs):
        arrays, like = [], [None]

        def take(v):
            if isinstance(v, NDArray):
                arrays.append(to_np(v))
                like[0] = v if like[0] is None else like[0]
                return SLOT
            if type(v) in (list, tuple) and any(isinstance(x, NDArray) for x in v):
                return type(v)(take(x) for x in v)
            return v
        out = kwargs.pop("out", None)
        call = (take(tuple(args)), tuple(sorted((k, take(v)) for k, v in kwargs.items())))
        op = fallback_op(opname or name, fn)
        ctx = like[0].context if like[0] is not None else None
        if name in VALUE_SHAPED:
            box = []
            marker = invoke(op.name, tuple(arrays), {"call": call, "box": box}, ctx=ctx,
                            cls=ndarray)
            marker.wait_to_read()
            results = [to_np(_onp.array(r, order="C"), like[0], r.dtype) for r in box]
            single = len(results) == 1 and not _returns_tuple(fn, box)
        else:
            shapes, _, is_tuple = probe(op.name[len("_np_fallback_"):], fn,
                                        [a.shape for a in arrays],
                                        [a._dtype for a in arrays], call)
            results = invoke(op.name, tuple(arrays), {"call": call, "n_out": len(shapes)},
                             ctx=ctx, cls=ndarray)
            results = results if isinstance(results, list) else [results]
            single = not is_tuple
        if out is not None:
            out[...] = results[0]
            return out
        return results[0] if single else tuple(results)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = (f"Official NumPy's ``{name}``, run by the engine (operator "
                        f"``_np_fallback_{opname or name}``); no gradient.")
    return function


def _returns_tuple(fn, box):
    return len(box) != 1


def install(namespace, numpy_namespace=_onp, names=FALLBACK, prefix=""):
    for name in names:
        if name in namespace:
            continue
        fn = _numpy_function(numpy_namespace, name)
        if fn is not None:
            namespace[name] = make_fallback(name, fn, prefix + name)
    return namespace
