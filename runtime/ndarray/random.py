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


def randint(low, high, shape=(1,), dtype=None, ctx=None, out=None, **kwargs):
    """Integers drawn uniformly from [low, high) (``int32`` unless ``dtype``)."""
    return _draw("_random_randint", {"low": int(low), "high": int(high)}, shape,
                 dtype or "int32", ctx, out)
