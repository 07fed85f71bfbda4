"""Optimizers with per-coordinate step sizes: ``Adam``, ``RMSProp`` (fused update
operators, one per weight) and ``AdaGrad``, ``AdaDelta``, ``Adamax``, ``Nadam``,
``FTML``, ``Ftrl`` (NDArray arithmetic: a few engine ops per weight).

The formulas, defaults and state layouts are MXNet 1.x's (its ``optimizer.py``): the
gradient is ``clip(rescale_grad * grad [+ wd * weight], clip_gradient)``, where the
optimizer folds the weight decay into it, and states are created zero, shaped like the
weight.
"""
import math

from ..ndarray import ndarray as _nd
from ..ndarray._update import push_update
from .optimizer import Optimizer, register, zeros_like

__all__ = ["Adam", "RMSProp", "AdaGrad", "AdaDelta", "Adamax", "Nadam", "FTML", "Ftrl"]


def _op(name, *inputs, **params):
    return _nd.invoke(name, inputs, params)


@register
class Adam(Optimizer):
    """Adam (``adam_update``); the bias correction is applied to the learning rate, as in
    MXNet."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = float(beta1)
        self.beta2 = float(beta2)
        self.epsilon = float(epsilon)
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        return (zeros_like(weight), zeros_like(weight))

    def update(self, index, weight, grad, state):
        self._update_count(index)
        t = self._index_update_count[index]
        params = self._common(index)
        params["lr"] *= math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        params.update(beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon,
                      lazy_update=self.lazy_update)
        push_update("adam_update", weight, grad, tuple(state), attrs=self._attrs(index),
                    **params)


@register
class RMSProp(Optimizer):
    """RMSProp (``rmsprop_update``), or its centered variant (``centered=True``,
    ``rmspropalex_update``, with ``gamma2`` the momentum); ``clip_weights`` clips
    the weights after the step."""

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8,
                 centered=False, clip_weights=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1, self.gamma2 = float(gamma1), float(gamma2)
        self.epsilon = float(epsilon)
        self.centered = bool(centered)
        self.clip_weights = clip_weights

    def create_state(self, index, weight):
        if self.centered:
            return (zeros_like(weight), zeros_like(weight), zeros_like(weight))
        return (zeros_like(weight),)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        params = self._common(index)
        params.update(gamma1=self.gamma1, epsilon=self.epsilon,
                      clip_weights=-1.0 if not self.clip_weights else
                      float(self.clip_weights))
        if self.centered:
            params["gamma2"] = self.gamma2
            push_update("rmspropalex_update", weight, grad, tuple(state),
                        attrs=self._attrs(index), **params)
        else:
            push_update("rmsprop_update", weight, grad, tuple(state),
                        attrs=self._attrs(index), **params)


@register
class AdaGrad(Optimizer):
    """AdaGrad: ``history += g**2; w -= lr * (g / sqrt(history + eps) + wd * w)``."""

    def __init__(self, eps=1e-7, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = float(eps)

    def create_state(self, index, weight):
        return zeros_like(weight)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        g = self._rescaled(grad)
        history = state
        history[:] = history + _op("square", g)
        div = g / _op("sqrt", history + self.float_stable_eps)
        weight[:] = weight - lr * (div + wd * weight)


@register
class AdaDelta(Optimizer):
    """AdaDelta: running averages of ``g**2`` and of the squared steps (``rho``); the
    step is ``sqrt(acc_delta + eps) / sqrt(acc_g + eps) * g`` (no learning rate)."""

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.rho = float(rho)
        self.epsilon = float(epsilon)

    def create_state(self, index, weight):
        return (zeros_like(weight, "float32"), zeros_like(weight, "float32"))

    def update(self, index, weight, grad, state):
        self._update_count(index)
        wd = self._get_wd(index)
        g = self._rescaled(grad)
        acc_g, acc_delta = state
        rho, eps = self.rho, self.epsilon
        acc_g[:] = rho * acc_g + (1.0 - rho) * g * g
        delta = _op("sqrt", acc_delta + eps) / _op("sqrt", acc_g + eps) * g
        acc_delta[:] = rho * acc_delta + (1.0 - rho) * delta * delta
        weight[:] = weight - (delta + wd * weight)


@register
class Adamax(Optimizer):
    """AdaMax (Adam with the infinity norm): ``m = b1 m + (1-b1) g``,
    ``u = max(b2 u, |g|)``, ``w -= lr / (1 - b1**t) * m / u``."""

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = float(beta1)
        self.beta2 = float(beta2)

    def create_state(self, index, weight):
        return (zeros_like(weight), zeros_like(weight))

    def update(self, index, weight, grad, state):
        self._update_count(index)
        t = self._index_update_count[index]
        lr = self._get_lr(index) / (1.0 - self.beta1 ** t)
        g = self._rescaled(grad, self._get_wd(index), weight)
        m, u = state
        m[:] = self.beta1 * m + (1.0 - self.beta1) * g
        u[:] = _op("_maximum", self.beta2 * u, _op("abs", g))
        weight[:] = weight - lr * m / u


@register
class Nadam(Optimizer):
    """Nadam: Adam with Nesterov momentum and a momentum schedule
    (``schedule_decay``)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 schedule_decay=0.004, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = float(beta1)
        self.beta2 = float(beta2)
        self.epsilon = float(epsilon)
        self.schedule_decay = float(schedule_decay)
        self.m_schedule = 1.0

    def create_state(self, index, weight):
        return (zeros_like(weight), zeros_like(weight))

    def update(self, index, weight, grad, state):
        self._update_count(index)
        t = self._index_update_count[index]
        lr = self._get_lr(index)
        g = self._rescaled(grad, self._get_wd(index), weight)
        b1, b2 = self.beta1, self.beta2
        mom_t = b1 * (1.0 - 0.5 * 0.96 ** (t * self.schedule_decay))
        mom_next = b1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * self.schedule_decay))
        self.m_schedule = self.m_schedule * mom_t
        m_schedule_next = self.m_schedule * mom_next
        m, v = state
        m[:] = b1 * m + (1.0 - b1) * g
        v[:] = b2 * v + (1.0 - b2) * g * g
        m_bar = ((1.0 - mom_t) / (1.0 - self.m_schedule)) * g \
            + (mom_next / (1.0 - m_schedule_next)) * m
        v_hat = v / (1.0 - b2 ** t)
        weight[:] = weight - lr * m_bar / (_op("sqrt", v_hat) + self.epsilon)


@register
class FTML(Optimizer):
    """Follow the Moving Leader: states ``(d, v, z)``;
    ``d_t = (1 - b1**t) / lr * (sqrt(v / (1 - b2**t)) + eps)``, ``w = -z / d_t``."""

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super().__init__(**kwargs)
        self.beta1 = float(beta1)
        self.beta2 = float(beta2)
        self.epsilon = float(epsilon)

    def create_state(self, index, weight):
        return (zeros_like(weight), zeros_like(weight), zeros_like(weight))

    def update(self, index, weight, grad, state):
        self._update_count(index)
        t = self._index_update_count[index]
        lr = self._get_lr(index)
        g = self._rescaled(grad, self._get_wd(index), weight)
        d, v, z = state
        b1, b2 = self.beta1, self.beta2
        v[:] = b2 * v + (1.0 - b2) * g * g
        d_t = ((1.0 - b1 ** t) / lr) * (_op("sqrt", v / (1.0 - b2 ** t)) + self.epsilon)
        z[:] = b1 * z + (1.0 - b1) * g - (d_t - b1 * d) * weight
        d[:] = d_t
        weight[:] = -z / d_t


@register
class Ftrl(Optimizer):
    """FTRL-Proximal (McMahan et al.): states ``(z, n)``; L1 strength ``lamda1``,
    ``beta`` the per-coordinate rate's offset."""

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super().__init__(**kwargs)
        self.lamda1 = float(lamda1)
        self.beta = float(beta)
        self.lr = learning_rate

    def create_state(self, index, weight):
        return (zeros_like(weight), zeros_like(weight))

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        g = self._rescaled(grad)
        z, n = state
        sq = g * g
        z[:] = z + g - (_op("sqrt", n + sq) - _op("sqrt", n)) * weight / lr
        n[:] = n + sq
        weight[:] = (_op("sign", z) * self.lamda1 - z) \
            / ((self.beta + _op("sqrt", n)) / lr + wd) * (_op("abs", z) > self.lamda1)
