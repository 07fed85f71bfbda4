"""``mx.sym.random``: random symbols (``uniform``, ``normal``, ``randint``), nodes of the
same ``_random_*`` operators ``mx.nd.random`` pushes; the executor draws them from the
shared, seeded generator."""
import numpy as np

from .functions import _fn

__all__ = ["uniform", "normal", "randint"]


def _node(opname, params, shape, dtype, name):
    if isinstance(shape, int):
        shape = (shape,)
    return _fn(opname)(shape=tuple(shape), dtype=np.dtype(dtype).name, name=name, **params)


def uniform(low=0.0, high=1.0, shape=(1,), dtype=None, ctx=None, name=None, **kwargs):
    return _node("_random_uniform", {"low": float(low), "high": float(high)}, shape,
                 dtype or "float32", name)


def normal(loc=0.0, scale=1.0, shape=(1,), dtype=None, ctx=None, name=None, **kwargs):
    return _node("_random_normal", {"loc": float(loc), "scale": float(scale)}, shape,
                 dtype or "float32", name)


def randint(low, high, shape=(1,), dtype=None, ctx=None, name=None, **kwargs):
    return _node("_random_randint", {"low": int(low), "high": int(high)}, shape,
                 dtype or "int32", name)
