"""``mx.np.random``: random arrays drawn by engine ops (``_npi_uniform``, ``_npi_normal``...).

Every draw uses the generator ``mx.random.seed`` seeds and writes its engine variable,
so draws run one at a time in push order, whatever thread runs them, and a seed gives
the same numbers. The default dtype is the np default float (float32, or float64 under
``npx.set_np(dtype=True)``). Parameters may be numbers or arrays (broadcast against
``size``; the arrays are op inputs, so nothing waits).
"""
import numbers

import numpy as _np

from ..ndarray import random as _random
from ..ndarray.ndarray import NDArray as _NDArray, _shape, invoke as _invoke
from ..util import default_float as _default_float
from .multiarray import device_of as _device_of, ndarray as _ndarray, to_np as _to_np

__all__ = ["uniform", "normal", "randn", "rand", "seed", "randint", "random_sample",
           "random", "choice", "shuffle", "gumbel", "logistic", "laplace", "exponential",
           "rayleigh", "weibull", "pareto", "power", "gamma", "bernoulli", "lognormal",
           "chisquare", "beta", "f", "multinomial", "multivariate_normal"]


def seed(seed=None, device="all", ctx=None):
    """Reseed the generator every random op draws from (``mx.random.seed``)."""
    import random as _pyrandom
    _random.seed(_pyrandom.getrandbits(31) if seed is None else seed,
                 ctx if ctx is not None else device)


def _draw(opname, a, b, size, dtype, device, ctx, out):
    params = {"a": 0.0, "b": 1.0, "size": () if size is None else _shape(size),
              "dtype": (_default_float() if dtype is None else _np.dtype(dtype)).name,
              "rng": _random._RngRef()}
    inputs, slots = [], []
    for slot, value in enumerate((a, b)):
        if isinstance(value, (_NDArray, _np.ndarray, list, tuple)):
            inputs.append(_to_np(value))
            slots.append(slot)
        else:
            params["ab"[slot]] = float(value)
    params["arrays_for"] = tuple(slots)
    dev = _device_of(device, ctx) if not inputs else None
    return _invoke(opname, tuple(inputs), params, out=out, ctx=dev, cls=_ndarray,
                  extra_vars=(_random._var(),))


def uniform(low=0.0, high=1.0, size=None, dtype=None, device=None, ctx=None, out=None):
    """Draws from [low, high): op ``_npi_uniform``."""
    if isinstance(low, numbers.Number) and isinstance(high, numbers.Number) and low > high:
        raise ValueError(f"uniform: low={low} is greater than high={high}")
    return _draw("_npi_uniform", low, high, size, dtype, device, ctx, out)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, device=None, ctx=None, out=None):
    """Draws from N(loc, scale**2): op ``_npi_normal``."""
    if isinstance(scale, numbers.Number) and scale < 0:
        raise ValueError(f"normal: scale={scale} must be non-negative")
    return _draw("_npi_normal", loc, scale, size, dtype, device, ctx, out)


def randn(*size, **kwargs):
    return normal(0.0, 1.0, size=size or None, **kwargs)


def rand(*size, **kwargs):
    return uniform(0.0, 1.0, size=size or None, **kwargs)


def random_sample(size=None, dtype=None, device=None, ctx=None, out=None):
    return uniform(0.0, 1.0, size, dtype, device, ctx, out)


random = random_sample


def randint(low, high=None, size=None, dtype=None, device=None, ctx=None, out=None):
    """Integers in [low, high): 1.x's ``_random_randint`` (MXNet 2 runs it too)."""
    if high is None:
        low, high = 0, low
    dtype = _np.dtype("int64" if dtype is None else dtype)
    return _invoke("_random_randint", (), {"low": int(low), "high": int(high),
                                          "shape": () if size is None else _shape(size),
                                          "dtype": dtype.name, "rng": _random._RngRef()},
                  out=out, ctx=_device_of(device, ctx), cls=_ndarray,
                  extra_vars=(_random._var(),))


def choice(a, size=None, replace=True, p=None, device=None, ctx=None, out=None):
    """Samples of ``a`` (an int: ``arange(a)``): indices drawn by ``randint`` or, with
    ``p`` or without replacement, by numpy on the engine's generator inside one op."""
    n = a if isinstance(a, numbers.Integral) else len(a)
    shape = () if size is None else _shape(size)
    if p is None and replace:
        idx = randint(0, n, size=shape, device=device, ctx=ctx)
    else:
        probs = None if p is None else _to_np(p)
        inputs = () if probs is None else (probs,)
        idx = _invoke("_npi_choice", inputs, {"a": int(n), "size": shape,
                                             "replace": bool(replace),
                                             "rng": _random._RngRef()},
                     ctx=_device_of(device, ctx) if probs is None else None, cls=_ndarray,
                     extra_vars=(_random._var(),))
    if isinstance(a, numbers.Integral):
        return idx
    return _to_np(a)[idx]


def shuffle(x):
    """Shuffle ``x`` along its first axis, in place (op ``_shuffle``)."""
    _invoke("_shuffle", (x,), {"rng": _random._RngRef()}, out=x, extra_vars=(_random._var(),))


def _one(opname, a, b, size, dtype, device, ctx, out):
    return _draw(opname, a, b, size, dtype, device, ctx, out)


def gumbel(loc=0.0, scale=1.0, size=None, dtype=None, device=None, ctx=None, out=None):
    return _one("_npi_gumbel", loc, scale, size, dtype, device, ctx, out)


def logistic(loc=0.0, scale=1.0, size=None, dtype=None, device=None, ctx=None, out=None):
    return _one("_npi_logistic", loc, scale, size, dtype, device, ctx, out)


def laplace(loc=0.0, scale=1.0, size=None, dtype=None, device=None, ctx=None, out=None):
    return _one("_npi_laplace", loc, scale, size, dtype, device, ctx, out)


def exponential(scale=1.0, size=None, dtype=None, device=None, ctx=None, out=None):
    return _one("_npi_exponential", scale, 0.0, size, dtype, device, ctx, out)


def rayleigh(scale=1.0, size=None, dtype=None, device=None, ctx=None, out=None):
    return _one("_npi_rayleigh", scale, 0.0, size, dtype, device, ctx, out)


def weibull(a, size=None, dtype=None, device=None, ctx=None, out=None):
    return _one("_npi_weibull", a, 0.0, size, dtype, device, ctx, out)


def pareto(a, size=None, dtype=None, device=None, ctx=None, out=None):
    return _one("_npi_pareto", a, 0.0, size, dtype, device, ctx, out)


def power(a, size=None, dtype=None, device=None, ctx=None, out=None):
    return _one("_npi_powerd", a, 0.0, size, dtype, device, ctx, out)


def gamma(shape, scale=1.0, size=None, dtype=None, device=None, ctx=None, out=None):
    if isinstance(shape, numbers.Number) and shape <= 0 or \
            isinstance(scale, numbers.Number) and scale <= 0:
        raise ValueError(f"gamma: shape={shape} and scale={scale} must be positive")
    return _one("_npi_gamma", shape, scale, size, dtype, device, ctx, out)


def bernoulli(prob=None, logit=None, size=None, dtype=None, device=None, ctx=None,
              out=None):
    if (prob is None) == (logit is None):
        raise ValueError("bernoulli: give exactly one of prob and logit")
    if prob is None:
        prob = 1 / (1 + _exp(-logit))
    return _one("_npi_bernoulli", prob, 0.0, size, dtype, device, ctx, out)


def _exp(x):
    import math
    return _invoke("_npi_exp", (_to_np(x),), {}) if isinstance(x, _NDArray) else math.exp(x)


def lognormal(mean=0.0, sigma=1.0, size=None, dtype=None, device=None, ctx=None, out=None):
    """exp(normal(mean, sigma)), as MXNet composes it."""
    return _invoke("_npi_exp", (normal(mean, sigma, size, dtype, device, ctx),), {}, out=out)


def chisquare(df, size=None, dtype=None, device=None, ctx=None):
    """gamma(df / 2, 2), as MXNet composes it."""
    return gamma(df / 2 if not isinstance(df, _NDArray) else df / 2, 2.0, size, dtype,
                 device, ctx)


def beta(a, b, size=None, dtype=None, device=None, ctx=None):
    """X / (X + Y) of two gamma draws, as MXNet composes it."""
    x = gamma(a, 1.0, size, dtype or "float64", device, ctx)
    y = gamma(b, 1.0, size, dtype or "float64", device, ctx)
    out = x / (x + y)
    return out if dtype is not None else out.astype(_default_float())


def f(dfnum, dfden, size=None, dtype=None, device=None, ctx=None):
    return (chisquare(dfnum, size, dtype, device, ctx) / dfnum) / \
        (chisquare(dfden, size, dtype, device, ctx) / dfden)


def multinomial(n, pvals, size=None):
    """Counts of ``n`` draws over ``pvals`` (numpy's sampler inside one engine op on
    the shared generator)."""
    pv = _to_np(pvals) if not isinstance(pvals, (list, tuple)) else \
        _to_np(_np.asarray(pvals, dtype=_np.float64))
    shape = () if size is None else _shape(size)
    return _invoke("_npi_multinomial", (pv,), {"n": int(n), "size": shape,
                                              "rng": _random._RngRef()},
                   cls=_ndarray, extra_vars=(_random._var(),))


def multivariate_normal(mean, cov, size=None, check_valid=None, tol=None):
    m, c = _to_np(mean), _to_np(cov)
    shape = () if size is None else _shape(size)
    return _invoke("_npi_mvn", (m, c), {"size": shape, "rng": _random._RngRef()},
                   cls=_ndarray, extra_vars=(_random._var(),))
