"""The ``mx.nd`` functions MXNet writes in Python rather than as one operator:
``moveaxis``, ``linspace``, ``eye``, ``reset_arrays`` (calls of their operators with
MXNet's signatures), DLPack exchange
(``to_dlpack_for_read``/``_for_write``, ``from_dlpack``), MXNet's operator aliases
(``crop`` is ``slice``) and ``mx.nd._internal`` (the operators whose names start with an
underscore, as MXNet's generated ``_internal`` module holds them).

Everything here ends in :func:`~.ndarray.invoke` or the executor, so it is profiled
under the operators' MXNet names like any other call.
"""
import types

import numpy as np

from ..ops import registry as _registry
from .ndarray import NDArray, invoke, new_array

__all__ = ["moveaxis", "linspace", "eye", "reset_arrays", "to_dlpack_for_read",
           "to_dlpack_for_write", "from_dlpack", "ALIASES", "internal_namespace"]


def _axes(value, ndim, what):
    axes = [value] if isinstance(value, (int, np.integer)) else list(value)
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"moveaxis: {what} axis {a} is out of range for {ndim} "
                             f"dimensions")
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"moveaxis: repeated {what} axis in {value!r}")
    return out


def moveaxis(tensor, source, destination):
    """``tensor`` with axes ``source`` moved to ``destination`` (one ``transpose``)."""
    src = _axes(source, tensor.ndim, "source")
    dst = _axes(destination, tensor.ndim, "destination")
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source {source!r} and destination {destination!r} "
                         "must have the same number of axes")
    order = [a for a in range(tensor.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return invoke("transpose", (tensor,), {"axes": tuple(order)})


def _ctx_dtype(ctx, dtype):
    from .functions import _ctx
    from .ndarray import _dtype
    return _ctx(ctx), _dtype(dtype).name


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` (op ``_linspace``)."""
    ctx, dtype = _ctx_dtype(ctx, dtype)
    return invoke("_linspace", (), {"start": start, "stop": stop, "num": num,
                                    "endpoint": endpoint, "dtype": dtype}, ctx=ctx)


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs):
    """An ``N`` x ``M`` (M=0: square) array with ones on diagonal ``k`` (op ``_eye``)."""
    ctx, dtype = _ctx_dtype(ctx, dtype)
    return invoke("_eye", (), {"N": N, "M": M, "k": k, "dtype": dtype}, ctx=ctx,
                  out=kwargs.get("out"))


def reset_arrays(*arrays, num_arrays=None, **kwargs):
    """Zero every array in place: one ``reset_arrays`` engine op writing them all."""
    if num_arrays is not None and num_arrays != len(arrays):
        raise ValueError(f"reset_arrays: num_arrays={num_arrays} but {len(arrays)} arrays "
                         "given")
    if not arrays:
        return []
    return invoke("reset_arrays", arrays, {"num_arrays": len(arrays)}, out=list(arrays))


class _Capsule:
    """A DLPack capsule presented as numpy's ``from_dlpack`` wants it."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, **_):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)      # kDLCPU, device 0


def _capsule(array, wait):
    wait()
    return array._data.__dlpack__()


def to_dlpack_for_read(data):
    """A DLPack capsule of ``data``'s values (after the ops writing it are done)."""
    return _capsule(data, data.wait_to_read)


def to_dlpack_for_write(data):
    """A DLPack capsule of ``data``'s buffer (after every op using it is done)."""
    return _capsule(data, data.wait_to_write)


def attach_methods(cls):
    """``x.to_dlpack_for_read()`` / ``x.to_dlpack_for_write()``, as in MXNet."""
    cls.to_dlpack_for_read = to_dlpack_for_read
    cls.to_dlpack_for_write = to_dlpack_for_write


def from_dlpack(dlpack):
    """An NDArray sharing the buffer of a DLPack capsule (or of an object with
    ``__dlpack__``, such as a numpy array or a torch tensor on the CPU)."""
    if not hasattr(dlpack, "__dlpack__"):
        dlpack = _Capsule(dlpack)
    values = np.from_dlpack(dlpack)
    a = new_array(values.shape, values.dtype, _ctx_dtype(None, None)[0], "from_dlpack")
    a._data = values
    return a


# MXNet's other names of registered operators (used where the registry has no alias)
ALIASES = {"crop": "slice", "flatten": "Flatten", "_crop_assign": "_slice_assign",
           "_crop_assign_scalar": "_slice_assign_scalar"}


def internal_namespace(functions):
    """``mx.nd._internal``: every function of ``functions`` (mx.nd's namespace) named
    like a registered operator or alias that starts with ``_``."""
    names = set(_registry.registry) | set(ALIASES)
    return types.SimpleNamespace(**{n: f for n, f in functions.items()
                                    if n.startswith("_") and n in names and callable(f)})
