"""The SGD family: ``SGD`` (with momentum), ``NAG`` (Nesterov), ``Signum`` / signSGD,
``SGLD`` (Langevin dynamics) and ``DCASGD`` (delay-compensated SGD).

SGD, NAG and Signum push MXNet's fused update operators (``sgd_update``,
``sgd_mom_update``, ``nag_mom_update``, ``signsgd_update``, ``signum_update``; see
:mod:`...ops.optim`), one per weight; SGD given several weights at once (the
``Updater`` groups them, as MXNet 1.9.1's does, by ``MXNET_OPTIMIZER_AGGREGATION_SIZE``,
default 4) pushes one ``multi_sgd_update``/``multi_sgd_mom_update`` (``multi_mp_*`` for
float16 weights with master copies) per group. With ``multi_precision`` a float16 weight's state is
``(momentum, float32 master weight)``, as in MXNet: the update runs on the master copy
and a ``Cast`` writes it back. SGLD and DCASGD are NDArray arithmetic, as MXNet writes
them.
"""
import math

import numpy as np

from ..ndarray import random as _random
from .. import _env
from ..ndarray._update import push_multi_update, push_update
from .optimizer import Optimizer, _cast_into, register, zeros_like

__all__ = ["SGD", "ccSGD", "NAG", "Signum", "SGLD", "DCASGD", "Test"]


class _Momentum(Optimizer):
    """A momentum state (zeros) when ``momentum != 0``, else None; ``_push`` runs the
    plain op without a state and the momentum op with one."""

    momentum = 0.0

    def create_state(self, index, weight):
        return zeros_like(weight) if self.momentum != 0.0 else None

    def _push(self, index, weight, grad, state, plain, with_momentum, plain_extra=None,
              momentum_extra=None):
        self._update_count(index)
        params = self._common(index)
        if state is None:
            for k, v in (plain_extra or {}).items():
                params[k] = params.get(k, 0.0) + v
            push_update(plain, weight, grad, (), attrs=self._attrs(index), **params)
            return
        params.update(momentum=self.momentum, **(momentum_extra or {}))
        push_update(with_momentum, weight, grad, (state,), attrs=self._attrs(index),
                    **params)


class _MasterLast(_Momentum):
    """Multi-precision state ``(create_state(master), master)``: MXNet's layout for SGD
    and NAG (the base class puts the master first)."""

    def create_state_multi_precision(self, index, weight):
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            return (self.create_state(index, master), master)
        return super().create_state_multi_precision(index, weight)

    def update_multi_precision(self, index, weight, grad, state):
        if self.multi_precision and weight.dtype == np.float16 and \
                isinstance(state, (tuple, list)):
            inner, master = state
            self.update(index, master, grad.astype(np.float32), inner)
            _cast_into(master, weight)
        else:
            self.update(index, weight, grad, state)


@register
class SGD(_MasterLast):
    """SGD, with momentum when ``momentum > 0`` (``sgd_mom_update``, else
    ``sgd_update``)."""

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = float(momentum)
        self.lazy_update = lazy_update
        self.aggregate_num = _env.get_int("OPTIMIZER_AGGREGATION_SIZE", 4)

    def update(self, index, weight, grad, state):
        if isinstance(index, (list, tuple)):
            self._update_many(index, weight, grad, state, False)
        else:
            self._push(index, weight, grad, state, "sgd_update", "sgd_mom_update",
                       {"lazy_update": self.lazy_update}, {"lazy_update": self.lazy_update})

    def update_multi_precision(self, index, weight, grad, state):
        if not isinstance(index, (list, tuple)):
            return super().update_multi_precision(index, weight, grad, state)
        mp = self.multi_precision and weight[0].dtype == np.float16
        return self._update_many(index, weight, grad, state, mp)

    def _update_many(self, indices, weights, grads, states, multi_precision):
        """One aggregated op for the weights (MXNet 1.9.1's ``SGD._update_impl``): its
        momentum form when ``momentum > 0``, weights and grads flattened in groups."""
        if any(w.stype != "default" or g.stype != "default" for w, g in zip(weights, grads)):
            for i, w, g, s in zip(indices, weights, grads, states):
                (self.update_multi_precision if multi_precision else self.update)(i, w, g, s)
            return
        self._update_count(indices)
        params = {"lrs": tuple(self._get_lrs(indices)), "wds": tuple(self._get_wds(indices)),
                  "rescale_grad": float(self.rescale_grad), "clip_gradient": self._clip()}
        mom = self.momentum > 0
        if mom:
            params["momentum"] = self.momentum
        groups = []
        for w, g, s in zip(weights, grads, states):
            if multi_precision:
                inner, master = s
                groups += [w, g] + ([inner] if mom else []) + [master]
            else:
                groups += [w, g] + ([s] if mom else [])
        name = ("multi_mp_sgd" if multi_precision else "multi_sgd") + ("_mom" if mom else "")
        push_multi_update(name + "_update", groups, list(weights), **params)


@register
class ccSGD(SGD):
    """MXNet 1.x's deprecated name for SGD (``optimizer='ccsgd'``), kept so old scripts
    (MXNet's example/profiler/profiler_executor.py) run."""


@register
class NAG(_MasterLast):
    """SGD with Nesterov momentum (``nag_mom_update``; ``sgd_update`` without
    momentum)."""

    def __init__(self, momentum=0.0, **kwargs):
        super().__init__(**kwargs)
        self.momentum = float(momentum)

    def update(self, index, weight, grad, state):
        self._push(index, weight, grad, state, "sgd_update", "nag_mom_update")


@register
class Signum(_Momentum):
    """signSGD (``momentum=0``, ``signsgd_update``) and Signum (``signum_update``);
    ``wd_lh`` is the decoupled weight decay."""

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = float(momentum)
        self.wd_lh = float(wd_lh)

    def update(self, index, weight, grad, state):
        self._push(index, weight, grad, state, "signsgd_update", "signum_update",
                   plain_extra={"wd": self.wd_lh}, momentum_extra={"wd_lh": self.wd_lh})


@register
class SGLD(Optimizer):
    """Stochastic Gradient Langevin Dynamics: half an SGD step plus Gaussian noise of
    variance ``lr`` (drawn from ``mx.random``, so ``mx.random.seed`` fixes it)."""

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        g = self._rescaled(grad)
        weight[:] = weight - (lr / 2) * (g + wd * weight)
        weight[:] = weight + _random.normal(0, math.sqrt(lr), shape=weight.shape,
                                            dtype=weight.dtype, ctx=weight.context)


@register
class DCASGD(Optimizer):
    """Delay-compensated asynchronous SGD: the step gets ``lamda * g * g * (w - w_prev)``
    added; the state is ``(momentum or None, previous weight)``."""

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super().__init__(**kwargs)
        self.momentum = float(momentum)
        self.lamda = float(lamda)

    def create_state(self, index, weight):
        mom = zeros_like(weight) if self.momentum != 0.0 else None
        return (mom, weight.copy())

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        g = self._rescaled(grad)
        mom, previous = state
        step = -lr * (g + wd * weight + self.lamda * g * g * (weight - previous))
        if mom is not None:
            mom[:] = mom * self.momentum + step
            step = mom
        previous[:] = weight
        weight[:] = weight + step




@register
class Test(Optimizer):
    """MXNet's ``'test'`` optimizer (``mx.optimizer.Test``, used by its kvstore tests):
    ``weight += rescale_grad * grad``, the state keeps a copy of the weight."""

    def create_state(self, index, weight):
        return zeros_like(weight)

    def update(self, index, weight, grad, state):
        weight[:] = weight + grad * self.rescale_grad
        state[:] = weight
