"""Random sampling from the discrete and gamma-family distributions:
``_random_poisson``, ``_random_exponential``, ``_random_gamma``,
``_random_negative_binomial``, ``_random_generalized_negative_binomial``,
``_random_randint`` and ``_shuffle`` (MXNet 1.x's names and parameters).

Like :mod:`.sampling`'s uniform and normal, each takes the shared generator as the param
``rng`` (the NDArray layer passes it and orders every random op on one engine variable,
so a seed reproduces the same draws). Counts come out as floats unless ``dtype`` says
otherwise, as in MXNet. A bad parameter (``lam < 0``, ``p`` outside [0, 1]...) is an
error of the op, raised before any draw.
"""
import numpy as np

from .creation import _creation_cost, _creation_infer, _no_input_grad
from .params import _dtype, parse_tuple
from .registry import defop, input_size, same_shape
from .sampling import _RANDOM, _generator

__all__ = []


def _check(opname, ok, what):
    if not ok:
        raise ValueError(f"{opname}: {what}")


def _cast(x, dtype):
    return np.asarray(x).astype(_dtype(dtype), copy=False)


def _poisson(lam=1.0, shape=(), ctx=None, dtype="float32", rng=None):
    _check("_random_poisson", float(lam) >= 0, f"lam={lam} must be >= 0")
    return _cast(_generator(rng).poisson(float(lam), parse_tuple(shape)), dtype)


def _exponential(lam=1.0, shape=(), ctx=None, dtype="float32", rng=None):
    _check("_random_exponential", float(lam) > 0, f"lam={lam} must be > 0")
    return _cast(_generator(rng).exponential(1.0 / float(lam), parse_tuple(shape)), dtype)


def _gamma(alpha=1.0, beta=1.0, shape=(), ctx=None, dtype="float32", rng=None):
    _check("_random_gamma", float(alpha) > 0 and float(beta) > 0,
           f"alpha={alpha} and beta={beta} must be > 0")
    return _cast(_generator(rng).gamma(float(alpha), float(beta), parse_tuple(shape)),
                 dtype)


def _negative_binomial(k=1, p=1.0, shape=(), ctx=None, dtype="float32", rng=None):
    """Failures before the ``k``-th success, each trial succeeding with ``p``."""
    _check("_random_negative_binomial", int(k) > 0 and 0 < float(p) <= 1,
           f"k={k} must be > 0 and p={p} in (0, 1]")
    return _cast(_generator(rng).negative_binomial(int(k), float(p), parse_tuple(shape)),
                 dtype)


def _generalized_negative_binomial(mu=1.0, alpha=1.0, shape=(), ctx=None,
                                   dtype="float32", rng=None):
    """Mean ``mu``, variance ``mu + alpha mu^2``: a Poisson whose rate is
    Gamma(1/alpha, alpha mu); ``alpha = 0`` is Poisson(mu)."""
    _check("_random_generalized_negative_binomial", float(mu) >= 0 and float(alpha) >= 0,
           f"mu={mu} and alpha={alpha} must be >= 0")
    gen = _generator(rng)
    size = parse_tuple(shape)
    if float(alpha) == 0 or float(mu) == 0:
        return _cast(gen.poisson(float(mu), size), dtype)
    rate = gen.gamma(1.0 / float(alpha), float(alpha) * float(mu), size)
    return _cast(gen.poisson(rate), dtype)


def _randint(low=0, high=1, shape=(), ctx=None, dtype="int32", rng=None):
    _check("_random_randint", int(low) < int(high), f"low={low} must be < high={high}")
    return _cast(_generator(rng).integers(int(low), int(high), parse_tuple(shape)), dtype)


def _randint_infer(in_shapes, in_dtypes, shape=(), dtype="int32", **_):
    return _creation_infer(in_shapes, in_dtypes, shape=shape, dtype=dtype)


for _name, _fn, _params in [
        ("_random_poisson", _poisson, {"lam": 1.0}),
        ("_random_exponential", _exponential, {"lam": 1.0}),
        ("_random_gamma", _gamma, {"alpha": 1.0, "beta": 1.0}),
        ("_random_negative_binomial", _negative_binomial, {"k": 1, "p": 1.0}),
        ("_random_generalized_negative_binomial", _generalized_negative_binomial,
         {"mu": 1.0, "alpha": 1.0})]:
    defop(_name, _fn, arg_names=(), infer=_creation_infer, grad=_no_input_grad,
          cost=_creation_cost, params=dict(_RANDOM, **_params), doc=_fn.__doc__)
defop("_random_randint", _randint, arg_names=(), infer=_randint_infer, grad=_no_input_grad,
      cost=_creation_cost, params=dict(_RANDOM, low=0, high=1, dtype="int32"))


def _shuffle(data, rng=None):
    """A copy of ``data`` with its first axis permuted."""
    return _generator(rng).permutation(data)


defop("_shuffle", _shuffle, arg_names=("data",), infer=same_shape, grad=_no_input_grad,
      cost=input_size, params={"rng": None}, doc=_shuffle.__doc__)
