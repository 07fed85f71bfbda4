"""``gluon.probability``: MXNet 2's probability distributions on np arrays.

``Normal`` and ``Bernoulli`` with ``sample``/``sample_n`` (reparameterized where the
distribution allows: a Normal sample is ``loc + scale * eps``, so gradients reach
``loc`` and ``scale``), ``log_prob``/``prob``, ``mean``/``variance``/``stddev``,
``entropy``; ``kl_divergence`` with the closed forms registered by ``register_kl``, and
``empirical_kl`` by sampling. Every value is computed with ``mx.np``/``npx`` operators,
so a distribution used inside a hybridized block's ``forward`` is part of its graph.
"""
from .distributions import (Bernoulli, Distribution, Normal, empirical_kl,  # noqa: F401
                            kl_divergence, register_kl)

__all__ = ["Distribution", "Normal", "Bernoulli", "kl_divergence", "register_kl",
           "empirical_kl"]
