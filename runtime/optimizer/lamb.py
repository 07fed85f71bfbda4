"""``LAMB``: layer-wise adaptive moments (You et al., "Large Batch Optimization for Deep
Learning"), MXNet 1.x's semantics.

Phase 1 is an Adam direction ``g = m_hat / (sqrt(v_hat) + eps) + wd * w`` (bias
correction optional); phase 2 scales the step by the trust ratio ``||w|| / ||g||``
(``||w||`` clamped to ``[lower_bound, upper_bound]`` when given; 1 when either norm is 0).
Everything stays on the engine: the norms and the ratio are 1-element arrays, never read
back. ``update`` also takes lists of indices, weights, grads and states, as MXNet's
multi-tensor LAMB does (each weight gets its own norms and update count).
"""
from ..ndarray import ndarray as _nd
from .optimizer import Optimizer, register, zeros_like

__all__ = ["LAMB"]


def _op(name, *inputs, **params):
    return _nd.invoke(name, inputs, params)


@register
class LAMB(Optimizer):
    """LAMB; states ``(mean, var)`` (with ``multi_precision`` and float16:
    ``(float32 master, (mean, var))``)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 lower_bound=None, upper_bound=None, bias_correction=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = float(beta1)
        self.beta2 = float(beta2)
        self.epsilon = float(epsilon)
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bool(bias_correction)

    def create_state(self, index, weight):
        return (zeros_like(weight), zeros_like(weight))

    def update(self, index, weight, grad, state):
        if isinstance(index, (list, tuple)):
            for args in zip(index, weight, grad, state):
                self.update(*args)
            return
        self._update_count(index)
        t = self._index_update_count[index]
        lr, wd = self._get_lr(index), self._get_wd(index)
        g = self._rescaled(grad)
        mean, var = state
        b1, b2 = self.beta1, self.beta2
        mean[:] = b1 * mean + (1.0 - b1) * g
        var[:] = b2 * var + (1.0 - b2) * _op("square", g)
        m_hat, v_hat = mean, var
        if self.bias_correction:
            m_hat = mean / (1.0 - b1 ** t)
            v_hat = var / (1.0 - b2 ** t)
        step = m_hat / (_op("sqrt", v_hat) + self.epsilon) + wd * weight
        r1 = _op("norm", weight)
        if self.lower_bound:
            r1 = _op("_maximum_scalar", r1, scalar=float(self.lower_bound))
        if self.upper_bound:
            r1 = _op("_minimum_scalar", r1, scalar=float(self.upper_bound))
        r2 = _op("norm", step)
        # ratio = r1 / r2, or 1 when either norm is 0 (no division by zero on the way)
        both = (r1 != 0) * (r2 != 0)
        ratio = _op("where", both, r1 / (r2 + (1 - both)), both * 0 + 1)
        weight[:] = weight - _op("broadcast_mul", step, ratio * lr)

    def update_multi_precision(self, index, weight, grad, state):
        if isinstance(index, (list, tuple)):
            for args in zip(index, weight, grad, state):
                self.update_multi_precision(*args)
            return
        super().update_multi_precision(index, weight, grad, state)
