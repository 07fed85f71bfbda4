"""``gluon.Trainer``: applies an optimizer to a set of Parameters, MXNet 1.x's way.

``step(batch_size)`` sums each parameter's gradients over its contexts (through the
kvstore when there are several: ``pushpull``), then pushes one update op per parameter
and context (``sgd_mom_update`` for ``conv0_weight``...), each carrying the parameter's
name as its engine attrs, and returns without waiting: the updates run on the engine
after the backward ops that write the gradients.

The kvstore is chosen at the first step, as in MXNet: a type name with a single context
means no store (nothing to sum); an ``mx.kv`` store object is used as given. With a
store that can run the optimizer, ``update_on_kvstore`` (default: the environment's
``MXNET_UPDATE_ON_KVSTORE``, 1) makes the store apply the updates (gradients pushed,
weights pulled back); otherwise one Updater per context does. ``params.load`` /
``set_data`` drop a store that holds the weights (``_reset_kvstore``).
"""
import os

from .. import optimizer as _opt
from .parameter import Parameter, ParameterDict

__all__ = ["Trainer"]


class Trainer:
    """``Trainer(params, 'sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-4})``.

    ``params`` is a ParameterDict (``net.collect_params()``), a dict or a list of
    Parameters; ``optimizer`` a name or an ``mx.optimizer.Optimizer``. Gradients are
    scaled by ``rescale_grad / batch_size`` at each step (``rescale_grad`` defaults to
    1). ``kvstore`` is a type name (``'device'``, ``'local'``...), an ``mx.kv`` store or
    None.
    """

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device",
                 compression_params=None, update_on_kvstore=None):
        from .. import kvstore as _kv
        if isinstance(params, (dict, ParameterDict)):
            params = list(params.values())
        elif isinstance(params, Parameter):
            params = [params]
        if not isinstance(params, (list, tuple)):
            raise ValueError("Trainer: params must be a ParameterDict, a dict or a list "
                             f"of Parameters, got {type(params).__name__}")
        if kvstore is not None and not isinstance(kvstore, (str, _kv.KVStoreBase)):
            raise ValueError(f"Trainer: kvstore={kvstore!r} must be a kvstore type name, "
                             "an mx.kv store or None")
        self._params = []
        self._param2idx = {}
        seen = set()
        for p in params:
            if not isinstance(p, Parameter):
                raise ValueError(f"Trainer: {p!r} is not a Parameter")
            if id(p) in seen:
                continue
            seen.add(id(p))
            self._param2idx[p.name] = len(self._params)
            self._params.append(p)
            p._set_trainer(self)
        self._compression_params = compression_params
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, dict(optimizer_params or {}))
        self._scale = float(self._optimizer.rescale_grad)
        self._kvstore_params = {"kvstore": kvstore, "update_on_kvstore": update_on_kvstore}
        self._reset_kvstore()

    def _check_contexts(self):
        """The contexts every parameter lives on (None while none is initialized)."""
        contexts = None
        for p in self._params:
            try:
                ctx = p.list_ctx()
            except RuntimeError:
                continue                       # not initialized yet: checked at step
            if contexts is not None and contexts != ctx:
                raise ValueError(f"Trainer: all Parameters must be on the same contexts; "
                                 f"{p.name!r} is on {ctx}, earlier ones on {contexts}")
            contexts = ctx
        return contexts

    def _init_optimizer(self, optimizer, optimizer_params):
        param_dict = dict(enumerate(self._params))
        if isinstance(optimizer, _opt.Optimizer):
            if optimizer_params:
                raise ValueError("Trainer: optimizer_params must be empty when optimizer "
                                 "is an Optimizer instance")
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = _opt.create(optimizer, param_dict=param_dict,
                                          **optimizer_params)
        self._updaters = [_opt.get_updater(self._optimizer)
                          for _ in (self._contexts or [None])]

    # -- the kvstore ----------------------------------------------------------------------
    def _reset_kvstore(self):
        """Forget the store (chosen again at the next step)."""
        self._kv_initialized = False
        self._kvstore = None
        self._distributed = False
        self._update_on_kvstore = None
        self._params_to_init = list(self._params)

    def _init_kvstore(self):
        """Choose the store and whether it runs the updates (MXNet's rules, see the
        module docstring)."""
        from .. import kvstore as _kv
        contexts = self._check_contexts() or self._contexts or [None]
        if len(contexts) != len(self._updaters):
            self._updaters = [_opt.get_updater(self._optimizer) for _ in contexts]
        self._contexts = contexts
        config = self._kvstore_params
        kind = config["kvstore"]
        on_kv = bool(int(os.environ.get("MXNET_UPDATE_ON_KVSTORE", "1")))
        sparse_weight = any(p._stype != "default" for p in self._params)
        if sparse_weight:
            # MXNet: a sparse weight lives in a store that updates it (row_sparse_data
            # pulls its rows from there), whatever the contexts
            if config["update_on_kvstore"] is False:
                raise ValueError("Cannot set update_on_kvstore=False when sparse weights "
                                 "are present.")
            if not isinstance(kind, (str, _kv.KVStoreBase)):
                raise TypeError(f"Cannot create '{kind}' KVStore with row_sparse "
                                "parameters. The type must be KVStore or str.")
            kv = _kv.create(kind) if isinstance(kind, str) else kind
        elif kind is None:
            kv = None
        elif isinstance(kind, str):
            # one context needs no store, unless it is distributed (MXNet's rule too)
            kv = None if len(contexts) == 1 and "dist" not in kind else _kv.create(kind)
        else:
            kv = kind
        if not sparse_weight and any(p._grad_stype != "default" for p in self._params):
            # MXNet: with sparse gradients the Updaters update, unless distributed
            on_kv = kv is not None and "dist" in kv.type
        if config["update_on_kvstore"] is not None:
            on_kv = bool(config["update_on_kvstore"])
        if sparse_weight:
            on_kv = True
        elif kv is None:
            if config["update_on_kvstore"]:
                raise ValueError("Trainer: update_on_kvstore=True needs a kvstore: pass "
                                 "an mx.kv store (a type name with one context means none)")
            on_kv = None
        elif "async" in kv.type:   # MXNet: only the store's servers update in async mode
            if config["update_on_kvstore"] is not None and not config["update_on_kvstore"]:
                raise ValueError("Please set update_on_kvstore to true when training in "
                                 "async mode.")
            on_kv = True
        elif on_kv and not kv.is_capable(_kv.KVStoreBase.OPTIMIZER):
            if config["update_on_kvstore"]:
                raise ValueError(f"Trainer: update_on_kvstore=True, but the "
                                 f"{kv.type!r} kvstore cannot run an optimizer; set "
                                 "update_on_kvstore=False")
            on_kv = False
        if kv is not None:
            if self._compression_params:
                kv.set_gradient_compression(self._compression_params)
            if on_kv:
                kv.set_optimizer(self._optimizer)
        self._kvstore = kv
        self._update_on_kvstore = on_kv
        self._kv_initialized = True

    def _init_params(self):
        """Give the store each parameter's weight (and every context the same one)."""
        pending = []
        for p in self._params_to_init:
            if p._data is None:
                pending.append(p)
                continue
            if self._kvstore is not None:
                arrays = p._arrays()
                if p._stype != "default":      # MXNet: the store's copy, pulled by rows
                    self._kvstore.init(self._param2idx[p.name], arrays[0])
                else:
                    self._kvstore.broadcast(self._param2idx[p.name], arrays[0], arrays)
        self._params_to_init = pending

    def _ready(self):
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()

    # -- hyper-parameters -------------------------------------------------------------
    @property
    def optimizer(self):
        return self._optimizer

    @property
    def learning_rate(self):
        return self._optimizer.learning_rate

    def set_learning_rate(self, lr):
        self._optimizer.set_learning_rate(lr)

    # -- stepping ---------------------------------------------------------------------------
    def step(self, batch_size, ignore_stale_grad=False):
        """Sum the gradients over the contexts, then update every parameter with them
        scaled by ``rescale_grad / batch_size``."""
        self._optimizer.rescale_grad = self._scale / batch_size
        self._ready()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sum each parameter's gradients over its contexts (for ``update`` later)."""
        self._ready()
        if self._kvstore is not None and self._update_on_kvstore:
            raise AssertionError("allreduce_grads() is not supported when the kvstore "
                                 "updates the parameters; create the Trainer with "
                                 "update_on_kvstore=False")
        self._allreduce_grads()

    def update(self, batch_size, ignore_stale_grad=False):
        """Update with the gradients as they are (after ``allreduce_grads``)."""
        self._ready()
        if self._kvstore is not None and self._update_on_kvstore:
            raise AssertionError("update() is not supported when the kvstore updates the "
                                 "parameters; create the Trainer with "
                                 "update_on_kvstore=False")
        self._optimizer.rescale_grad = self._scale / batch_size
        self._update(ignore_stale_grad)

    def _live(self):
        for i, p in enumerate(self._params):
            if p.grad_req == "null":
                continue
            if p._data is None:
                p._check_initialized()         # raises a clear error
            yield i, p

    def _allreduce_grads(self):
        kv = self._kvstore
        if kv is None:
            return
        for i, p in self._live():
            grads = p.list_grad()
            if grads[0].stype != "default":    # MXNet: sparse gradients pushed, then
                kv.push(i, grads, priority=-i)   # a dense weight (or gradient) pulled
                if p._stype == "default":
                    kv.pull(i, p._arrays() if self._update_on_kvstore else grads,
                            priority=-i, ignore_sparse=self._distributed)
            elif self._update_on_kvstore:
                kv.pushpull(i, grads, out=p._arrays(), priority=-i)
            else:
                kv.pushpull(i, grads, priority=-i)

    def _row_sparse_pull(self, parameter, out, row_id, full_idx=False):
        """A row_sparse weight's rows ``row_id`` from the store into ``out`` (the
        parameter's own arrays; ``full_idx``: every row, one pull). Store operations are
        not recorded, even inside ``autograd.record()`` (a forward pass pulls)."""
        from .. import autograd
        with autograd.pause():
            self._ready()
            idx = self._param2idx[parameter.name]
            if full_idx and "dist" not in self._kvstore.type:
                self._kvstore.pull(idx, out=out, priority=-idx, ignore_sparse=False)
            else:
                self._kvstore.row_sparse_pull(idx, out=out, row_ids=row_id, priority=-idx)

    def _update(self, ignore_stale_grad=False):
        """Apply the updaters. A gradient ``backward`` has not written since the last
        step is stale (MXNet's ``_fresh_grad``): an error naming the parameter, or with
        ``ignore_stale_grad`` that copy is not updated (as in MXNet)."""
        if not ignore_stale_grad:
            for _, p in self._live():
                for data in p._arrays():
                    if not data._fresh_grad:
                        raise UserWarning(
                            f"Gradient of Parameter `{p.name}` on context {data.context} "
                            "has not been updated by backward since last `step`. This "
                            "could mean a bug in your model that made it only use a "
                            "subset of the Parameters (Blocks) for this iteration. If you "
                            "are intentionally only using a subset, call step with "
                            "ignore_stale_grad=True to suppress this warning and skip "
                            "updating of Parameters with stale gradient")
        if self._kvstore is not None and self._update_on_kvstore:
            for _, p in self._live():
                for data in p._arrays():
                    data._fresh_grad = False
            return                             # the store updated the weights
        for updater_index, updater in enumerate(self._updaters):
            batch = []       # MXNet 1.9.1: one updater call per device with every weight
            for i, p in self._live():
                data = p._arrays()[updater_index]
                if ignore_stale_grad and not data._fresh_grad:
                    continue
                batch.append((i, p.list_grad()[updater_index], data))
            if batch:
                updater(*[list(x) for x in zip(*batch)])
        for _, p in self._live():
            for data in p._arrays():
                data._fresh_grad = False

    # -- states ---------------------------------------------------------------------------
    def save_states(self, fname):
        """The optimizer and its states, pickled (temp file + rename)."""
        self._ready()
        tmp = fname + ".tmp"
        if self._update_on_kvstore:
            self._kvstore.save_optimizer_states(tmp, dump_optimizer=True)
        else:
            with open(tmp, "wb") as f:
                f.write(self._updaters[0].get_states(dump_optimizer=True))
        os.replace(tmp, fname)

    def load_states(self, fname):
        self._ready()
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            self._optimizer = self._kvstore._updater.optimizer
        else:
            with open(fname, "rb") as f:
                blob = f.read()
            for updater in self._updaters:
                updater.set_states(blob)
                updater.optimizer = self._updaters[0].optimizer
            self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = dict(enumerate(self._params))
