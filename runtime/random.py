"""``mx.random``: seed the shared generator and draw arrays (see ``mx.nd.random``)."""
from .ndarray.random import normal, randn, seed, uniform

__all__ = ["seed", "uniform", "normal", "randn"]
