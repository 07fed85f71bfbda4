"""``gluon.Trainer``: applies an optimizer to a set of Parameters.

``step(batch_size)`` pushes one update op per parameter (``sgd_mom_update`` for
``conv0_weight``...), each carrying the parameter's name as its engine attrs, and returns
without waiting: the updates run on the engine after the backward ops that write the
gradients.
"""
from .. import optimizer as _opt
from .parameter import Parameter, ParameterDict

__all__ = ["Trainer"]


class Trainer:
    """``Trainer(params, 'sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-4})``.

    ``params`` is a ParameterDict (``net.collect_params()``), a dict or a list of
    Parameters; ``optimizer`` a name or an ``mx.optimizer.Optimizer``. Gradients are
    scaled by ``rescale_grad / batch_size`` at each step (``rescale_grad`` defaults to
    1). ``kvstore`` is a type name (``'device'``, ``'local'``...), an ``mx.kv.KVStore``
    or None; with one device the updates run here (``update_on_kvstore`` False), unless
    ``update_on_kvstore=True`` asks for them to run in the store: then each step
    pushes the gradients to it and pulls the updated weights back (MXNet's
    update-on-kvstore mode).
    """

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device",
                 compression_params=None, update_on_kvstore=None):
        if isinstance(params, (dict, ParameterDict)):
            params = list(params.values())
        elif isinstance(params, Parameter):
            params = [params]
        if not isinstance(params, (list, tuple)):
            raise ValueError("Trainer: params must be a ParameterDict, a dict or a list "
                             f"of Parameters, got {type(params).__name__}")
        self._params = []
        seen = set()
        for p in params:
            if not isinstance(p, Parameter):
                raise ValueError(f"Trainer: {p!r} is not a Parameter")
            if id(p) not in seen:
                seen.add(id(p))
                self._params.append(p)
        optimizer_params = dict(optimizer_params or {})
        self._scale = float(optimizer_params.get("rescale_grad", 1.0))
        self._init_optimizer(optimizer, optimizer_params)
        self._init_kvstore(kvstore, update_on_kvstore)

    def _init_kvstore(self, kvstore, update_on_kvstore):
        from .. import kvstore as _kv
        if isinstance(kvstore, str):
            kvstore = _kv.create(kvstore)
        elif kvstore is not None and not isinstance(kvstore, _kv.KVStore):
            raise ValueError(f"Trainer: kvstore={kvstore!r} must be a kvstore type name, "
                             "an mx.kv.KVStore or None")
        if update_on_kvstore and kvstore is None:
            raise ValueError("Trainer: update_on_kvstore=True needs a kvstore")
        self._kvstore = kvstore
        self._update_on_kvstore = bool(update_on_kvstore)
        self._kv_initialized = False

    def _init_optimizer(self, optimizer, optimizer_params):
        param_dict = dict(enumerate(self._params))
        names = {i: p.name for i, p in param_dict.items()}
        if isinstance(optimizer, _opt.Optimizer):
            if optimizer_params:
                raise ValueError("Trainer: optimizer_params must be empty when optimizer "
                                 "is an Optimizer instance")
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
            self._optimizer.idx2name = names
        else:
            self._optimizer = _opt.create(optimizer, param_dict=param_dict,
                                          param_idx2name=names, **optimizer_params)
        self._updater = _opt.get_updater(self._optimizer)

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
        """One update of every parameter with its gradient scaled by 1/batch_size."""
        self._optimizer.rescale_grad = self._scale / batch_size
        self._update()

    def allreduce_grads(self):
        """Nothing to reduce: there is a single device."""

    def update(self, batch_size, ignore_stale_grad=False):
        self._optimizer.rescale_grad = self._scale / batch_size
        self._update()

    def _update(self):
        if self._update_on_kvstore:
            return self._update_in_kvstore()
        updater = self._updater
        for i, p in enumerate(self._params):
            if p.grad_req == "null":
                continue
            if p._data is None:
                p._check_initialized()     # raises a clear error
            updater(i, p._grad, p._data)

    def _update_in_kvstore(self):
        kv = self._kvstore
        live = [(i, p) for i, p in enumerate(self._params) if p.grad_req != "null"]
        for _, p in live:
            if p._data is None:
                p._check_initialized()
        if not self._kv_initialized:
            for i, p in live:
                kv.init(i, p._data)
            kv.set_optimizer(self._optimizer)
            self._kv_initialized = True
        for i, p in live:
            kv.push(i, p._grad)
            kv.pull(i, out=p._data)

    # -- states ---------------------------------------------------------------------------
    def save_states(self, fname):
        with open(fname, "wb") as f:
            f.write(self._updater.get_states(dump_optimizer=True))

    def load_states(self, fname):
        with open(fname, "rb") as f:
            self._updater.set_states(f.read())
        self._optimizer = self._updater.optimizer
        self._optimizer.param_dict = dict(enumerate(self._params))
