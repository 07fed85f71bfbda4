"""``Normal(loc, scale)``: the Gaussian distribution."""
import math
import numbers

from .... import numpy as np
from .distribution import Distribution, check_positive, device_of, shape_of

__all__ = ["Normal"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _log(x):
    return math.log(x) if isinstance(x, numbers.Number) else np.log(x)


class Normal(Distribution):
    """N(loc, scale**2) elementwise; ``loc`` and ``scale`` are arrays or numbers that
    broadcast together. ``sample`` is reparameterized: ``loc + scale * eps`` with
    ``eps`` drawn from N(0, 1) (op ``_npi_normal``), so gradients reach the parameters."""

    has_grad = True

    def __init__(self, loc=0.0, scale=1.0, F=None, validate_args=None):
        super().__init__(event_dim=0, validate_args=validate_args)
        if self._validate_args:
            check_positive("scale", scale, "Normal")
        self.loc = loc
        self.scale = scale

    def _batch_shape(self):
        return shape_of(self.loc, self.scale)

    def sample(self, size=None):
        """One draw per element of ``size`` (default: the parameters' broadcast shape;
        a given size must broadcast with it)."""
        shape = self._batch_shape() if size is None else \
            ((size,) if isinstance(size, int) else tuple(size))
        eps = np.random.normal(0.0, 1.0, size=shape, device=device_of(self.loc, self.scale))
        return self.loc + self.scale * eps

    def log_prob(self, value):
        var = self.scale ** 2
        log_scale = _log(self.scale)
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - _HALF_LOG_2PI

    def cdf(self, value):
        from .... import numpy_extension as npx
        return 0.5 * (1 + npx.erf((value - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value):
        from .... import numpy_extension as npx
        return self.loc + self.scale * npx.erfinv(2 * value - 1) * math.sqrt(2)

    @property
    def mean(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale ** 2

    def entropy(self):
        log_scale = _log(self.scale)
        return 0.5 + _HALF_LOG_2PI + log_scale

    def __repr__(self):
        return f"Normal(loc shape {shape_of(self.loc)}, scale shape {shape_of(self.scale)})"
