"""Operators that run an official NumPy function: the ``mx.np`` names MXNet 2 hands to
official NumPy (``corrcoef``, ``kron``, ``median``...), run here as engine ops so they
stay asynchronous and profiled (MXNet runs them synchronously, unrecorded).

One operator per function, ``_np_fallback_<name>`` (MXNet has no name for them: the
trace says which NumPy function ran). Its inputs are the call's arrays; its ``call``
parameter is the call with each array replaced by :data:`~.np_indexing.SLOT`
(``(args, kwargs)``). Output shapes and dtypes come from running the function on
zero-strided zeros of the inputs' shapes (no memory, no values read), kept per call
signature; functions whose output shape depends on the values (``unique``,
``flatnonzero``...) are listed in :data:`VALUE_SHAPED`: their op hands its results to
the caller's ``box`` and writes an empty marker array, which the front door waits for
(a recorded sync point, as MXNet's own value-shaped operators wait) before it wraps the
results.

They have no gradient, as in MXNet.
"""
import numpy as np

from .np_indexing import SLOT
from .registry import defop, registry

__all__ = ["fallback_op", "VALUE_SHAPED", "fill"]

# output shapes depend on the input values
VALUE_SHAPED = frozenset((
    "unique", "unique_all", "unique_inverse", "unique_values", "flatnonzero", "argwhere",
    "extract", "compress", "intersect1d", "setdiff1d", "setxor1d", "union1d", "trim_zeros",
    "roots", "histogram_bin_edges", "histogram", "histogram2d", "histogramdd", "nonzero",
    "polyfit", "polydiv", "polyint", "poly", "delete", "insert", "i0", "lexsort",
    "bincount", "piecewise", "select", "array_split", "split", "apply_along_axis",
    "apply_over_axes", "genfromtxt"))


def fill(call, arrays):
    """``(args, kwargs)`` of ``call`` with each SLOT replaced by the next array (nested
    in lists and tuples too)."""
    it = iter(arrays)

    def put(v):
        if v is SLOT:
            return next(it)
        if type(v) in (list, tuple):
            return type(v)(put(x) for x in v)
        return v
    args, kwargs = call
    args = put(args)
    return args, {k: put(v) for k, v in kwargs}


def _outputs(result):
    if isinstance(result, tuple) or (isinstance(result, list) and result and
                                     all(isinstance(r, np.ndarray) for r in result)):
        return [np.asarray(r) for r in result], True
    return [np.asarray(result)], False


_SIGNATURES = {}     # (name, shapes, dtypes, call) -> (shapes, dtypes, is_tuple)


def probe(name, fn, shapes, dtypes, call):
    """The output shapes and dtypes of ``fn`` on inputs of ``shapes``/``dtypes``."""
    key = (name, tuple(shapes), tuple(dtypes), repr(call))
    found = _SIGNATURES.get(key)
    if found is None:
        zeros = [np.broadcast_to(np.zeros((), dtype=d), s) for s, d in zip(shapes, dtypes)]
        args, kwargs = fill(call, zeros)
        with np.errstate(all="ignore"):
            outs, is_tuple = _outputs(fn(*args, **kwargs))
        found = ([o.shape for o in outs], [o.dtype for o in outs], is_tuple)
        if len(_SIGNATURES) < 4096:
            _SIGNATURES[key] = found
    return found


def fallback_op(name, fn):
    """The operator ``_np_fallback_<name>`` running ``fn`` (registered once)."""
    opname = "_np_fallback_" + name
    op = registry.get(opname)
    if op is not None:
        return op

    def kernel(*arrays, call=((), ()), n_out=1, box=None):
        args, kwargs = fill(call, arrays)
        outs, _ = _outputs(fn(*args, **kwargs))
        if box is not None:      # value-shaped: the front door takes the results
            box.extend(outs)
            return np.zeros((0,), dtype=np.float32)
        return tuple(outs) if n_out > 1 else outs[0]

    def infer(in_shapes, in_dtypes, call=((), ()), n_out=1, box=None, **_):
        if box is not None:
            return [(0,)], [np.dtype(np.float32)]
        shapes, dtypes, _ = probe(name, fn, in_shapes, in_dtypes, call)
        return shapes, dtypes

    return defop(opname, kernel, arg_names=("arrays",), variadic=True, infer=infer,
                 num_outputs=lambda p: p.get("n_out", 1) if p.get("box") is None else 1,
                 params={"call": ((), ()), "n_out": 1, "box": None},
                 doc=f"Official NumPy's ``{name}``, run by the engine.")
