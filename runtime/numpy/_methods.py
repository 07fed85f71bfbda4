"""The methods of ``mx.np.ndarray`` that are ``mx.np`` functions with the array first
(``x.sum(axis=0)`` is ``np.sum(x, axis=0)``), as MXNet 2's ndarray has them."""
from . import _creation, _reductions, _shape
from ..ndarray.ndarray import NDArray
from .multiarray import ndarray

__all__ = ["METHODS"]

METHODS = {
    "sum": _reductions.sum, "mean": _reductions.mean, "max": _reductions.max,
    "min": _reductions.min, "prod": _reductions.prod, "std": _reductions.std,
    "var": _reductions.var, "all": _reductions.all, "any": _reductions.any,
    "argmax": _reductions.argmax, "argmin": _reductions.argmin,
    "cumsum": _reductions.cumsum, "dot": _reductions.dot,
    "squeeze": _shape.squeeze, "swapaxes": _shape.swapaxes, "repeat": _shape.repeat,
    "tile": _shape.tile, "take": _shape.take,
    "broadcast_to": _shape.broadcast_to, "nonzero": _shape.nonzero, "ravel": _shape.ravel,
    "flip": _shape.flip, "sort": _shape.sort, "argsort": _shape.argsort,
    "round": _shape.around, "diagonal": _shape.diagonal, "trace": _shape.trace,
}


def _method(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = f"``mx.np.{fn.__name__}(self, ...)``."
    return method


for _name, _fn in METHODS.items():
    setattr(ndarray, _name, _method(_fn))


def _copy(self, order="C"):
    """A copy (``CopyCPU2CPU``, as MXNet 2's ``ndarray.copy``)."""
    if order not in ("C", None):
        raise NotImplementedError(f"copy: order={order!r}; only 'C' is supported")
    return NDArray.copy(self)


ndarray.copy = _copy


def _clip(self, min=None, max=None, out=None):     # noqa: A002 - MXNet's names
    """``np.clip(self, min, max)``: the method's keywords are ``min``/``max``."""
    return _shape.clip(self, min, max, out=out)


ndarray.clip = _clip
