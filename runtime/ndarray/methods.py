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
from ..ops.python_level import FLUENT, attach_fluent
from . import serialization as _ser
from .ndarray import NDArray, from_numpy

# MXNet's fluent methods (shared with Symbol), and logical_not
_METHODS = FLUENT + ("logical_not",)


def _slice(self, begin, end, step=None):
    """``x.slice(begin, end, step)``: MXNet's ``slice`` operator (None: the whole axis)."""
    return _functions["slice"](self, begin=tuple(begin), end=tuple(end),
                               step=None if step is None else tuple(step))


def _tostype(self, stype):
    """This array as storage type ``stype`` (``cast_storage``; see :mod:`.sparse`)."""
    from .sparse import cast_storage
    return cast_storage(self, stype)


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


def _shape_method(opname, **fixed):
    """``x.squeeze(axis, inplace=False)`` & co.: MXNet's ``inplace=True`` gives a view
    sharing memory; here the result is always a copy (the operator)."""
    def method(self, *args, inplace=False, **kwargs):
        return _functions[opname](self, *args, **fixed, **kwargs)
    method.__name__ = opname
    return method


def attach(functions):
    """Give NDArray a method per name of ``_METHODS`` found in ``functions`` (mx.nd's
    namespace, looked up at call time)."""
    global _functions
    _functions = functions
    attach_fluent(NDArray, functions, _METHODS)
    NDArray.slice = _slice
    NDArray.squeeze = _shape_method("squeeze")
    NDArray.expand_dims = _shape_method("expand_dims")
    NDArray.flatten = _shape_method("Flatten")
    NDArray.tostype = _tostype
    NDArray.__getstate__ = _getstate
    NDArray.__setstate__ = _setstate


