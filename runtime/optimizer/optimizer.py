"""``mx.optimizer.Optimizer``: the base class every optimizer derives from, the registry
behind ``mx.optimizer.create`` and the ``Updater`` that keeps the per-weight states.

The base class holds what MXNet 1.x's does and computes it the same way: the learning
rate (``learning_rate``, or an ``lr_scheduler`` asked at every update), per-parameter
``lr_mult`` / ``wd_mult`` (from ``param_dict``, as Gluon's Trainer passes it, from
``set_lr_mult`` / ``set_wd_mult``, or from ``__lr_mult__`` / ``__wd_mult__`` attributes
of the Symbol ``sym`` given to the constructor; a parameter named in ``param_idx2name``
that is not a ``*_weight`` or ``*_gamma`` gets ``wd_mult`` 0), per-index update counts,
and ``multi_precision``: a float16 weight is updated through a float32 master copy kept
in its state (``create_state_multi_precision`` / ``update_multi_precision``).

Every optimizer pushes engine ops and never waits: the fused update operators of
:mod:`..ops.optim` where MXNet has one (one op per weight, named after the weight), or
NDArray arithmetic where MXNet's optimizer is Python too (AdaGrad, AdaDelta, ...).
"""
import pickle
import warnings

import numpy as np

from ..ndarray import ndarray as _nd
from ..ops import registry as _registry

__all__ = ["Optimizer", "Updater", "get_updater", "create", "register"]


class Optimizer:
    """Base class: holds hyper-parameters and per-parameter update counts."""

    opt_registry = {}

    def __init__(self, rescale_grad=1.0, param_idx2name=None, wd=0.0, clip_gradient=None,
                 learning_rate=None, lr_scheduler=None, sym=None, begin_num_update=0,
                 multi_precision=False, param_dict=None):
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if lr_scheduler is not None and learning_rate is not None:
            if getattr(lr_scheduler, "base_lr", learning_rate) != learning_rate:
                lr_scheduler.base_lr = learning_rate
        self.wd = wd
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._all_index_update_counts = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.aggregate_num = 0
        from ..util import is_np_array
        self.allow_np_array = is_np_array()   # MXNet 1.x's flag (kept; never required)
        if param_idx2name is None:
            param_idx2name = {}
        if not isinstance(param_idx2name, dict):
            raise ValueError("param_idx2name must be a dict of parameter indexes to names, "
                             f"got {type(param_idx2name).__name__}")
        self.idx2name = dict(param_idx2name)
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = dict(param_dict) if param_dict else {}
        self._attrs_cache = {}
        self.set_lr_mult({})
        self.set_wd_mult({})

    # -- the registry -----------------------------------------------------------------
    @staticmethod
    def register(klass):
        """Class decorator: ``mx.optimizer.create(name)`` finds ``klass`` by its lower-case
        name."""
        if not isinstance(klass, type) or not issubclass(klass, Optimizer):
            raise ValueError(f"register: {klass!r} is not an Optimizer subclass")
        name = klass.__name__.lower()
        if name in Optimizer.opt_registry and Optimizer.opt_registry[name] is not klass:
            warnings.warn(f"WARNING: New optimizer {klass.__module__}.{klass.__name__} is "
                          f"overriding existing optimizer {name}", stacklevel=2)
        Optimizer.opt_registry[name] = klass
        return klass

    @staticmethod
    def create_optimizer(name, **kwargs):
        """An optimizer by (case-insensitive) name: ``create_optimizer('sgd', momentum=0.9)``."""
        klass = Optimizer.opt_registry.get(str(name).lower())
        if klass is None:
            raise ValueError(f"optimizer {name!r} is not known; use one of "
                             f"{', '.join(sorted(Optimizer.opt_registry))}")
        return klass(**kwargs)

    # -- hyper-parameters ---------------------------------------------------------------
    @property
    def learning_rate(self):
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        """A new learning rate; with an ``lr_scheduler`` raises UserWarning, as MXNet does
        (the scheduler owns the rate then)."""
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined: "
                              "set_learning_rate can change the learning rate only when "
                              "the optimizer has no lr_scheduler")
        self.lr = lr

    def set_lr_scale(self, args_lrscale):
        raise DeprecationWarning("set_lr_scale is deprecated; use set_lr_mult")

    def _sym_mults(self, key):
        if not self.sym_info:
            return {}
        attr, arg_names = self.sym_info
        return {n: float(attr[n][key]) for n in arg_names if key in attr.get(n, {})}

    def set_lr_mult(self, args_lr_mult):
        """Learning-rate multipliers by parameter name (or index); the Symbol's
        ``lr_mult`` attributes come first, ``args_lr_mult`` overrides them."""
        self.lr_mult = self._sym_mults("__lr_mult__")
        self.lr_mult.update(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        """Weight-decay multipliers: 0 for every named parameter that is not a
        ``*_weight`` or ``*_gamma``, then the Symbol's ``wd_mult`` attributes, then
        ``args_wd_mult``."""
        self.wd_mult = {n: 0.0 for n in self.idx2name.values()
                        if not (n.endswith("_weight") or n.endswith("_gamma"))}
        self.wd_mult.update(self._sym_mults("__wd_mult__"))
        self.wd_mult.update(args_wd_mult)

    def _set_current_context(self, device_id):
        """Update counts are kept per device, as in MXNet."""
        self._index_update_count = self._all_index_update_counts.setdefault(device_id, {})

    def _update_count(self, index):
        """Count one more update of ``index`` (or of every index of a list)."""
        for idx in index if isinstance(index, (list, tuple)) else (index,):
            count = self._index_update_count.get(idx, self.begin_num_update) + 1
            self._index_update_count[idx] = count
            self.num_update = max(count, self.num_update)

    def _mults(self, indices, table, attr):
        out = []
        for index in indices:
            if index in self.param_dict:
                out.append(getattr(self.param_dict[index], attr, 1.0))
            elif index in table:
                out.append(table[index])
            elif index in self.idx2name:
                out.append(table.get(self.idx2name[index], 1.0))
            else:
                out.append(1.0)
        return out

    def _get_lrs(self, indices):
        lr = self.learning_rate
        return [lr * m for m in self._mults(indices, self.lr_mult, "lr_mult")]

    def _get_lr(self, index):
        return self._get_lrs([index])[0]

    def _get_wds(self, indices):
        return [self.wd * m for m in self._mults(indices, self.wd_mult, "wd_mult")]

    def _get_wd(self, index):
        return self._get_wds([index])[0]

    # -- what the update ops are given ----------------------------------------------------
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

    def _clip(self):
        """The ``clip_gradient`` operator parameter: MXNet clips only when it is set and
        non-zero."""
        return float(self.clip_gradient) if self.clip_gradient else -1.0

    def _common(self, index):
        return {"lr": self._get_lr(index), "wd": self._get_wd(index),
                "rescale_grad": float(self.rescale_grad), "clip_gradient": self._clip()}

    def _rescaled(self, grad, wd=0.0, weight=None):
        """``clip(grad * rescale_grad [+ wd * weight])`` as NDArray ops (for the optimizers
        MXNet writes in Python)."""
        g = grad * self.rescale_grad
        if wd:
            g = g + wd * weight
        if self.clip_gradient is not None:
            g = _nd.invoke("clip", (g,), {"a_min": -float(self.clip_gradient),
                                          "a_max": float(self.clip_gradient)})
        return g

    # -- interface -------------------------------------------------------------------
    def create_state(self, index, weight):
        return None

    def create_state_multi_precision(self, index, weight):
        """With ``multi_precision`` and a float16 weight: ``(float32 master copy,
        create_state(master))``; else ``create_state(weight)``."""
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            return (master, self.create_state(index, master))
        if weight.dtype == np.float16:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy "
                          "or slow convergence; consider multi_precision=True", stacklevel=2)
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        raise NotImplementedError(f"{type(self).__name__}.update")

    def update_multi_precision(self, index, weight, grad, state):
        """A float16 weight with ``multi_precision``: update the float32 master copy with a
        float32 gradient, then cast it into the weight."""
        if self.multi_precision and weight.dtype == np.float16:
            master, inner = state
            self.update(index, master, grad.astype(np.float32), inner)
            _cast_into(master, weight)
        else:
            self.update(index, weight, grad, state)

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("param_dict", None)      # the Trainer sets it again
        state["_attrs_cache"] = {}
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        self.param_dict = {}

    def __repr__(self):
        return f"{type(self).__name__}(learning_rate={self.lr}, wd={self.wd})"


register = Optimizer.register


def create(name, **kwargs):
    """An optimizer by name ('sgd', 'adam', ...) or the instance given."""
    if isinstance(name, Optimizer):
        if kwargs:
            raise ValueError("optimizer_params must be None when the optimizer is an "
                             "Optimizer instance")
        return name
    return Optimizer.create_optimizer(name, **kwargs)


def zeros_like(weight, dtype=None):
    """A zero state array shaped like ``weight`` (its dtype unless ``dtype``)."""
    return _nd.push_op(_registry.registry["_zeros"], (),
                       {"shape": weight.shape,
                        "dtype": np.dtype(dtype).name if dtype else weight._dtype.name},
                       ctx=weight.context)[0]


def _cast_into(src, dst):
    """``dst[:] = src`` cast to ``dst``'s dtype: one ``Cast`` op."""
    _nd.invoke("Cast", (src,), {"dtype": dst._dtype.name}, out=dst)


class Updater:
    """Holds the optimizer states; ``updater(index, grad, weight)`` updates one weight (or,
    with lists of indices, grads and weights, each of them)."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}

    def __call__(self, index, grad, weight):
        if isinstance(index, (list, tuple)):
            triples = list(zip(index, grad, weight))
        else:
            triples = [(index, grad, weight)]
        if triples:
            self.optimizer._set_current_context(triples[0][2].context.device_id)
        opt = self.optimizer
        triples = [(i.decode() if isinstance(i, bytes) else i, g, w) for i, g, w in triples]
        for i, g, w in triples:
            if i not in self.states:
                self.states[i] = opt.create_state_multi_precision(i, w)
        size = getattr(opt, "aggregate_num", 0)
        if size <= 0:
            for i, g, w in triples:
                opt.update_multi_precision(i, w, g, self.states[i])
            return
        # MXNet 1.9.1: weights grouped by dtype, each group in chunks of aggregate_num,
        # one (aggregated) update per chunk
        by_dtype = {}
        for t in triples:
            by_dtype.setdefault(t[2].dtype, []).append(t)
        for group in by_dtype.values():
            for start in range(0, len(group), size):
                chunk = group[start:start + size]
                idx = [i for i, _, _ in chunk]
                opt.update_multi_precision(idx, [w for _, _, w in chunk],
                                           [g for _, g, _ in chunk],
                                           [self.states[i] for i in idx])

    def get_states(self, dump_optimizer=False):
        """The states (and, with ``dump_optimizer``, the optimizer without its
        ``param_dict``) pickled, arrays as numpy."""
        states = {k: _state_numpy(v) for k, v in self.states.items()}
        return pickle.dumps((states, self.optimizer) if dump_optimizer else states)

    def set_states(self, blob):
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


def get_updater(optimizer):
    return Updater(optimizer)
