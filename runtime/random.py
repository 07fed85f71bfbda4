"""``mx.random``: seed the shared generator and draw arrays (see ``mx.nd.random``)."""
from .ndarray.random import (exponential, gamma, generalized_negative_binomial,
                             negative_binomial, normal, poisson, randint, randn, seed, shuffle,
                             uniform)

__all__ = ["seed", "uniform", "normal", "randn", "poisson", "exponential", "gamma",
           "negative_binomial", "generalized_negative_binomial", "randint", "shuffle"]
