"""Random sampling: ``_random_uniform``, ``_random_normal``, ``_sample_normal``
(``sample_normal``: one draw per element of ``mu``/``sigma``, times ``shape``),
``_sample_uniform``.

Random operators take a ``numpy.random.Generator`` as the param ``rng``. The caller
supplies it: the NDArray layer keeps one generator per context behind one engine variable
that every random op writes, so random ops run one at a time in push order and a seed
reproduces the same numbers whatever the thread timing. Without ``rng`` the kernel falls
back to a fresh, unseeded generator.
"""

import numpy as np

from .creation import _CREATION, _creation_cost, _creation_infer, _no_input_grad
from .params import _dtype, parse_tuple
from .registry import defop


def _generator(rng):
    return np.random.default_rng() if rng is None else rng


def _sample_dtype(dtype):
    dt = _dtype(dtype)
    if dt not in (np.float32, np.float64):
        return dt, np.dtype(np.float32)
    return dt, dt


# MXNet checks low <= high and scale >= 0 inside the sampling kernel: a bad value is an
# error of the op (an MXNetError at the next sync point, the engine going on), not of the
# call. The check comes before any draw, so the shared generator is left as it was.
def _check_uniform(low, high):
    if not float(low) <= float(high):
        raise ValueError(f"_random_uniform: low={low} is greater than high={high}; "
                         "use low <= high")


def _check_normal(scale):
    if not float(scale) >= 0:
        raise ValueError(f"_random_normal: scale={scale} is not allowed; use a "
                         "non-negative standard deviation")


def _random_uniform(low=0.0, high=1.0, shape=(), ctx=None, dtype="float32", rng=None):
    _check_uniform(low, high)
    dt, gen_dt = _sample_dtype(dtype)
    u = _generator(rng).random(parse_tuple(shape), dtype=gen_dt)
    u *= (float(high) - float(low))
    u += float(low)
    return u.astype(dt, copy=False)


def _random_normal(loc=0.0, scale=1.0, shape=(), ctx=None, dtype="float32", rng=None):
    _check_normal(scale)
    dt, gen_dt = _sample_dtype(dtype)
    z = _generator(rng).standard_normal(parse_tuple(shape), dtype=gen_dt)
    z *= float(scale)
    z += float(loc)
    return z.astype(dt, copy=False)


_RANDOM = dict(_CREATION, rng=None)
defop("_random_uniform", _random_uniform, arg_names=(), infer=_creation_infer,
      grad=_no_input_grad, cost=_creation_cost,
      params=dict(_RANDOM, low=0.0, high=1.0))
defop("_random_normal", _random_normal, arg_names=(), infer=_creation_infer,
      grad=_no_input_grad, cost=_creation_cost,
      params=dict(_RANDOM, loc=0.0, scale=1.0))


# -- sample_*: one draw (or a ``shape`` of draws) per element of the parameter arrays --------
def _sample_shape(param_shape, shape):
    return tuple(param_shape) + tuple(parse_tuple(shape))


def _sample_infer(in_shapes, in_dtypes, shape=(), dtype=None, **_):
    if tuple(in_shapes[0]) != tuple(in_shapes[1]):
        raise ValueError(f"sample: the parameter arrays have shapes {tuple(in_shapes[0])} "
                         f"and {tuple(in_shapes[1])}; they must be equal")
    out = _dtype(dtype) if dtype not in (None, "None") else in_dtypes[0]
    return [_sample_shape(in_shapes[0], shape)], [out]


def _expand_params(a, shape):
    return a.reshape(a.shape + (1,) * len(parse_tuple(shape)))


def _sample_normal(mu, sigma, shape=(), dtype=None, rng=None):
    out_dt = _dtype(dtype) if dtype not in (None, "None") else mu.dtype
    size = _sample_shape(mu.shape, shape)
    z = _generator(rng).standard_normal(size)
    z = z * _expand_params(sigma, shape) + _expand_params(mu, shape)
    return z.astype(out_dt, copy=False)


def _sample_uniform(low, high, shape=(), dtype=None, rng=None):
    out_dt = _dtype(dtype) if dtype not in (None, "None") else low.dtype
    size = _sample_shape(low.shape, shape)
    u = _generator(rng).random(size)
    lo, hi = _expand_params(low, shape), _expand_params(high, shape)
    return (lo + u * (hi - lo)).astype(out_dt, copy=False)


def _no_param_grad(ograds, inputs, outputs, **_):
    return [np.zeros_like(x) for x in inputs]


defop("_sample_normal", _sample_normal, arg_names=("mu", "sigma"), infer=_sample_infer,
      grad=_no_param_grad, params={"shape": (), "dtype": None, "rng": None},
      cost=lambda in_shapes, shape=(), **_: max(1, int(np.prod(_sample_shape(in_shapes[0],
                                                                                shape)))),
      aliases=("sample_normal",))
defop("_sample_uniform", _sample_uniform, arg_names=("low", "high"), infer=_sample_infer,
      grad=_no_param_grad, params={"shape": (), "dtype": None, "rng": None},
      cost=lambda in_shapes, shape=(), **_: max(1, int(np.prod(_sample_shape(in_shapes[0],
                                                                                shape)))),
      aliases=("sample_uniform",))
