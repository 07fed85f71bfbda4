"""NDArray methods that are operator calls (``x.slice(...)``, ``x.squeeze()``,
``x.floor()``, ``x.tile(reps)``...), storage conversion and pickling.

MXNet's NDArray has one method per common operator, taking the array as the first input
and the operator's parameters; here each is ``mx.nd.<op>(self, ...)`` through the same
generated function (so it is profiled and recorded by autograd like the function). The
methods are attached to :class:`NDArray` when this module is imported (by
``mx.nd``); ones NDArray defines itself are kept. Pickling stores an array in MXNet's
binary layout (``{'handle': bytes}``, as ``__getstate__`` does in MXNet), so a state
written by MXNet loads here.
"""
from . import serialization as _ser
from .ndarray import NDArray, from_numpy
from .sparse import unsupported

_METHODS = ("slice_axis", "slice_like", "take", "pick", "one_hot", "squeeze", "tile",
            "repeat", "flip", "pad", "swapaxes", "split", "diag", "norm", "topk", "sort",
            "argsort", "argmin", "prod", "nansum", "nanprod", "floor", "ceil", "round",
            "rint", "fix", "trunc", "sign", "log2", "log10", "log1p", "expm1", "cbrt",
            "rcbrt", "rsqrt", "reciprocal", "sin", "cos", "tan", "arcsin", "arccos",
            "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "degrees", "radians",
            "log_softmax", "depth_to_space", "space_to_depth", "broadcast_axes",
            "reshape_like", "softmin", "logical_not")


def _method(functions, opname):
    def method(self, *args, **kwargs):
        return functions[opname](self, *args, **kwargs)
    method.__name__ = opname
    method.__doc__ = f"``mx.nd.{opname}(self, ...)``."
    return method


def _slice(self, begin, end, step=None):
    """``x.slice(begin, end, step)``: MXNet's ``slice`` operator (None: the whole axis)."""
    return _functions["slice"](self, begin=tuple(begin), end=tuple(end),
                               step=None if step is None else tuple(step))


def _tostype(self, stype):
    """A dense copy for ``'default'``; sparse storage types are refused."""
    if stype != "default":
        raise unsupported(f"tostype({stype!r})")
    return self.copy()


def _getstate(self):
    return {"handle": bytearray(_ser.array_bytes(self))}


def _setstate(self, state):
    handle = state.get("handle") if isinstance(state, dict) else None
    if handle is None:
        raise ValueError("NDArray.__setstate__: the state must be a dict with 'handle' "
                         "(bytes in MXNet's NDArray layout)")
    values = _ser.array_from_bytes(bytes(handle))
    fresh = from_numpy(values)
    for slot in ("queue", "readers", "writer", "exc", "_data", "shape", "_dtype", "context",
                 "_ag", "_grad", "_grad_req"):
        setattr(self, slot, getattr(fresh, slot))


_functions = {}     # mx.nd's namespace, given by attach()


def attach(functions):
    """Give NDArray a method per name of ``_METHODS`` found in ``functions`` (mx.nd's
    namespace, looked up at call time)."""
    global _functions
    _functions = functions
    for opname in _METHODS:
        if opname in functions and not hasattr(NDArray, opname):
            setattr(NDArray, opname, _method(functions, opname))
    NDArray.slice = _slice
    NDArray.tostype = _tostype
    NDArray.__getstate__ = _getstate
    NDArray.__setstate__ = _setstate


