"""``mx.nd.random`` / ``mx.random``: seeded random arrays.

All random ops share one numpy Generator and are ordered by a write dependency on one
engine variable, so a seed gives the same numbers whatever thread runs them.
"""
import numpy as np

from .. import engine as _engine
from ..engine.base import ALWAYS_RUN
from ..context import Context, current_context
from . import ndarray as _nd

_rng = np.random.default_rng(0)
_rng_var = None


def _var():
    global _rng_var
    if _rng_var is None:
        _rng_var = _engine.get().new_variable()
    return _rng_var


def seed(seed_state, ctx="all"):
    """Reseed the generator (after the random ops already pushed have drawn). ``ctx`` is
    'all' or a Context, as in MXNet; every context shares the one generator here."""
    if not isinstance(seed_state, (int, np.integer)) or isinstance(seed_state, bool):
        raise ValueError(f"seed {seed_state!r} is not allowed; use an integer")
    if not (isinstance(ctx, Context) or (isinstance(ctx, str) and ctx == "all")):
        raise ValueError(f"seed: ctx={ctx!r} is not allowed; use 'all' or a Context "
                         "such as mx.cpu()")
    # MXNet takes any C int; numpy wants a non-negative seed: -1 maps to 2**64 - 1
    new = np.random.default_rng(int(seed_state) % (1 << 64))
    # An internal op (never profiled): ordered after earlier draws, before later ones.
    _nd.engine_push(_swap, (new,), [], [_var()], "ResourceParallelRandomSetSeed",
                    mode=ALWAYS_RUN)


def _swap(new):
    global _rng
    _rng = new


def generator():
    return _rng


def _draw(opname, params, shape, dtype, ctx, out):
    if isinstance(shape, int):
        shape = (shape,)
    params = dict(params, shape=tuple(shape), dtype=np.dtype(dtype or "float32").name,
                  rng=_RngRef())
    if ctx is not None and not isinstance(ctx, Context):
        raise ValueError(f"ctx={ctx!r} is not a Context; use mx.cpu()")
    return _nd.invoke(opname, (), params, out=out, ctx=ctx or current_context(),
                      extra_vars=(_var(),))


class _RngRef:
    """Resolves to the generator current when the op runs (after earlier reseeds)."""

    __slots__ = ()

    def __getattr__(self, name):
        return getattr(_rng, name)


def uniform(low=0.0, high=1.0, shape=(1,), dtype=None, ctx=None, out=None, **kwargs):
    return _draw("_random_uniform", {"low": float(low), "high": float(high)}, shape, dtype,
                 ctx, out)


def normal(loc=0.0, scale=1.0, shape=(1,), dtype=None, ctx=None, out=None, **kwargs):
    return _draw("_random_normal", {"loc": float(loc), "scale": float(scale)}, shape, dtype,
                 ctx, out)


def randn(*shape, loc=0.0, scale=1.0, dtype=None, ctx=None):
    return normal(loc, scale, shape, dtype, ctx)


# -- the other distributions (ops in ops/distributions.py) -----------------------------
def _scalar(opname, kind=float, **params):
    """``params`` as numbers of type ``kind``; an NDArray parameter is refused."""
    for k, v in params.items():
        if isinstance(v, _nd.NDArray):
            raise ValueError(f"{opname}: {k} given as an NDArray (per-element parameters, "
                             "MXNet's sample_* operators) is not supported by xprof; give "
                             "a number")
    return {k: kind(v) for k, v in params.items()}


def poisson(lam=1, shape=(1,), dtype=None, ctx=None, out=None, **kwargs):
    """Poisson counts of rate ``lam`` (as floats, like MXNet)."""
    return _draw("_random_poisson", _scalar("poisson", lam=lam), shape, dtype, ctx,
                 out)


def exponential(scale=1, shape=(1,), dtype=None, ctx=None, out=None, **kwargs):
    """Exponential draws of mean ``scale`` (rate ``1 / scale``)."""
    _scalar("exponential", scale=scale)
    if not float(scale) > 0:
        raise ValueError(f"exponential: scale={scale} must be > 0")
    return _draw("_random_exponential", {"lam": 1.0 / float(scale)}, shape, dtype, ctx,
                 out)


def gamma(alpha=1, beta=1, shape=(1,), dtype=None, ctx=None, out=None, **kwargs):
    """Gamma draws of shape ``alpha`` and scale ``beta``."""
    return _draw("_random_gamma", _scalar("gamma", alpha=alpha, beta=beta),
                 shape, dtype, ctx, out)


def negative_binomial(k=1, p=1, shape=(1,), dtype=None, ctx=None, out=None, **kwargs):
    """Failures before the ``k``-th success of trials succeeding with probability ``p``."""
    return _draw("_random_negative_binomial",
                 _scalar("negative_binomial", k=k, p=p), shape, dtype, ctx, out)


def generalized_negative_binomial(mu=1, alpha=1, shape=(1,), dtype=None, ctx=None,
                                  out=None, **kwargs):
    """Counts of mean ``mu`` and variance ``mu + alpha * mu**2``."""
    return _draw("_random_generalized_negative_binomial",
                 _scalar("generalized_negative_binomial", mu=mu, alpha=alpha),
                 shape, dtype, ctx, out)


def randint(low, high, shape=(1,), dtype=None, ctx=None, out=None, **kwargs):
    """Integers uniform in ``[low, high)`` (int32 unless ``dtype``)."""
    return _draw("_random_randint", _scalar("randint", int, low=low, high=high),
                 shape, dtype or "int32", ctx, out)


def shuffle(data, **kwargs):
    """A copy of ``data`` with its first axis randomly permuted."""
    if not isinstance(data, _nd.NDArray):
        raise ValueError(f"shuffle: data is {type(data).__name__}, not an NDArray")
    return _nd.invoke("_shuffle", (data,), {"rng": _RngRef()}, extra_vars=(_var(),))


def _like(draw):
    def fn(data=None, *args, **kwargs):
        if not isinstance(data, _nd.NDArray):
            raise ValueError(f"{draw.__name__}_like: data is {type(data).__name__}, not an "
                             "NDArray")
        kwargs.setdefault("dtype", data.dtype)
        return draw(*args, shape=data.shape, ctx=data.context, **kwargs)
    fn.__name__ = f"{draw.__name__}_like"
    fn.__doc__ = f"``{draw.__name__}`` shaped, typed and placed like ``data``."
    return fn


uniform_like = _like(uniform)
normal_like = _like(normal)
poisson_like = _like(poisson)
exponential_like = _like(exponential)
gamma_like = _like(gamma)
negative_binomial_like = _like(negative_binomial)
generalized_negative_binomial_like = _like(generalized_negative_binomial)
