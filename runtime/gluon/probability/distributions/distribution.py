"""``Distribution``: what every distribution answers (MXNet 2's base class)."""
import numbers

import numpy as _onp

from .... import numpy as np

__all__ = ["Distribution", "shape_of", "check_positive"]


def shape_of(*values):
    """The broadcast shape of the distribution's parameters (numbers are ``()``)."""
    return tuple(_onp.broadcast_shapes(*[() if isinstance(v, numbers.Number) else
                                         tuple(v.shape) for v in values]))


def device_of(*values):
    for v in values:
        if not isinstance(v, numbers.Number):
            return v.device
    return None


def check_positive(name, value, who):
    """``validate_args``: every value of ``value`` > 0 (reads the values: a sync)."""
    ok = value > 0 if isinstance(value, numbers.Number) else bool(np.all(value > 0))
    if not ok:
        raise ValueError(f"{who}: {name} must be positive")


class Distribution:
    """A probability distribution over arrays (``event_dim``: how many trailing axes a
    single event has; 0 for the scalar distributions here).

    Subclasses give ``log_prob``, ``sample``, ``mean``, ``variance`` and ``entropy``;
    ``prob`` is ``exp(log_prob)``, ``stddev`` the square root of the variance,
    ``sample_n(n)`` draws ``n`` samples along a new first axis."""

    has_grad = False        # True when sample() is differentiable (reparameterized)
    support = None
    arg_constraints = {}

    def __init__(self, event_dim=0, validate_args=None):
        self.event_dim = event_dim
        self._validate_args = bool(validate_args)

    def log_prob(self, value):
        raise NotImplementedError(f"{type(self).__name__}.log_prob")

    def prob(self, value):
        return np.exp(self.log_prob(value))

    pdf = prob

    def sample(self, size=None):
        raise NotImplementedError(f"{type(self).__name__}.sample")

    def sample_n(self, size=None):
        """``size`` samples (an int or a shape) stacked before the batch axes."""
        if size is None:
            return self.sample()
        size = (size,) if isinstance(size, numbers.Integral) else tuple(size)
        return self.sample(size + self._batch_shape())

    def _batch_shape(self):
        return ()

    @property
    def mean(self):
        raise NotImplementedError(f"{type(self).__name__}.mean")

    @property
    def variance(self):
        raise NotImplementedError(f"{type(self).__name__}.variance")

    @property
    def stddev(self):
        return np.sqrt(self.variance)

    def entropy(self):
        raise NotImplementedError(f"{type(self).__name__}.entropy")

    def perplexity(self):
        return np.exp(self.entropy())

    def __repr__(self):
        return f"{type(self).__name__}()"
