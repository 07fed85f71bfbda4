"""``Bernoulli(prob=, logit=)``: a coin with probability ``prob`` of 1."""
import math
import numbers

from .... import numpy as np
from .... import numpy_extension as npx
from .distribution import Distribution, device_of, shape_of

__all__ = ["Bernoulli"]


def _softplus(x):
    return np.logaddexp(0, x)


class Bernoulli(Distribution):
    """1 with probability ``prob`` (or ``sigmoid(logit)``), else 0; exactly one of
    ``prob``/``logit`` is given. ``log_prob`` is computed from the logit (stable for
    probabilities near 0 and 1). Samples are not differentiable."""

    def __init__(self, prob=None, logit=None, F=None, validate_args=None):
        super().__init__(event_dim=0, validate_args=validate_args)
        if (prob is None) == (logit is None):
            raise ValueError("Bernoulli: give exactly one of prob and logit")
        if prob is not None and self._validate_args:
            ok = 0 <= prob <= 1 if isinstance(prob, numbers.Number) else \
                bool(np.all((prob >= 0) & (prob <= 1)))
            if not ok:
                raise ValueError("Bernoulli: prob must be in [0, 1]")
        self._prob, self._logit = prob, logit

    @property
    def prob(self):
        if self._prob is None:
            logit = self._logit
            self._prob = 1 / (1 + math.exp(-logit)) if isinstance(logit, numbers.Number) \
                else npx.sigmoid(logit)
        return self._prob

    @property
    def logit(self):
        if self._logit is None:
            p = self._prob
            self._logit = math.log(p) - math.log1p(-p) if isinstance(p, numbers.Number) \
                else np.log(p) - np.log1p(-p)
        return self._logit

    def _batch_shape(self):
        return shape_of(self._prob if self._prob is not None else self._logit)

    def log_prob(self, value):
        logit = self.logit
        return value * logit - _softplus(logit)

    def sample(self, size=None):
        shape = self._batch_shape() if size is None else \
            ((size,) if isinstance(size, int) else tuple(size))
        u = np.random.uniform(0.0, 1.0, size=shape, device=device_of(self.prob))
        return (u < self.prob).astype("float32")

    @property
    def mean(self):
        return self.prob

    @property
    def variance(self):
        return self.prob * (1 - self.prob)

    def entropy(self):
        logit = self.logit
        return _softplus(logit) - self.prob * logit

    def __repr__(self):
        return f"Bernoulli(shape {self._batch_shape()})"
