"""``mx.optimizer``: SGD, Adam, NAG, RMSProp and Signum over the engine's update
operators.

Each ``update(index, weight, grad, state)`` pushes one update op (``sgd_update``,
``sgd_mom_update``, ``adam_update``, see :mod:`.ops.optim`) that writes the weight and
its states; nothing waits. Learning rate, weight decay, ``rescale_grad`` and
``clip_gradient`` behave as in MXNet 1.x, including per-parameter ``lr_mult`` /
``wd_mult`` (from ``param_dict``, as Gluon's Trainer passes it) and Adam's bias
correction folded into the learning rate.

The same ops are ``mx.nd.sgd_update``, ``mx.nd.sgd_mom_update`` and
``mx.nd.adam_update`` (see :mod:`.ndarray._update`).
"""
import copy
import math

import numpy as np

from .ndarray import ndarray as _nd
from .ndarray._update import push_update
from .ops import optim as _optim
from .ops import registry as _registry

__all__ = ["Optimizer", "SGD", "ccSGD", "Adam", "NAG", "RMSProp", "Signum", "Updater", "get_updater",
           "create", "register"]


# -- optimizers -----------------------------------------------------------------------
_REGISTRY = {}


def register(klass):
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def create(name, **kwargs):
    """An optimizer by name ('sgd', 'adam') or instance."""
    if isinstance(name, Optimizer):
        if kwargs:
            raise ValueError("optimizer_params must be None when the optimizer is an "
                             "Optimizer instance")
        return name
    klass = _REGISTRY.get(str(name).lower())
    if klass is None:
        raise ValueError(f"optimizer {name!r} is not known; use one of "
                         f"{', '.join(sorted(_REGISTRY))}")
    return klass(**kwargs)


class Optimizer:
    """Base class: holds hyper-parameters and per-parameter update counts."""

    def __init__(self, rescale_grad=1.0, param_idx2name=None, wd=0.0, clip_gradient=None,
                 learning_rate=0.01, lr_scheduler=None, sym=None, begin_num_update=0,
                 multi_precision=False, param_dict=None):
        self.rescale_grad = float(rescale_grad)
        self.wd = float(wd)
        self.clip_gradient = clip_gradient
        self.lr = float(learning_rate)
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is not None and hasattr(lr_scheduler, "base_lr"):
            lr_scheduler.base_lr = self.lr
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._index_update_count = {}
        self.idx2name = dict(param_idx2name or {})
        self.param_dict = dict(param_dict or {})
        self.multi_precision = multi_precision
        self.lr_mult = {}
        self.wd_mult = {}
        self._attrs_cache = {}

    # -- hyper-parameters ---------------------------------------------------------------
    @property
    def learning_rate(self):
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        if self.lr_scheduler is not None:
            raise ValueError("set_learning_rate: the optimizer has an lr_scheduler; "
                             "change the scheduler instead")
        self.lr = float(lr)

    def set_lr_mult(self, args_lr_mult):
        self.lr_mult = dict(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        self.wd_mult = dict(args_wd_mult)

    def _mult(self, index, table, attr):
        if index in self.param_dict:
            return getattr(self.param_dict[index], attr, 1.0)
        if index in table:
            return table[index]
        name = self.idx2name.get(index)
        return table.get(name, 1.0) if name is not None else 1.0

    def _get_lr(self, index):
        return self.learning_rate * self._mult(index, self.lr_mult, "lr_mult")

    def _get_wd(self, index):
        return self.wd * self._mult(index, self.wd_mult, "wd_mult")

    def _update_count(self, index):
        count = self._index_update_count.get(index, self.begin_num_update) + 1
        self._index_update_count[index] = count
        self.num_update = max(count, self.num_update)
        return count

    def _attrs(self, index):
        """Engine attrs of the update op of parameter ``index``: ``{"name": ...}``."""
        attrs = self._attrs_cache.get(index)
        if attrs is None:
            name = self.idx2name.get(index)
            if name is None and index in self.param_dict:
                name = getattr(self.param_dict[index], "name", None)
            attrs = self._attrs_cache[index] = {"name": str(name if name is not None
                                                            else index)}
        return attrs

    def _common(self, index):
        clip = self.clip_gradient
        return {"lr": self._get_lr(index), "wd": self._get_wd(index),
                "rescale_grad": self.rescale_grad,
                "clip_gradient": -1.0 if clip is None else float(clip)}

    # -- interface -------------------------------------------------------------------
    def create_state(self, index, weight):
        return None

    def create_state_multi_precision(self, index, weight):
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        raise NotImplementedError

    def update_multi_precision(self, index, weight, grad, state):
        self.update(index, weight, grad, state)

    def __repr__(self):
        return f"{type(self).__name__}(learning_rate={self.lr}, wd={self.wd})"


def _zeros_like(weight):
    return _nd.push_op(_registry.registry["_zeros"], (),
                       {"shape": weight.shape, "dtype": weight._dtype.name},
                       ctx=weight.context)[0]


@register
class SGD(Optimizer):
    """SGD, with momentum when ``momentum > 0`` (``sgd_mom_update``)."""

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = float(momentum)
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def update(self, index, weight, grad, state):
        self._update_count(index)
        params = self._common(index)
        if state is not None:
            params["momentum"] = self.momentum
            push_update("sgd_mom_update", weight, grad, (state,), attrs=self._attrs(index),
                        **params)
        else:
            push_update("sgd_update", weight, grad, (), attrs=self._attrs(index), **params)


@register
class Adam(Optimizer):
    """Adam; bias correction is applied to the learning rate (as in MXNet)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = float(beta1)
        self.beta2 = float(beta2)
        self.epsilon = float(epsilon)

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))

    def update(self, index, weight, grad, state):
        t = self._update_count(index)
        params = self._common(index)
        params["lr"] *= math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        params.update(beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon)
        push_update("adam_update", weight, grad, tuple(state), attrs=self._attrs(index),
                    **params)


class Updater:
    """Holds the optimizer states; ``updater(index, grad, weight)`` updates one weight."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}

    def __call__(self, index, grad, weight):
        if index not in self.states:
            self.states[index] = self.optimizer.create_state_multi_precision(index, weight)
        self.optimizer.update_multi_precision(index, weight, grad, self.states[index])

    def get_states(self, dump_optimizer=False):
        import pickle
        states = {k: _state_numpy(v) for k, v in self.states.items()}
        if not dump_optimizer:
            return pickle.dumps(states)
        opt = copy.copy(self.optimizer)
        opt.param_dict = {}        # parameters are not part of the optimizer's state
        return pickle.dumps((states, opt))

    def set_states(self, blob):
        import pickle
        obj = pickle.loads(blob)
        if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[1], Optimizer):
            obj, self.optimizer = obj
        self.states = {k: _state_nd(v) for k, v in obj.items()}


def _state_numpy(state):
    if state is None:
        return None
    if isinstance(state, (tuple, list)):
        return tuple(_state_numpy(s) for s in state)
    return state.asnumpy()


def _state_nd(state):
    if state is None:
        return None
    if isinstance(state, (tuple, list)):
        return tuple(_state_nd(s) for s in state)
    return _nd.from_numpy(np.asarray(state))


@register
class NAG(SGD):
    """SGD with Nesterov momentum (``nag_mom_update``; plain ``sgd_update`` without
    momentum)."""

    def update(self, index, weight, grad, state):
        self._update_count(index)
        params = self._common(index)
        if state is None:
            push_update("sgd_update", weight, grad, (), attrs=self._attrs(index), **params)
            return
        params["momentum"] = self.momentum
        push_update("nag_mom_update", weight, grad, (state,), attrs=self._attrs(index),
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
            return (_zeros_like(weight), _zeros_like(weight), _zeros_like(weight))
        return (_zeros_like(weight),)

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
class Signum(Optimizer):
    """signSGD (``momentum=0``, ``signsgd_update``) and Signum (``signum_update``);
    ``wd_lh`` is the decoupled weight decay."""

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = float(momentum)
        self.wd_lh = float(wd_lh)

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def update(self, index, weight, grad, state):
        self._update_count(index)
        params = self._common(index)
        if state is None:
            params["wd"] += self.wd_lh
            push_update("signsgd_update", weight, grad, (), attrs=self._attrs(index),
                        **params)
            return
        params.update(momentum=self.momentum, wd_lh=self.wd_lh)
        push_update("signum_update", weight, grad, (state,), attrs=self._attrs(index),
                    **params)


@register
class ccSGD(SGD):
    """MXNet 1.x's deprecated name for SGD (``optimizer='ccsgd'``), kept so old
    scripts (MXNet's example/profiler/profiler_executor.py) run."""


def get_updater(optimizer):
    return Updater(optimizer)


# MXNet spells these in lower case too
sgd = SGD
adam = Adam
nag = NAG
rmsprop = RMSProp
signum = Signum
assert set(_optim.UPDATE_OPS) <= set(_registry.registry)
