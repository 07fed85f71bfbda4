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
