"""``mx.npx.random``: seeding the generator every random op draws from, and MXNet 2's
extension samplers (``bernoulli``)."""
from ..numpy import random as _np_random

__all__ = ["seed", "bernoulli"]


def seed(seed=None, device="all", ctx=None):
    _np_random.seed(seed, device, ctx)


def bernoulli(prob=None, logit=None, size=None, dtype=None, device=None, ctx=None,
              out=None):
    """1 with probability ``prob`` (or ``sigmoid(logit)``), else 0."""
    return _np_random.bernoulli(prob, logit, size, dtype, device, ctx, out)


def _draw_n(opname, p1, p2, batch_shape, dtype, device, ctx):
    from ..ndarray import random as _random
    from ..ndarray.ndarray import NDArray, _shape, invoke
    from ..util import default_float
    import numpy as _onp
    from ..numpy.multiarray import device_of, ndarray, to_np
    params = {"a": 0.0, "b": 1.0, "batch_shape": () if batch_shape is None else
              _shape(batch_shape), "dtype": (default_float() if dtype is None else
                                             _onp.dtype(dtype)).name,
              "rng": _random._RngRef()}
    inputs, slots = [], []
    for slot, value in enumerate((p1, p2)):
        if isinstance(value, (NDArray, _onp.ndarray, list, tuple)):
            inputs.append(to_np(value))
            slots.append(slot)
        else:
            params["ab"[slot]] = float(value)
    params["arrays_for"] = tuple(slots)
    dev = device_of(device, ctx) if not inputs else None
    return invoke(opname, tuple(inputs), params, ctx=dev, cls=ndarray,
                  extra_vars=(_random._var(),))


def uniform_n(low=0.0, high=1.0, batch_shape=None, dtype=None, device=None, ctx=None):
    """``batch_shape`` draws of uniforms shaped like the parameters: op
    ``_npi_uniform_n``."""
    return _draw_n("_npi_uniform_n", low, high, batch_shape, dtype, device, ctx)


def normal_n(loc=0.0, scale=1.0, batch_shape=None, dtype=None, device=None, ctx=None):
    """``batch_shape`` draws of normals shaped like the parameters: op ``_npi_normal_n``."""
    return _draw_n("_npi_normal_n", loc, scale, batch_shape, dtype, device, ctx)


__all__ += ["uniform_n", "normal_n"]
