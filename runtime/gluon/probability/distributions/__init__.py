"""The distributions and the divergences between them (see the package docstring)."""
from .distribution import Distribution  # noqa: F401
from .normal import Normal  # noqa: F401
from .bernoulli import Bernoulli  # noqa: F401
from .divergence import empirical_kl, kl_divergence, register_kl  # noqa: F401

__all__ = ["Distribution", "Normal", "Bernoulli", "kl_divergence", "register_kl",
           "empirical_kl"]
